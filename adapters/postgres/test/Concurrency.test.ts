/**
 * Several instances on one database: three stores, each with its own pool (as three `stint serve` processes would
 * have), driven at once. One active timer per user at every observed moment and exactly one after concurrent starts;
 * identical idempotent requests executed once; the rate limit counted across instances; never an error the client did
 * not cause.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Operations, Store } from "@stint/core"
import { PgStore } from "@stint/postgres"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Ref from "effect/Ref"
import { as, databaseLayer, seedWorld, start, stop, TestDatabase } from "./support.js"

const INSTANCES = 3

/** Three independent stores on the test database. */
const instances = Effect.flatMap(TestDatabase, (db) =>
  Effect.all(Array.from({ length: INSTANCES }, () => PgStore.make({ url: db.url })), { concurrency: "unbounded" }))

const on = (store: Store.Store["Type"]) => Effect.provideService(Store.Store, store)

/** Outcome of a public operation: "ok" with the value, or the error's code. */
type Outcome<A> = { readonly ok: true; readonly code: "ok"; readonly value: A } | { readonly ok: false; readonly code: string }

const outcome = <A, E extends { readonly code: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.match(effect, {
    onFailure: (error): Outcome<A> => ({ ok: false, code: error.code }),
    onSuccess: (value): Outcome<A> => ({ ok: true, code: "ok", value })
  })

/** Polls the number of active entries of a user until interrupted; returns the largest count seen, and how often. */
const observeActive = (workspaceId: string, userId: string) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase
    const seen = yield* Ref.make({ max: 0, observations: 0 })
    const fiber = yield* Effect.fork(Effect.forever(
      Effect.flatMap(
        db.sql<{ count: number }>(
          "SELECT count(*)::int AS count FROM time_entries WHERE workspace_id = $1 AND user_id = $2 AND status = 'active'",
          [workspaceId, userId]
        ),
        (rows) => Ref.update(seen, (s) => ({ max: Math.max(s.max, rows[0]?.count ?? 0), observations: s.observations + 1 }))
      )
    ))
    return Effect.zipRight(Fiber.interrupt(fiber), Ref.get(seen))
  })

