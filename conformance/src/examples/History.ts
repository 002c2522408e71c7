/**
 * Examples for listTimeEntries: order and ties, pages that never skip or repeat, the extra-row rule, filters, the
 * entry resource, and cursor binding.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { as, expectError, expectSuccess, history, startOk } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import type { Stack } from "../Stack.js"
import * as World from "../World.js"

const HOUR = 3_600_000

interface Seeded {
  readonly id: string
  readonly startedAt: number
  readonly projectId: string
}

/** Seeds `count` completed entries of the member, several sharing a start, across every kind of project. */
const seedHistory = (stack: Stack, world: World.World, count: number) =>
  Effect.gen(function*() {
    const base = Date.UTC(2026, 0, 1)
    // The member is assigned to each of these but `unassigned` (history keeps entries of projects no longer assigned).
    const projects = [
      world.projects.website,
      world.projects.app,
      world.projects.archived,
      world.projects.onArchivedClient,
      world.projects.unassigned
    ]
    const entries: Array<Seeded> = Array.from({ length: count }, (_, i) => ({
      id: World.newId(),
      // Every third entry shares its start with the previous one: ties must be broken by id.
      startedAt: base + Math.floor(i - (i % 3 === 2 ? 1 : 0)) * HOUR,
      projectId: projects[i % projects.length] ?? world.projects.website
    }))
    yield* Effect.orDie(stack.seed({
      timeEntries: [
        ...entries.map((e) => ({
          id: e.id,
          userId: world.users.member,
          workspaceId: world.workspace,
          projectId: e.projectId,
          status: "completed",
          billable: true,
          note: null,
          startedAt: new Date(e.startedAt).toISOString(),
          endedAt: new Date(e.startedAt + 1_800_000).toISOString()
        })),
        // Noise that must never appear: another user's entry and the member's entry in the other workspace.
        {
          id: World.newId(),
          userId: world.users.owner,
          workspaceId: world.workspace,
          projectId: world.projects.website,
          status: "completed",
          startedAt: new Date(base).toISOString(),
          endedAt: new Date(base + 1000).toISOString()
        },
        {
          id: World.newId(),
          userId: world.users.member,
          workspaceId: world.otherWorkspace,
          projectId: world.projects.foreign,
          status: "completed",
          startedAt: new Date(base).toISOString(),
          endedAt: new Date(base + 1000).toISOString()
        }
      ]
    }))
    const ordered = [...entries].sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    return ordered
  })

const firstPage = (stack: Stack, key: string, query: ReadonlyArray<[string, string]>) =>
  Effect.map(stack.call("listTimeEntries", as(key, { query })), (outcome) =>
    expectSuccess(outcome, "listTimeEntries"))

