/**
 * Faults during traffic: backends terminated under the store's feet, then the database unreachable (connections reset,
 * then a server that accepts and never answers). Requests fail with `StoreError` (500 INTERNAL_ERROR) within a few
 * seconds, none hangs, the same store serves again once the database is back (nothing rebuilt), and no acknowledged
 * write is lost: clients that retry a failed mutation with the same Idempotency-Key get one consistent answer.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Fixture, Operations, Settings, Store } from "@stint/core"
import { PgStore } from "@stint/postgres"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { randomUUID } from "node:crypto"
import { withAdmin } from "../../../testing/postgres.js"
import * as Proxy from "./proxy.js"
import { apiKey, as, databaseLayer, seedWorld, start, stop, TestDatabase } from "./support.js"

const WORKERS = 6
/** Traffic far above the spec's rate limit: these tests are about faults, not about 429s. */
const UNLIMITED = { ...Settings.defaults, rateLimit: { limit: 1_000_000, windowMillis: 60_000 } }
const OPTIONS = { connectTimeoutMillis: 1_000, statementTimeoutMillis: 1_500 }
/** connect + statement timeout, the client's grace second, and slack for a loaded machine. */
const LATENCY_BOUND_MILLIS = 6_000

interface Attempt {
  readonly code: string
  readonly millis: number
}

/** `WORKERS` users of one workspace, each with a key and the world's website project assigned. */
const workers = Effect.gen(function*() {
  const { ids } = yield* seedWorld()
  const people = Array.from({ length: WORKERS }, () => ({ userId: randomUUID(), key: apiKey("worker") }))
  yield* Fixture.load({
    users: people.map((p) => ({ id: p.userId, name: "W", email: "w@example.com" })),
    memberships: people.map((p) => ({ workspaceId: ids.workspace, userId: p.userId, role: "member" })),
    assignments: people.map((p) => ({ projectId: ids.website, userId: p.userId })),
    apiKeys: people.map((p) => ({ key: p.key, userId: p.userId, workspaceId: ids.workspace }))
  })
  return { ids, people }
})

/**
 * Traffic of one worker until `running()` turns false: start, read, stop, each mutation retried with its
 * Idempotency-Key after a 500 (as the spec tells clients to), for at most `retryFor` ms.
 */
const traffic = (
  key: string,
  projectId: string,
  running: () => boolean,
  log: { attempts: Array<Attempt>; started: Array<string>; stopped: Array<string> }
) => {
  const timed = <A, E extends { readonly code: string }>(effect: Effect.Effect<A, E, Store.Store>) =>
    Effect.gen(function*() {
      const began = Date.now()
      const result = yield* Effect.either(effect)
      log.attempts.push({ code: result._tag === "Right" ? "ok" : result.left.code, millis: Date.now() - began })
      return result
    })
  const retried = <A, E extends { readonly code: string }>(effect: Effect.Effect<A, E, Store.Store>) =>
    Effect.gen(function*() {
      const deadline = Date.now() + 15_000
      for (;;) {
        const result = yield* timed(effect)
        if (result._tag === "Right" || result.left.code !== "INTERNAL_ERROR" || Date.now() > deadline) return result
        yield* Effect.sleep("100 millis")
      }
    })
  return Effect.gen(function*() {
    for (let i = 0; running(); i++) {
      const started = yield* retried(Operations.startTimer(start(key, `start-${i}`, { projectId })))
      if (started._tag === "Left") continue
      const id = started.right.response.timer?.id ?? ""
      log.started.push(id)
      yield* timed(Operations.getActiveTimer(as(key)))
      const stopped = yield* retried(Operations.stopTimer(stop(key, `stop-${i}`, id)))
      if (stopped._tag === "Right") log.stopped.push(id)
    }
  })
}

const verify = (log: { attempts: ReadonlyArray<Attempt>; started: ReadonlyArray<string>; stopped: ReadonlyArray<string> }) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase
    const codes = new Set(log.attempts.map((a) => a.code))
    for (const code of codes) expect(["ok", "INTERNAL_ERROR"]).toContain(code)
    const slowest = Math.max(...log.attempts.map((a) => a.millis))
    expect(slowest).toBeLessThan(LATENCY_BOUND_MILLIS)
    const rows = yield* db.sql<{ id: string; status: string }>("SELECT id, status FROM time_entries WHERE id = ANY($1::uuid[])", [
      log.started
    ])
    const status = new Map(rows.map((row) => [row.id, row.status]))
    for (const id of log.started) expect(status.has(id)).toBe(true)
    for (const id of log.stopped) expect(status.get(id)).toBe("completed")
    return {
      attempts: log.attempts.length,
      failed: log.attempts.filter((a) => a.code === "INTERNAL_ERROR").length,
      slowest,
      started: log.started.length,
      stopped: log.stopped.length
    }
  })

