/**
 * Laws over generated data: pagination walks every entry exactly once in order for any limit and any interleaving of
 * new entries; a cursor from one binding is refused under every other; bad input of every kind gets the right 400
 * and never a 5xx.
 *
 * @since 0.1.0
 */
import type { Request } from "@stint/core"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import { expect } from "vitest"
import { as, expectError, expectSuccess, json } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import { property } from "../internal/Property.js"
import type { OperationName, Stack } from "../Stack.js"
import * as World from "../World.js"

const seedEntries = (stack: Stack, world: World.World, starts: ReadonlyArray<number>, projectId: string) =>
  Effect.gen(function*() {
    const entries = starts.map((startedAt) => ({ id: World.newId(), startedAt }))
    if (entries.length > 0) {
      yield* Effect.orDie(stack.seed({
        timeEntries: entries.map((e) => ({
          id: e.id,
          userId: world.users.member,
          workspaceId: world.workspace,
          projectId,
          status: "completed",
          startedAt: new Date(e.startedAt).toISOString(),
          endedAt: new Date(e.startedAt + 1000).toISOString()
        }))
      }))
    }
    return entries
  })

const page = (stack: Stack, key: string, query: ReadonlyArray<readonly [string, string]>) =>
  Effect.map(stack.call("listTimeEntries", as(key, { query })), (outcome) =>
    expectSuccess(outcome, "listTimeEntries"))