/** @since 0.1.0 */
export const register = (h: Harness): void => {
  h.check("walks every entry exactly once, newest first with ties broken by id, for any page size", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const expected = (yield* seedHistory(stack, world, 23)).map((e) => e.id)
      for (const limit of [1, 2, 3, 5, 22, 23, 24, 100]) {
        expect((yield* history(stack, world.keys.member, { limit })).map((e) => e["id"])).toEqual(expected)
      }
      expect((yield* history(stack, world.keys.member)).map((e) => e["id"])).toEqual(expected)
    })
  )

  h.check("returns a cursor only when a row exists beyond the page, and 20 rows by default", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const empty = yield* firstPage(stack, world.keys.member, [])
      expect(empty).toEqual({ entries: [], nextCursor: null })
      yield* seedHistory(stack, world, 3)
      const exact = yield* firstPage(stack, world.keys.member, [["limit", "3"]])
      expect([exact.entries.length, exact.nextCursor]).toEqual([3, null])
      const short = yield* firstPage(stack, world.keys.member, [["limit", "2"]])
      expect(short.entries.length).toBe(2)
      expect(short.nextCursor).toMatch(/^[A-Za-z0-9_-]{1,1024}$/)
      const rest = yield* firstPage(stack, world.keys.member, [["limit", "2"], ["cursor", short.nextCursor ?? ""]])
      expect([rest.entries.length, rest.nextCursor]).toEqual([1, null])
      yield* seedHistory(stack, world, 20)
      const page = yield* firstPage(stack, world.keys.member, [])
      expect(page.entries.length).toBe(20)
      expect(page.nextCursor).not.toBeNull()
    })
  )

  h.check("filters by project, including archived and no-longer-assigned projects; empty history is 200", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const all = yield* seedHistory(stack, world, 12)
      expect((yield* history(stack, world.keys.member)).map((e) => e["id"])).toEqual(all.map((e) => e.id))
      const filtered = [
        world.projects.archived,
        world.projects.onArchivedClient,
        world.projects.unassigned,
        world.projects.website
      ]
      for (const projectId of filtered) {
        const expected = all.filter((e) => e.projectId === projectId).map((e) => e.id)
        expect(expected.length).toBeGreaterThan(0)
        expect((yield* history(stack, world.keys.member, { projectId, limit: 2 })).map((e) => e["id"])).toEqual(expected)
        expect((yield* history(stack, world.keys.member, { projectId: projectId.toUpperCase() })).map((e) => e["id"]))
          .toEqual(expected)
        // Ids are the same in any case: a cursor issued under the lowercase filter goes on under the uppercase one.
        const first = yield* firstPage(stack, world.keys.member, [["projectId", projectId], ["limit", "1"]])
        const next = yield* firstPage(stack, world.keys.member, [
          ["projectId", projectId.toUpperCase()],
          ["limit", "1"],
          ["cursor", first.nextCursor ?? ""]
        ])
        expect([...first.entries, ...next.entries].map((e) => e["id"])).toEqual(expected.slice(0, 2))
      }
      for (const projectId of [world.projects.support, world.projects.foreign, World.newId()]) {
        expect(yield* firstPage(stack, world.keys.member, [["projectId", projectId]])).toEqual({ entries: [], nextCursor: null })
      }
    })
  )

  h.check("writes every field of an entry: UTC times, durations, exact earnings, nulls while active or voided", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const [completed, unbillable, voided, halfCent] = [World.newId(), World.newId(), World.newId(), World.newId()]
      yield* Effect.orDie(stack.seed({
        timeEntries: [
          {
            id: completed,
            userId: world.users.member,
            workspaceId: world.workspace,
            projectId: world.projects.website,
            status: "completed",
            billable: true,
            note: "n",
            startedAt: "2026-01-02T10:00:00+01:00",
            endedAt: "2026-01-02T10:30:00.999Z"
          },
          {
            id: unbillable,
            userId: world.users.member,
            workspaceId: world.workspace,
            projectId: world.projects.app,
            status: "completed",
            billable: false,
            startedAt: "2026-01-01T09:00:00Z",
            endedAt: "2026-01-01T10:00:00Z"
          },
          {
            id: voided,
            userId: world.users.member,
            workspaceId: world.workspace,
            projectId: world.projects.support,
            status: "voided",
            billable: true,
            startedAt: "2025-12-31T09:00:00Z",
            endedAt: "2025-12-31T09:00:59.5Z",
            payRateCents: 123
          },
          {
            // 201 cents an hour for 30 minutes: exactly 100.5 cents, "1.01" half-up (floats say 1.005 → "1.00").
            id: halfCent,
            userId: world.users.member,
            workspaceId: world.workspace,
            projectId: world.projects.website,
            status: "completed",
            startedAt: "2025-12-30T09:00:00Z",
            endedAt: "2025-12-30T09:30:00Z",
            payRateCents: 201
          }
        ]
      }))
      const running = yield* startOk(stack, world.keys.member, world.projects.website)
      const entries = yield* history(stack, world.keys.member)
      expect(entries.map((e) => e["id"])).toEqual([running.id, completed, unbillable, voided, halfCent])
      expect(entries[4]).toMatchObject({ durationSeconds: 1800, payRateCents: 201, earnings: "1.01" })
      expect(entries[0]).toMatchObject({ status: "active", endedAt: null, durationSeconds: null, earnings: null })
      expect(entries[1]).toEqual({
        id: completed,
        clientId: world.clients.globex,
        clientName: "Globex",
        projectId: world.projects.website,
        projectName: "Website",
        color: "#0A0B0C",
        status: "completed",
        billable: true,
        note: "n",
        startedAt: "2026-01-02T09:00:00.000Z",
        endedAt: "2026-01-02T10:30:00.999Z",
        durationSeconds: 5400,
        payRateCents: 3000, // the membership's rate: a fixture entry defaults to it
        earnings: "45.00",
        currency: "USD"
      })
      expect(entries[2]).toMatchObject({ billable: false, durationSeconds: 3600, payRateCents: 3000, earnings: "0.00" })
      expect(entries[3]).toMatchObject({
        status: "voided",
        endedAt: "2025-12-31T09:00:59.500Z",
        durationSeconds: 59,
        payRateCents: 123,
        earnings: null
      })
    })
  )

  h.check("clamps durations to 2147483647 seconds, and computes earnings from the clamped value", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const long = World.newId()
      yield* Effect.orDie(stack.seed({
        timeEntries: [{
          id: long,
          userId: world.users.member,
          workspaceId: world.workspace,
          projectId: world.projects.website,
          status: "completed",
          // A century: 3,155,760,000 seconds, past the 2^31 − 1 the spec's integers allow.
          startedAt: "1900-01-01T00:00:00Z",
          endedAt: "2000-01-01T00:00:00Z",
          payRateCents: 3600
        }]
      }))
      const [entry] = yield* history(stack, world.keys.member)
      expect(entry).toMatchObject({ id: long, durationSeconds: 2147483647, earnings: "21474836.47" })
    })
  )

  h.check("computes earnings past 2^53 exactly and rounds their half cent up (the largest rate, the longest durations)", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const rate = 2147483647
      const entry = (id: string, startedAt: string, endedAt: string) => ({
        id,
        userId: world.users.member,
        workspaceId: world.workspace,
        projectId: world.projects.website,
        status: "completed",
        startedAt,
        endedAt,
        payRateCents: rate
      })
      const [halfCent, nearlyLongest, clamped] = [World.newId(), World.newId(), World.newId()]
      yield* Effect.orDie(stack.seed({
        timeEntries: [
          // 2,147,477,400 s: exactly half a cent over an even number of cents, where rounding down or to even is off
          // by one (the other two are below the half).
          entry(halfCent, "1951-01-01T00:00:00Z", "2019-01-19T01:30:00Z"),
          // 2,147,483,639 s: rate × seconds is about 4.6e18, where a float (or float cents) is off by a cent.
          entry(nearlyLongest, "1950-01-01T00:00:00Z", "2018-01-19T03:13:59Z"),
          entry(clamped, "1900-01-01T00:00:00Z", "2000-01-01T00:00:00Z")
        ]
      }))
      // The rule itself, in integers: rate × seconds / 3600 cents, half-up to the cent.
      const exact = (seconds: number) => {
        const cents = (2n * BigInt(rate) * BigInt(seconds) + 3600n) / 7200n
        return `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`
      }
      const entries = yield* history(stack, world.keys.member)
      expect(entries.map((e) => [e["id"], e["durationSeconds"], e["earnings"]])).toEqual([
        [halfCent, 2147477400, exact(2147477400)],
        [nearlyLongest, 2147483639, exact(2147483639)],
        [clamped, 2147483647, exact(2147483647)]
      ])
      expect([exact(2147477400), exact(2147483639)]).toEqual(["12810201663339.11", "12810238880423.75"])
    })
  )

  h.check("refuses a cursor under any other key, filter or limit, and any altered cursor, with INVALID_CURSOR", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      yield* seedHistory(stack, world, 6)
      const page = yield* firstPage(stack, world.keys.member, [["limit", "2"]])
      const cursor = page.nextCursor ?? ""
      const other = yield* Effect.orDie(stack.seed({
        apiKeys: [{ key: World.newKey(), userId: world.users.member, workspaceId: world.workspace }]
      }))
      const otherKey = other.apiKeys[0]?.key ?? ""
      const flip = cursor.slice(0, 5) + (cursor[5] === "A" ? "B" : "A") + cursor.slice(6)
      const refused: Array<[string, ReadonlyArray<[string, string]>]> = [
        [world.keys.member, [["limit", "3"], ["cursor", cursor]]],
        [world.keys.member, [["cursor", cursor]]],
        [world.keys.member, [["limit", "2"], ["projectId", world.projects.website], ["cursor", cursor]]],
        [otherKey, [["limit", "2"], ["cursor", cursor]]],
        [world.keys.owner, [["limit", "2"], ["cursor", cursor]]],
        [world.keys.member, [["limit", "2"], ["cursor", flip]]],
        [world.keys.member, [["limit", "2"], ["cursor", "A".repeat(1024)]]],
        [world.keys.member, [["limit", "2"], ["cursor", "x"]]]
      ]
      for (const [key, query] of refused) {
        expectError(yield* stack.call("listTimeEntries", as(key, { query })), "INVALID_CURSOR")
      }
      const accepted = yield* firstPage(stack, world.keys.member, [["limit", "2"], ["cursor", cursor]])
      expect(accepted.entries.length).toBe(2)
    })
  )

  h.check("binds a cursor to the effective limit: an omitted limit is 20, and nothing else", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      yield* seedHistory(stack, world, 25)
      const omitted = yield* firstPage(stack, world.keys.member, [])
      expect(omitted.entries.length).toBe(20)
      const twenty = yield* firstPage(stack, world.keys.member, [["limit", "20"]])
      // Either cursor goes on under the other way of asking for the same limit…
      const continued: ReadonlyArray<ReadonlyArray<[string, string]>> = [
        [["limit", "20"], ["cursor", omitted.nextCursor ?? ""]],
        [["cursor", twenty.nextCursor ?? ""]]
      ]
      for (const query of continued) {
        const rest = yield* firstPage(stack, world.keys.member, query)
        expect(rest.entries.length).toBe(5)
      }
      // …and under no other limit.
      for (const [limit, cursor] of [["19", omitted.nextCursor], ["21", omitted.nextCursor], ["19", twenty.nextCursor]]) {
        expectError(
          yield* stack.call("listTimeEntries", as(world.keys.member, { query: [["limit", limit ?? ""], ["cursor", cursor ?? ""]] })),
          "INVALID_CURSOR"
        )
      }
    })
  )

  h.check("does not show entries created after the first page in later pages", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const seeded = yield* seedHistory(stack, world, 5)
      const page = yield* firstPage(stack, world.keys.member, [["limit", "2"]])
      const fresh = yield* startOk(stack, world.keys.member, world.projects.website)
      const rest: Array<string> = []
      let cursor = page.nextCursor
      while (cursor !== null) {
        const next = yield* firstPage(stack, world.keys.member, [["limit", "2"], ["cursor", cursor]])
        rest.push(...next.entries.map((e) => e.id))
        cursor = next.nextCursor
      }
      expect([...page.entries.map((e) => e.id), ...rest]).toEqual(seeded.map((e) => e.id))
      expect(rest).not.toContain(fresh.id)
    })
  )
}
