/**
 * Examples for the admin side a stack must keep: fixtures that clash with stored rows are refused whole, fixtures of
 * several batches of entries load all or nothing, fixtures may refer to stored rows, and moving an entry's start
 * reorders history.
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

  h.check("loads a fixture of several batches of entries all or nothing", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const ws = world.workspace
      // More entries than the core checks and inserts at once (1,000): a store's bulk path, or its lack, is used.
      const LOAD = 2_500
      let minute = 0
      const entry = (overrides: Record<string, unknown> = {}) => {
        const startedAt = Date.UTC(2025, 0, 1) + minute++ * 60_000
        return {
          id: World.newId(),
          userId: world.users.member,
          workspaceId: ws,
          projectId: world.projects.website,
          status: "completed",
          startedAt: new Date(startedAt).toISOString(),
          endedAt: new Date(startedAt + 30_000).toISOString(),
          ...overrides
        }
      }
      const entries = (n: number) => Array.from({ length: n }, () => entry())
      const first = entries(LOAD)
      yield* Effect.orDie(stack.seed({ timeEntries: first }))
      const all = stack.backdoor === undefined
        ? (yield* history(stack, world.keys.member, { limit: 100 })).length
        : yield* stack.backdoor.entryCount(ws, world.users.member)
      expect(all, "every entry of a load of several batches").toBe(LOAD)
      const newest = first[LOAD - 1]!.id
      /**
       * That no entry of a refused load was written: the member's entries counted straight from the store when the
       * stack can, else their newest, which must still be the first load's (every refused load's entries start later):
       * one request, where counting 2,500 entries through the API takes 25 of the key's 120 a minute.
       */
      const unchanged = (what: string) =>
        Effect.gen(function*() {
          if (stack.backdoor !== undefined) {
            const count = yield* stack.backdoor.entryCount(ws, world.users.member)
            expect(count, `no entry of a refused load is written (${what})`).toBe(LOAD)
            return
          }
          const page = expectSuccess(
            yield* stack.call("listTimeEntries", as(world.keys.member, { query: [["limit", "1"]] })),
            "listTimeEntries"
          )
          expect(page.entries.map((e: { id: string }) => e.id), `no entry of a refused load is written (${what})`)
            .toEqual([newest])
        })

      const repeated = entries(LOAD - 1)
      const refusals: ReadonlyArray<readonly [string, ReadonlyArray<unknown>]> = [
        ["its last entry reuses the id of a stored entry", [...entries(LOAD - 1), entry({ id: first[0]!.id })]],
        ["its last entry repeats the id of one in its first batch", [...repeated, entry({ id: repeated[0]!.id })]],
        ["it has two active entries of one user, batches apart", [
          entry({ status: "active", endedAt: null }),
          ...entries(LOAD - 2),
          entry({ status: "active", endedAt: null })
        ]]
      ]
      for (const [what, timeEntries] of refusals) {
        const marker = World.newId()
        const exit = yield* Effect.exit(stack.seed({ clients: [{ id: marker, workspaceId: ws, name: "Marker" }], timeEntries }))
        expect(Exit.isFailure(exit), `a load is refused when ${what}`).toBe(true)
        yield* unchanged(what)
        const clients = expectSuccess(yield* stack.call("listClients", as(world.keys.owner)), "listClients")
        expect(clients.clients.map((c: { id: string }) => c.id), `nothing of a refused load is written (${what})`)
          .not.toContain(marker)
      }
      expect(
        expectSuccess(yield* stack.call("getActiveTimer", as(world.keys.member)), "getActiveTimer").timer,
        "no active entry of a refused load is written"
      ).toBeNull()
    }), 120_000)

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