describe("several instances on one database", () => {
  layer(databaseLayer, { excludeTestServices: true })((it) => {
    it.scoped("60 concurrent starts end with exactly one active entry, each start completing exactly one other", () =>
      Effect.gen(function*() {
        const stores = yield* instances
        const { ids, keys } = yield* on(stores[0] as Store.Store["Type"])(seedWorld())
        const stopObserving = yield* observeActive(ids.workspace, ids.owner)
        const results = yield* Effect.all(
          Array.from({ length: 60 }, (_, i) =>
            on(stores[i % INSTANCES] as Store.Store["Type"])(
              outcome(Operations.startTimer(start(keys.owner, `start-${i}`, { projectId: i % 2 ? ids.website : ids.vaccine })))
            )),
          { concurrency: "unbounded" }
        )
        const observed = yield* stopObserving
        expect(results.map((r) => r.code)).toEqual(Array(60).fill("ok"))
        const started = results.flatMap((r) => (r.ok ? [r.value.response] : []))
        const startedIds = started.map((r) => r.timer?.id ?? "")
        const stoppedIds = started.flatMap((r) => (r.stoppedTimerId === null ? [] : [r.stoppedTimerId]))
        // Exactly one start found nothing running; every other completed a distinct, earlier start.
        expect(stoppedIds).toHaveLength(59)
        expect(new Set(stoppedIds).size).toBe(59)
        const db = yield* TestDatabase
        const active = yield* db.sql<{ id: string }>(
          "SELECT id FROM time_entries WHERE workspace_id = $1 AND user_id = $2 AND status = 'active'",
          [ids.workspace, ids.owner]
        )
        expect(active).toHaveLength(1)
        expect(new Set([...stoppedIds, active[0]?.id])).toEqual(new Set(startedIds))
        expect(observed.max).toBeLessThanOrEqual(1)
        expect(observed.observations).toBeGreaterThan(0)
        console.log(`60 concurrent starts over ${INSTANCES} instances: ${observed.observations} observations, at most ${observed.max} active`)
      }))

    it.scoped("60 concurrent starts and stops keep at most one active entry, and fail only for reasons the client caused", () =>
      Effect.gen(function*() {
        const stores = yield* instances
        const { ids, keys } = yield* on(stores[0] as Store.Store["Type"])(seedWorld())
        const stopObserving = yield* observeActive(ids.workspace, ids.member)
        const results = yield* Effect.all(
          Array.from({ length: 60 }, (_, i) =>
            on(stores[i % INSTANCES] as Store.Store["Type"])(
              i % 2 === 0
                ? outcome(Operations.startTimer(start(keys.member, `s-${i}`, { projectId: ids.website })))
                : Effect.flatMap(outcome(Operations.getActiveTimer(as(keys.member))), (current) =>
                  current.ok && current.value.timer !== null
                    ? outcome(Operations.stopTimer(stop(keys.member, `t-${i}`, current.value.timer.id)))
                    : Effect.succeed<Outcome<never>>({ ok: false, code: "nothing to stop" }))
            )),
          { concurrency: "unbounded" }
        )
        const observed = yield* stopObserving
        const codes = new Set(results.map((r) => r.code))
        for (const code of codes) expect(["ok", "nothing to stop", "TIMER_ALREADY_STOPPED"]).toContain(code)
        expect(observed.max).toBeLessThanOrEqual(1)
        // Every acknowledged start is stored, and no entry was completed twice.
        const db = yield* TestDatabase
        const rows = yield* db.sql<{ id: string; status: string }>(
          "SELECT id, status FROM time_entries WHERE workspace_id = $1 AND user_id = $2",
          [ids.workspace, ids.member]
        )
        const stored = new Map(rows.map((row) => [row.id, row.status]))
        const acknowledged = results.flatMap((r) => (r.ok && "response" in r.value ? [r.value.response] : []))
        for (const result of acknowledged) {
          if (result.timer !== null) expect(stored.has(result.timer.id)).toBe(true)
        }
        const stopped = acknowledged.flatMap((r) => (r.stoppedTimerId === null ? [] : [r.stoppedTimerId]))
        expect(new Set(stopped).size).toBe(stopped.length)
        expect(rows.filter((row) => row.status === "active").length).toBeLessThanOrEqual(1)
        // One more start leaves exactly one active entry.
        yield* on(stores[1] as Store.Store["Type"])(Operations.startTimer(start(keys.member, "last", { projectId: ids.website })))
        const active = yield* db.sql(
          "SELECT 1 FROM time_entries WHERE workspace_id = $1 AND user_id = $2 AND status = 'active'",
          [ids.workspace, ids.member]
        )
        expect(active).toHaveLength(1)
      }))

    it.scoped("10 identical idempotent requests over three instances execute once and answer identical bodies", () =>
      Effect.gen(function*() {
        const stores = yield* instances
        const { ids, keys } = yield* on(stores[0] as Store.Store["Type"])(seedWorld())
        const db = yield* TestDatabase
        const starts = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            on(stores[i % INSTANCES] as Store.Store["Type"])(
              Operations.startTimer(start(keys.owner, "one-key", { projectId: ids.website, note: "once" }))
            )),
          { concurrency: "unbounded" }
        )
        expect(new Set(starts.map((r) => r.json)).size).toBe(1)
        expect(starts.filter((r) => !r.replayed)).toHaveLength(1)
        const entries = yield* db.sql("SELECT 1 FROM time_entries WHERE workspace_id = $1 AND user_id = $2", [ids.workspace, ids.owner])
        expect(entries).toHaveLength(1)
        const timerId = starts[0]?.response.timer?.id ?? ""
        const stops = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            on(stores[i % INSTANCES] as Store.Store["Type"])(Operations.stopTimer(stop(keys.owner, "stop-key", timerId)))),
          { concurrency: "unbounded" }
        )
        expect(new Set(stops.map((r) => r.json)).size).toBe(1)
        expect(stops.filter((r) => !r.replayed)).toHaveLength(1)
      }))

    it.scoped("200 requests of one key spread over three instances within the window: exactly 120 accepted", () =>
      Effect.gen(function*() {
        const stores = yield* instances
        const { keys } = yield* on(stores[0] as Store.Store["Type"])(seedWorld())
        const began = Date.now()
        const results = yield* Effect.all(
          Array.from({ length: 200 }, (_, i) =>
            on(stores[i % INSTANCES] as Store.Store["Type"])(outcome(Operations.getActiveTimer(as(keys.owner))))),
          { concurrency: "unbounded" }
        )
        const elapsed = Date.now() - began
        expect(elapsed).toBeLessThan(60_000)
        const counts = new Map<string, number>()
        for (const r of results) counts.set(r.code, (counts.get(r.code) ?? 0) + 1)
        expect(Object.fromEntries(counts)).toEqual({ ok: 120, API_KEY_RATE_LIMITED: 80 })
        console.log(`200 requests of one key over ${INSTANCES} instances in ${elapsed} ms: 120 accepted, 80 refused`)
      }))
  })
})
