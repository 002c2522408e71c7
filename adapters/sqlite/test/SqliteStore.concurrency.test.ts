/**
 * Concurrency: many fibers of one process, and two OS processes on one file, must keep every promise (one active
 * entry per user and workspace, one execution per idempotency key, one rate-limit window per key). The second process
 * runs `child/worker.mjs` on the built packages.
 */
import { describe, expect, it } from "@effect/vitest"
import { Fixture, Operations, Store } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import * as Effect from "effect/Effect"
import { execFileSync, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { beforeAll } from "vitest"
import { as, backdoor, fixture, freshLayer, ids, keys, seed, start, stop, tempFile } from "./support.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const worker = fileURLToPath(new URL("./child/worker.mjs", import.meta.url))

beforeAll(() => {
  // The worker imports the packages from dist/: build them (a no-op when they are up to date).
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-b", "adapters/sqlite/tsconfig.src.json"], {
    cwd: root,
    stdio: "inherit"
  })
})

interface Answer {
  readonly key: string
  readonly ok: boolean
  readonly replayed?: boolean
  readonly json?: string
  readonly error?: string
}

/**
 * Runs workers to completion and parses each one's last JSON line. Workers are started with `barrier`: each prints
 * "ready" once its store is open, and all of them are told "go" together once every one is ready.
 */
const runWorkers = <A>(options: ReadonlyArray<Record<string, unknown>>): Promise<Array<A>> => {
  let waiting = options.length
  const children = options.map((o) => spawn(process.execPath, [worker, JSON.stringify({ ...o, barrier: true })], { cwd: root }))
  return Promise.all(children.map((child) =>
    new Promise<A>((resolve, reject) => {
      let out = ""
      let err = ""
      let ready = false
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        if (!ready && out.includes("ready\n")) {
          ready = true
          waiting -= 1
          if (waiting === 0) for (const each of children) each.stdin.end("go\n")
        }
      })
      child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()))
      child.on("error", reject)
      child.on("close", (code) => {
        if (code === 0) resolve(JSON.parse(out.trim().split("\n").pop() ?? "null") as A)
        else {
          for (const each of children) each.kill()
          reject(new Error(`worker exited with ${code}: ${err}`))
        }
      })
    })
  ))
}

/** Starts a worker that holds the file's write lock for `millis`; resolves once it holds it, with its end. */
const holdLock = (filename: string, millis: number): Promise<{ readonly released: Promise<void> }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, JSON.stringify({ mode: "hold", filename, millis })], { cwd: root })
    const released = new Promise<void>((done) => child.on("close", () => done()))
    child.stdout.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("locked")) resolve({ released })
    })
    child.on("error", reject)
  })

const workers = <A>(options: ReadonlyArray<Record<string, unknown>>) => Effect.promise(() => runWorkers<A>(options))

/** Every promise of the timer transaction, checked on the file itself after a burst of requests. */
const checkTimers = (filename: string, answers: ReadonlyArray<Answer>) => {
  const byKey = new Map<string, Array<Answer>>()
  for (const answer of answers) byKey.set(answer.key, [...(byKey.get(answer.key) ?? []), answer])
  const succeeded = [...byKey.entries()].filter(([, list]) => list.some((a) => a.ok))
  // Each key executed once: one fresh answer, the others replay it byte for byte.
  for (const [, list] of succeeded) {
    const ok = list.filter((a) => a.ok)
    expect(ok.filter((a) => a.replayed === false)).toHaveLength(1)
    expect(new Set(ok.map((a) => a.json)).size).toBe(1)
  }
  const startKeys = [...byKey.keys()].filter((key) => !key.includes("stop"))
  const stored = backdoor(filename, (db) => ({
    entries: db.prepare("SELECT count(*) AS n FROM time_entries").get() as { n: number },
    active: db.prepare("SELECT count(*) AS n FROM time_entries WHERE status = 'active'").get() as { n: number },
    records: db.prepare("SELECT count(*) AS n FROM idempotency_records").get() as { n: number },
    intervals: db.prepare(
      "SELECT started_at AS s, coalesce(ended_at, 9e15) AS e FROM time_entries ORDER BY started_at, e"
    ).all() as Array<{ s: number; e: number }>
  }))
  expect(stored.entries.n).toBe(startKeys.length)
  expect(stored.active.n).toBeLessThanOrEqual(1)
  expect(stored.records.n).toBe(succeeded.length)
  // One timer at a time: no two entries of the user overlap.
  for (let i = 1; i < stored.intervals.length; i++) {
    const [previous, next] = [stored.intervals[i - 1], stored.intervals[i]]
    expect(previous !== undefined && next !== undefined && previous.e <= next.s).toBe(true)
  }
  return stored
}

