/**
 * What the storage itself enforces, past the adapter's code (with `storageWrites`): one active entry per user and
 * workspace is the database's rule, not only the lock's. An adapter whose lock serializes every start passes every
 * operation-level check with or without the database's constraint; this check writes past it.
 *
 * @since 0.1.0
 */
import type { Records } from "@stint/core"
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { startOk } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import * as World from "../World.js"

/** @since 0.1.0 */
export const register = (h: Harness): void => {
  h.check("the storage itself refuses a second active entry for a user and workspace, and only that", (stack) =>
    Effect.gen(function*() {
      const backdoor = stack.backdoor
      const insertEntry = backdoor?.insertEntry
      if (backdoor === undefined || insertEntry === undefined) {
        return yield* Effect.dieMessage("the stack declares `storageWrites` but its backdoor has no insertEntry")
      }
      const world = yield* World.seed(stack)
      const now = yield* stack.clock.now
      const running = yield* startOk(stack, world.keys.member, world.projects.website)
      const row = (userId: string, status: Records.EntryRow["status"], startedAt: number): Records.EntryRow => ({
        id: World.newId(),
        workspaceId: world.workspace,
        userId,
        projectId: world.projects.app,
        status,
        billable: true,
        note: null,
        startedAt,
        endedAt: status === "active" ? null : startedAt + 1_000,
        payRateCents: 0
      })
      expect(yield* insertEntry(row(world.users.member, "active", now - 60_000)), "a second active entry").toBe("refused")
      // The rule is about active entries of one user in one workspace: these are all allowed.
      expect(yield* insertEntry(row(world.users.member, "completed", now - 120_000)), "a completed entry").toBe("stored")
      expect(yield* insertEntry(row(world.users.member, "voided", now - 180_000)), "a voided entry").toBe("stored")
      expect(yield* insertEntry(row(world.users.owner, "active", now - 60_000)), "another user's active entry").toBe("stored")
      expect(yield* backdoor.activeEntryIds(world.workspace, world.users.member)).toEqual([running.id])
    }))
}