/** @since 0.1.0 */
export const register = (h: Harness, options: { readonly runs: number }): void => {
  h.check("pagination walks every entry once, in order, for any limit and any interleaving of new entries", (stack) =>
    Effect.gen(function*() {
      const now = yield* stack.clock.now
      const walk = fc.record({
        // Few distinct start times: many ties, which only the id can order.
        starts: fc.array(fc.integer({ min: 1, max: 6 }).map((k) => now - k * 3_600_000), { maxLength: 25 }),
        limit: fc.integer({ min: 1, max: 7 }),
        // Between pages: start a new timer (newer than everything), or add an entry older than everything.
        between: fc.array(fc.constantFrom("none", "start", "older"), { maxLength: 10 })
      })
      yield* property(walk, options.runs, ({ between, limit, starts }) =>
        Effect.gen(function*() {
          const world = yield* World.seed(stack)
          const seeded = yield* seedEntries(stack, world, starts, world.projects.website)
          const expected = [...seeded]
            .sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
            .map((e) => e.id)
          const seen: Array<{ id: string; startedAt: string }> = []
          let cursor: string | null = null
          for (let i = 0; i < 1000; i++) {
            const query: Array<[string, string]> = [["limit", String(limit)]]
            if (cursor !== null) query.push(["cursor", cursor])
            const body = yield* page(stack, world.keys.member, query)
            expect(body.entries.length).toBeLessThanOrEqual(limit)
            seen.push(...body.entries)
            cursor = body.nextCursor
            if (cursor === null) break
            const event = between[i % Math.max(1, between.length)] ?? "none"
            if (event === "start") {
              expectSuccess(
                yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: World.newId(), body: json({ projectId: world.projects.app }) })),
                "startTimer"
              )
            } else if (event === "older") {
              yield* seedEntries(stack, world, [now - 100 * 3_600_000], world.projects.app)
            }
          }
          const ids = seen.map((e) => e.id)
          expect(new Set(ids).size, "no entry is repeated").toBe(ids.length)
          // Every entry that existed before the walk appears exactly once, in order; newer ones never appear.
          expect(ids.filter((id) => expected.includes(id))).toEqual(expected)
          for (let i = 1; i < seen.length; i++) {
            const [a, b] = [seen[i - 1], seen[i]]
            if (a === undefined || b === undefined) continue
            expect(a.startedAt > b.startedAt || (a.startedAt === b.startedAt && a.id > b.id), "strictly descending").toBe(true)
          }
        }))
    }), 300_000)

  h.check("a cursor issued under one binding is refused under every other", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const now = yield* stack.clock.now
      // 25 entries: every limit up to the default 20 leaves a next page, so every binding issues a cursor.
      yield* seedEntries(stack, world, Array.from({ length: 25 }, (_, i) => now - (i % 4) * 1000), world.projects.website)
      // Two keys of the member, fresh for every case so that long runs stay under each key's rate limit.
      const keyPair = Effect.suspend(() =>
        Effect.map(
          Effect.orDie(stack.seed({
            apiKeys: [0, 1].map(() => ({ key: World.newKey(), userId: world.users.member, workspaceId: world.workspace }))
          })),
          (summary) => summary.apiKeys.map((k) => k.key)
        )
      )
      interface Binding {
        readonly key: number
        readonly project: string | undefined
        readonly limit: number | undefined
      }
      const binding: fc.Arbitrary<Binding> = fc.record({
        key: fc.nat(1),
        project: fc.constantFrom(undefined, world.projects.website),
        limit: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined })
      })
      const query = (b: Binding) => {
        const q: Array<[string, string]> = []
        if (b.limit !== undefined) q.push(["limit", String(b.limit)])
        if (b.project !== undefined) q.push(["projectId", b.project])
        return q
      }
      // What a cursor is bound to: the key, the filter and the effective limit (20 when omitted).
      const effective = (b: Binding) => JSON.stringify([b.key, b.project ?? null, b.limit ?? 20])
      // The second binding is the first with one thing changed (or nothing, or everything at random), so every kind
      // of change is tried in every run; each is also pinned as an example.
      type Change = "none" | "key" | "project" | "limit" | "any"
      const change = (from: Binding, how: Change, other: Binding): Binding => {
        switch (how) {
          case "none":
            return from
          case "key":
            return { ...from, key: 1 - from.key }
          case "project":
            return { ...from, project: from.project === undefined ? world.projects.website : undefined }
          case "limit":
            return { ...from, limit: from.limit === undefined ? 20 : from.limit === 5 ? 4 : from.limit + 1 }
          case "any":
            return other
        }
      }
      const pairs = fc.tuple(binding, fc.constantFrom<Change>("none", "key", "project", "limit", "any"), binding)
        .map(([from, how, other]) => [from, change(from, how, other)] as const)
      const base: Binding = { key: 0, project: undefined, limit: 2 }
      const pinned = (["none", "key", "project", "limit"] as const).map((how) => [base, change(base, how, base)] as const)
      yield* property(pairs, options.runs, ([from, to]) =>
        Effect.gen(function*() {
          const keys = yield* keyPair
          const issued = (yield* page(stack, keys[from.key] ?? "", query(from))).nextCursor
          expect(issued).not.toBeNull()
          const outcome = yield* stack.call(
            "listTimeEntries",
            as(keys[to.key] ?? "", { query: [...query(to), ["cursor", issued ?? ""]] })
          )
          if (effective(to) === effective(from)) expectSuccess(outcome, "listTimeEntries")
          else expectError(outcome, "INVALID_CURSOR")
        }), pinned)
    }), 300_000)

  h.check("bad input of every kind gets the right 400 and never a 5xx", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const uuid = world.projects.website
      const notUuid = fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.tuple(fc.nat(35), fc.constantFrom("g", "-", "", "00", " ", "Z")).map(([i, c]) => uuid.slice(0, i) + c + uuid.slice(i + 1)),
        fc.constantFrom("00000000-0000-0000-0000-000000000001", uuid.replace(/-/g, ""), `{${uuid}}`)
      ).filter((s) => !/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/.test(s))
      const notString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.object({ maxDepth: 1 }))
      const astral = (n: number) => "😀".repeat(n)
      const bad: fc.Arbitrary<readonly [OperationName, Request.ApiRequest, string]> = fc.oneof(
        // createProject bodies
        fc.oneof(
          notUuid.map((clientId) => ({ clientId, name: "x" })),
          notString.map((name) => ({ clientId: world.clients.globex, name })),
          fc.constantFrom("", astral(201), "a".repeat(201)).map((name) => ({ clientId: world.clients.globex, name })),
          fc.oneof(fc.string({ maxLength: 8 }), notString).filter((c) => c !== null && !(typeof c === "string" && /^#[0-9a-fA-F]{6}$/.test(c)))
            .map((color) => ({ clientId: world.clients.globex, name: "x", color })),
          fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !["clientId", "name", "color"].includes(k))
            .map((k) => ({ clientId: world.clients.globex, name: "x", [k]: 1 })),
          fc.oneof(notString, fc.string()).filter((v) => v === null || typeof v !== "object" || Array.isArray(v))
        ).map((body) => ["createProject", { body: json(body) }, "INVALID_REQUEST"] as const),
        // startTimer bodies
        fc.oneof(
          notUuid.map((projectId) => ({ projectId })),
          fc.oneof(fc.string(), fc.integer(), fc.constant(null)).map((billable) => ({ projectId: uuid, billable })),
          fc.oneof(fc.constantFrom(null, astral(501), "b".repeat(501)), fc.integer()).map((note) => ({ projectId: uuid, note })),
          fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !["projectId", "billable", "note"].includes(k))
            .map((k) => ({ projectId: uuid, [k]: true }))
        ).map((body) => ["startTimer", { idempotencyKey: World.newId(), body: json(body) }, "INVALID_REQUEST"] as const),
        // stopTimer paths
        notUuid.filter((s) => s.length > 0 && !s.includes("/") && s !== "." && s !== "..")
          .map((timerId) => ["stopTimer", { idempotencyKey: "k", path: { timerId } }, "INVALID_REQUEST"] as const),
        // Idempotency-Key
        fc.constantFrom("", " ", "\t", "x".repeat(256)).map((idempotencyKey) =>
          ["startTimer", { idempotencyKey, body: json({ projectId: uuid }) }, "IDEMPOTENCY_KEY_REQUIRED"] as const
        ),
        // Query strings
        fc.oneof(
          notUuid.map((v) => [["clientId", v]]),
          fc.constant([]),
          fc.string({ minLength: 1, maxLength: 8 }).filter((n) => n !== "clientId").map((n) => [["clientId", uuid], [n, "1"]])
        ).map((query) => ["listProjects", { query: query as Array<[string, string]> }, "INVALID_REQUEST"] as const),
        fc.oneof(
          fc.string({ maxLength: 5 }).filter((l) => !/^(?:[1-9][0-9]?|100)$/.test(l)).map((l) => [["limit", l]]),
          fc.oneof(fc.constant(""), fc.string({ maxLength: 20 }).map((s) => `${s}=`), fc.constant("x".repeat(1025))).map((c) => [["cursor", c]]),
          notUuid.map((p) => [["projectId", p]]),
          fc.constantFrom("offset", "status", "from", "to", "userId", "page").map((n) => [[n, "1"]]),
          fc.constantFrom("limit", "projectId").map((n) => [[n, n === "limit" ? "5" : uuid], [n, n === "limit" ? "5" : uuid]])
        ).map((query) => ["listTimeEntries", { query: query as Array<[string, string]> }, "INVALID_REQUEST"] as const),
        fc.constantFrom("listClients" as const, "getActiveTimer" as const).chain((operation) =>
          fc.string({ minLength: 1, maxLength: 8 }).map((n) => [operation, { query: [[n, "1"]] }, "INVALID_REQUEST"] as const)
        )
      )
      let sent = 0
      let key = ""
      yield* property(bad, options.runs * 8, ([operation, request, code]) =>
        Effect.gen(function*() {
          // A fresh key every 100 requests keeps the rate limit out of the way.
          if (sent++ % 100 === 0) key = yield* freshKey(stack, world)
          const outcome = yield* stack.call(operation, as(key, request))
          expect(outcome.status, `${operation} ${JSON.stringify(request)} → ${outcome.text}`).toBeLessThan(500)
          expectError(outcome, code)
        }))
    }), 300_000)
}

const freshKey = (stack: Stack, world: World.World) =>
  Effect.map(
    Effect.orDie(stack.seed({ apiKeys: [{ key: World.newKey(), userId: world.users.owner, workspaceId: world.workspace }] })),
    (summary) => summary.apiKeys[0]?.key ?? ""
  )