describe("SqliteStore under concurrency", () => {
  it.effect("many fibers starting and stopping for one user: one active entry, each key executed once", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      const starts = yield* Effect.forEach(Array.from({ length: 60 }, (_, i) => i), (i) => {
        const key = `k${i % 20}`
        return Effect.map(
          Effect.either(Operations.startTimer(start(keys.owner, key, { projectId: i % 2 ? ids.website : ids.vaccine }))),
          (result): Answer =>
            result._tag === "Right"
              ? { key, ok: true, replayed: result.right.replayed, json: result.right.json }
              : { key, ok: false, error: result.left._tag }
        )
      }, { concurrency: "unbounded" })
      // Each key is sent three times with the same body.
      expect(starts.every((a) => a.ok)).toBe(true)
      const timerIds = [...new Set(starts.flatMap((a) => a.json === undefined ? [] : [JSON.parse(a.json).timer.id as string]))]
      const stops = yield* Effect.forEach([...timerIds, ...timerIds], (timerId, i) => {
        const key = `stop-${timerId}`
        return Effect.map(
          Effect.either(Operations.stopTimer(stop(keys.owner, key, timerId))),
          (result): Answer =>
            result._tag === "Right"
              ? { key, ok: true, replayed: result.right.replayed, json: result.right.json }
              : { key: `${key}-${i}`, ok: false, error: result.left._tag }
        )
      }, { concurrency: "unbounded" })
      // Only the one running timer could be stopped (twice: once executed, once replayed).
      expect(stops.filter((a) => a.ok)).toHaveLength(2)
      expect(stops.filter((a) => !a.ok).every((a) => a.error === "TimerAlreadyStopped")).toBe(true)
      const stored = checkTimers(filename, [...starts, ...stops.filter((a) => a.ok)])
      expect(stored.entries.n).toBe(20)
      expect(stored.active.n).toBe(0)
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })

  it.live("two processes hammering starts for one user: one active entry, each key executed once", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* Fixture.load(fixture).pipe(Effect.provide(freshLayer(filename)))
      const common = {
        mode: "start",
        filename,
        key: keys.owner,
        projectId: ids.website,
        count: 90,
        concurrency: 4,
        pauseMillis: 20
      }
      const [a, b] = yield* workers<{ results: Array<Answer>; began: number; ended: number }>([
        { ...common, prefix: "a" },
        { ...common, prefix: "b" }
      ])
      const answers = [...(a?.results ?? []), ...(b?.results ?? [])]
      expect(answers.filter((x) => !x.key.includes("stop")).every((x) => x.ok)).toBe(true)
      expect(answers.filter((x) => !x.ok).every((x) => x.error === "TimerAlreadyStopped")).toBe(true)
      // The keys both processes sent were executed by one of them and replayed by the other.
      const shared = answers.filter((x) => x.key.startsWith("shared-"))
      expect(shared).toHaveLength(60)
      expect(shared.filter((x) => x.replayed === true)).toHaveLength(30)
      const stored = checkTimers(filename, answers)
      expect(stored.entries.n).toBe(150)
      // The two bursts really overlapped in time, so their transactions contended for the file's one write lock.
      // (Commit order is not asserted: under load SQLite's busy handler may let one process commit a long run.)
      expect(a!.began).toBeLessThan(b!.ended)
      expect(b!.began).toBeLessThan(a!.ended)
    })
  })

  it.live("two processes share one rate-limit window per key", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* Fixture.load(fixture).pipe(Effect.provide(freshLayer(filename)))
      const common = { mode: "rate", filename, key: keys.owner, count: 40, concurrency: 4, limit: 50 }
      const results = yield* workers<{ accepted: number; refused: number }>([common, common])
      expect(results.reduce((sum, r) => sum + r.accepted, 0)).toBe(50)
      expect(results.reduce((sum, r) => sum + r.refused, 0)).toBe(30)
      expect(backdoor(filename, (db) => db.prepare("SELECT length(accepted_at) / 8 AS n FROM rate_limit_windows_packed").get()))
        .toEqual({ n: 50 })
    })
  })

  it.live("two processes opening a fresh file migrate it once and share its cursor secret", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      const [a, b] = yield* workers<{ secret: string }>([{ mode: "open", filename }, { mode: "open", filename }])
      expect(a?.secret).toMatch(/^[0-9a-f]{64}$/)
      expect(b?.secret).toBe(a?.secret)
        expect(backdoor(filename, (db) => db.prepare("SELECT migration_id AS id FROM stint_migrations").all())).toEqual([
        { id: 1 },
        { id: 2 },
        { id: 3 },
        { id: 4 }
      ])
    })
  })

  it.effect("waits up to the busy timeout for another process's write lock, then fails with a StoreError", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      const holder = yield* Effect.promise(() => holdLock(filename, 1500))
      // Readers are never blocked by a writer...
      const store = yield* Store.Store
      yield* store.ping
      expect(yield* store.listEntries({ workspaceId: ids.workspace, userId: ids.owner }, {
        projectId: null,
        after: null,
        limit: 5
      })).toEqual([])
      // ...but every authenticated request counts against the rate limit, a write.
      expect((yield* Effect.flip(Operations.getActiveTimer(as(keys.owner)))).code).toBe("INTERNAL_ERROR")
      const blocked = yield* Effect.flip(Operations.startTimer(start(keys.owner, "busy", { projectId: ids.website })))
      expect(blocked.code).toBe("INTERNAL_ERROR")
      yield* Effect.promise(() => holder.released)
      const started = yield* Operations.startTimer(start(keys.owner, "busy", { projectId: ids.website }))
      expect(started.replayed).toBe(false)
    }).pipe(Effect.provide(SqliteStore.layer({ filename, busyTimeoutMillis: 100 })))
  })

  it.effect("with the default busy timeout, a write waits for the other process and succeeds", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      yield* Effect.promise(() => holdLock(filename, 400))
      const started = yield* Operations.startTimer(start(keys.owner, "wait", { projectId: ids.website }))
      expect(started.replayed).toBe(false)
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })
})
