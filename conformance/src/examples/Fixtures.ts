/**
 * Examples for the admin side a stack must keep: fixtures that clash with stored rows are refused whole, fixtures may
 * refer to stored rows, and moving an entry's start reorders history.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { expect } from "vitest"
import { as, expectSuccess, history, startOk } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import * as World from "../World.js"

/** @since 0.1.0 */
export const register = (h: Harness): void => {
  h.check("refuses a fixture that clashes with stored rows, and writes none of it", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const running = yield* startOk(stack, world.keys.member, world.projects.website)
      const ws = world.workspace
      const entry = (id: string, status: "active" | "completed") => ({
        id,
        userId: world.users.member,
        workspaceId: ws,
        projectId: world.projects.app,
        status,
        startedAt: "2026-01-01T00:00:00Z",
        endedAt: status === "active" ? null : "2026-01-01T01:00:00Z"
      })
      const clashes: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
        ["a workspace id", { workspaces: [{ id: ws, name: "Again" }] }],
        ["a user id", { users: [{ id: world.users.owner, name: "Again", email: "again@example.com" }] }],
        ["a client id", { clients: [{ id: world.clients.globex, workspaceId: ws, name: "Again" }] }],
        ["a project id", { projects: [{ id: world.projects.website, clientId: world.clients.globex, name: "Again" }] }],
        ["a membership", { memberships: [{ workspaceId: ws, userId: world.users.member, role: "owner" }] }],
        ["an assignment", { assignments: [{ projectId: world.projects.website, userId: world.users.member }] }],
        ["an API key id", { apiKeys: [{ id: world.keyIds.owner, userId: world.users.owner, workspaceId: ws }] }],
        ["an API key", { apiKeys: [{ key: world.keys.owner, userId: world.users.owner, workspaceId: ws }] }],
        ["an entry id", { timeEntries: [entry(running.id, "completed")] }],
        ["a second active entry", { timeEntries: [entry(World.newId(), "active")] }]
      ]
      for (const [what, clash] of clashes) {
        // Each fixture also carries a harmless new client: all or nothing means it must not appear either.
        const marker = World.newId()
        const withMarker = [...((clash["clients"] as Array<unknown> | undefined) ?? []), { id: marker, workspaceId: ws, name: "Marker" }]
        const exit = yield* Effect.exit(stack.seed({ ...clash, clients: withMarker }))
        expect(Exit.isFailure(exit), `a fixture reusing ${what} is refused`).toBe(true)
        const clients = expectSuccess(yield* stack.call("listClients", as(world.keys.owner)), "listClients")
        expect(clients.clients.map((c: { id: string }) => c.id), `nothing of a refused fixture (${what}) is written`)
          .not.toContain(marker)
      }
      // The refused fixtures changed nothing: still one active entry, the running one.
      const entries = yield* history(stack, world.keys.member)
      expect(entries.filter((e) => e["status"] === "active").map((e) => e["id"])).toEqual([running.id])
      if (stack.backdoor !== undefined) {
        expect(yield* stack.backdoor.entryCount(ws, world.users.member)).toBe(1)
      }
    }))

  h.check("accepts a fixture that refers to stored rows", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const project = World.newId()
      yield* Effect.orDie(stack.seed({
        projects: [{ id: project, clientId: world.clients.empty, name: "Later" }],
        assignments: [{ projectId: project, userId: world.users.owner }]
      }))
      const listed = expectSuccess(
        yield* stack.call("listProjects", as(world.keys.owner, { query: [["clientId", world.clients.empty]] })),
        "listProjects"
      )
      expect(listed.projects).toEqual([{ id: project, clientId: world.clients.empty, name: "Later", color: "#ff5c35" }])
      const started = yield* startOk(stack, world.keys.owner, project)
      expect((started.outcome.body as { timer: { payRateCents: number } }).timer.payRateCents).toBe(5000)
    }))

  h.check("reorders history when an entry's start moves, and recomputes its duration and earnings", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const [a, b, c] = [World.newId(), World.newId(), World.newId()]
      const at = (hour: number) => new Date(Date.UTC(2026, 0, 1, hour)).toISOString()
      yield* Effect.orDie(stack.seed({
        timeEntries: [[a, 9], [b, 10], [c, 11]].map(([id, hour]) => ({
          id,
          userId: world.users.member,
          workspaceId: world.workspace,
          projectId: world.projects.website,
          status: "completed",
          startedAt: at(hour as number),
          endedAt: at(12),
          payRateCents: 3600
        }))
      }))
      expect((yield* history(stack, world.keys.member)).map((e) => e["id"])).toEqual([c, b, a])
      yield* stack.admin.moveEntryStart(c, Date.UTC(2026, 0, 1, 8))
      const after = yield* history(stack, world.keys.member, { limit: 1 })
      expect(after.map((e) => e["id"])).toEqual([b, a, c])
      expect(after[2]).toMatchObject({ startedAt: "2026-01-01T08:00:00.000Z", durationSeconds: 14_400, earnings: "144.00" })
    }))
}