/** After the fault: every worker starts and stops once more on the same store, without a single failure. */
const recovered = (people: ReadonlyArray<{ readonly key: string }>, projectId: string) =>
  Effect.forEach(people, (p) =>
    Effect.gen(function*() {
      const tag = randomUUID()
      const started = yield* Operations.startTimer(start(p.key, `after-${tag}`, { projectId }))
      yield* Operations.stopTimer(stop(p.key, `after-stop-${tag}`, started.response.timer?.id ?? ""))
    }), { concurrency: "unbounded" })

describe("faults", () => {
  layer(databaseLayer, { excludeTestServices: true })((it) => {
    it.scoped("terminated backends: fast 500s, no hang, recovery without a rebuild, no acknowledged write lost", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase
        const store = yield* PgStore.make({ url: db.url, ...OPTIONS })
        const { ids, people } = yield* Effect.provideService(workers, Store.Store, store)
        const log = { attempts: [] as Array<Attempt>, started: [] as Array<string>, stopped: [] as Array<string> }
        let going = true
        const load = yield* Effect.fork(Effect.forEach(people, (p) => traffic(p.key, ids.website, () => going, log), {
          concurrency: "unbounded"
        }).pipe(Effect.provideService(Store.Store, store), Effect.provideService(Settings.Settings, UNLIMITED)))
        yield* Effect.sleep("300 millis")
        let terminated = 0
        for (let round = 0; round < 12; round++) {
          terminated += yield* Effect.promise(() =>
            withAdmin((client) =>
              client.query<{ n: number }>(
                "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'stint'",
                [db.name]
              )
            ).then((result) => result.rows[0]?.n ?? 0)
          )
          yield* Effect.sleep("150 millis")
        }
        yield* Effect.sleep("1 second")
        going = false
        yield* Fiber.join(load)
        const figures = yield* verify(log)
        expect(terminated).toBeGreaterThan(0)
        expect(figures.failed).toBeGreaterThan(0)
        yield* recovered(people, ids.website).pipe(Effect.provideService(Store.Store, store), Effect.provideService(Settings.Settings, UNLIMITED))
        console.log(`terminated ${terminated} backends during traffic: ${JSON.stringify(figures)}`)
      }))

    it.scoped("an unreachable database (reset, then silent): fast 500s, no hang, recovery without a rebuild", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase
        const target = new URL(db.url)
        const proxy = yield* Effect.acquireRelease(
          Effect.promise(() => Proxy.start({ host: target.hostname, port: Number(target.port || 5432) })),
          (p) => Effect.promise(p.close)
        )
        const through = new URL(db.url)
        through.hostname = "127.0.0.1"
        through.port = String(proxy.port)
        const store = yield* PgStore.make({ url: through.toString(), ...OPTIONS })
        const { ids, people } = yield* Effect.provideService(workers, Store.Store, store)
        const log = { attempts: [] as Array<Attempt>, started: [] as Array<string>, stopped: [] as Array<string> }
        let going = true
        const load = yield* Effect.fork(Effect.forEach(people, (p) => traffic(p.key, ids.website, () => going, log), {
          concurrency: "unbounded"
        }).pipe(Effect.provideService(Store.Store, store), Effect.provideService(Settings.Settings, UNLIMITED)))
        yield* Effect.sleep("500 millis")
        const phases: Array<{ phase: string; failed: number; slowest: number }> = []
        const phase = (mode: Proxy.Mode, millis: number) =>
          Effect.gen(function*() {
            const from = log.attempts.length
            proxy.setMode(mode)
            yield* Effect.sleep(millis)
            const during = log.attempts.slice(from)
            phases.push({
              phase: mode,
              failed: during.filter((a) => a.code !== "ok").length,
              slowest: Math.max(0, ...during.map((a) => a.millis))
            })
          })
        yield* phase("refuse", 2_000)
        yield* phase("pass", 2_000)
        // Silent while connections are established: statements time out, not only connection attempts.
        yield* phase("silent", 4_000)
        yield* phase("pass", 3_000)
        going = false
        yield* Fiber.join(load)
        const figures = yield* verify(log)
        // Both outages were felt, and each request during them failed fast rather than hanging.
        expect(phases[0]?.failed).toBeGreaterThan(0)
        expect(phases[2]?.failed).toBeGreaterThan(0)
        yield* recovered(people, ids.website).pipe(Effect.provideService(Store.Store, store), Effect.provideService(Settings.Settings, UNLIMITED))
        console.log(`database unreachable during traffic: ${JSON.stringify({ ...figures, phases })}`)
      }))
  })
})
