#!/usr/bin/env node
/**
 * The core alone, for embedders: the public operations through `@stint/core` (no HTTP) on the memory store and on
 * SQLite, one at a time, printing operations per second and the core's own cost per operation over the store's (the
 * time spent outside the store's methods, measured by timing every store call; inside a timer transaction, and inside
 * the step that authenticates and opens it, the body, which is the core's, counts as the core's; the timing's own
 * cost is counted as the core's and printed beside it). Each operation runs `rounds` batches of `ops` requests after a
 * warm-up; its row is the batch with the median core time. A stop's timer is started before it, outside the timing;
 * the list reads the entries the operations before it made. Target: the core adds at most 50 µs per operation.
 *
 * SQLite runs at `synchronous=NORMAL` (as `npm run bench` serves it) and at `FULL` (Stint's default), each on a file of
 * its own. At `FULL` every commit waits for an fsync, and the process's code right after such a wait runs up to twice
 * as slowly (cold caches; the memory store, made to sleep 0.3 ms in each authentication, shows the same): the core's
 * µs of the `FULL` rows hold that wake-up, which no code of the core's can avoid.
 *
 * Usage (after `npm run build`):
 *   node conformance/bench/core.mjs [--ops 3000] [--rounds 3] [--warmup 500] [--users 64] [--keys-per-user 64]
 *     [--stores memory,sqlite] [--synchronous NORMAL,FULL]
 *     [--operations getActiveTimer,startTimer,stopTimer,listTimeEntries] [--json FILE]
 * As a function (`npm run bench` calls it):
 *   import { run } from "./conformance/bench/core.mjs"
 *   const rows = await run({ ops: 3000, stores: ["memory", "sqlite"] })  // [{ store, operation, opsPerSecond, totalMicros, storeMicros, coreMicros, storeCalls, timingMicros }]
 *
 * Not part of `npm test`.
 */
import { FiberRoots, Fixture, Operations, Request, Settings, Store } from "@stint/core"
import { NodeHashing } from "@stint/http"
import { SqliteStore } from "@stint/sqlite"
import { MemoryStore } from "@stint/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const keyOf = (user, key) => `stint_corebench${String(user).padStart(4, "0")}${String(key).padStart(4, "0")}${"k".repeat(30)}`

/**
 * One workspace, `users` members each with `keysPerUser` keys, one client and one project everyone is assigned to.
 */
const fixture = (users, keysPerUser) => {
  const workspaceId = randomUUID(), clientId = randomUUID(), projectId = randomUUID()
  const people = Array.from({ length: users }, (_, i) => ({ id: randomUUID(), name: `U${i}`, email: `u${i}@example.com` }))
  return {
    projectId,
    file: {
      workspaces: [{ id: workspaceId, name: "Core bench" }],
      users: people,
      memberships: people.map((u) => ({ workspaceId, userId: u.id, role: "member" })),
      clients: [{ id: clientId, workspaceId, name: "Client" }],
      projects: [{ id: projectId, clientId, name: "Project" }],
      assignments: people.map((u) => ({ projectId, userId: u.id })),
      apiKeys: people.flatMap((u, i) =>
        Array.from({ length: keysPerUser }, (_, k) => ({ key: keyOf(i, k), userId: u.id, workspaceId }))
      )
    }
  }
}

/**
 * The store with every method timed: `spent.micros` grows by the time spent inside the store. A method that runs a
 * body of the core's (`withTimerTransaction`, `authenticateInTimerTransaction`) gives the body's time back, and its
 * `tx` is timed in turn. The timing itself is kept cheap (two clock reads and one `matchCauseEffect` a call, no
 * finalizer): whatever it costs outside the store's own code is counted as the core's, and `timingMicros` in the
 * rows says how much that is, measured around a store call that does nothing.
 */
const timed = (store, spent) => {
  // Adds the time `effect` takes to `spent.micros` times `sign`: +1 around a store call, -1 around a body of the core's.
  const span = (sign) => (effect) =>
    Effect.suspend(() => {
      if (sign > 0) spent.calls++
      const t0 = performance.now()
      const stop = () => void (spent.micros += sign * (performance.now() - t0) * 1000)
      return Effect.matchCauseEffect(effect, {
        onFailure: (cause) => (stop(), Effect.failCause(cause)),
        onSuccess: (value) => (stop(), Effect.succeed(value))
      })
    })
  const time = span(1)
  // The body is the core's: take its time back out of the store's.
  const untimed = span(-1)
  const timedTx = (tx) => ({ read: (q) => time(tx.read(q)), write: (c) => time(tx.write(c)) })
  const wrapped = {}
  for (const [name, value] of Object.entries(store)) {
    if (name === "withTimerTransaction") {
      wrapped[name] = (scope, body) => time(value(scope, (tx) => untimed(body(timedTx(tx)))))
    } else if (name === "authenticateInTimerTransaction" && value !== undefined) {
      wrapped[name] = (authentication, expected, body) =>
        time(value(authentication, expected, (found, tx) => untimed(body(found, timedTx(tx)))))
    } else if (typeof value === "function") {
      wrapped[name] = (...args) => time(value(...args))
    } else if (Effect.isEffect(value)) {
      wrapped[name] = time(value)
    } else {
      wrapped[name] = value
    }
  }
  return wrapped
}

/** What the timing costs around one store call, in µs, outside the timed span (median of 5 rounds). */
const wrapperCost = async (calls = 100_000) => {
  const spent = { micros: 0, calls: 0 }
  const { nothing } = timed({ nothing: () => Effect.void }, spent)
  const plain = () => Effect.void
  const loop = (call) =>
    Effect.sync(() => performance.now()).pipe(
      Effect.flatMap((t0) =>
        Effect.gen(function*() {
          for (let i = 0; i < calls; i++) yield* call()
          return (performance.now() - t0) * 1000 / calls
        })
      )
    )
  const rounds = []
  for (let round = 0; round < 5; round++) {
    spent.micros = 0
    const withTiming = await Effect.runPromise(loop(nothing))
    const inside = spent.micros / calls
    const without = await Effect.runPromise(loop(plain))
    rounds.push(withTiming - inside - without)
  }
  rounds.sort((a, b) => a - b)
  return Math.max(0, rounds[2])
}

/**
 * Each operation as `request(i, prepared)` for the `i`th request, with an optional untimed `prepare(i)` whose result it
 * takes: a stop needs a timer to stop, started just before it and not counted. Requests rotate over the users, and
 * over each user's keys from one round of users to the next (as `../shared/bench` does): every key's rate-limit window
 * then holds what a key sees at a few thousand requests per second, not every request of its user.
 */
const operations = (projectId, users = 1, keysPerUser = 1) => {
  const auth = (i) => `Bearer ${keyOf(i % users, Math.floor(i / users) % keysPerUser)}`
  const start = (i) =>
    Operations.startTimer({ authorization: auth(i), idempotencyKey: randomUUID(), body: Request.json({ projectId }) })
  return {
    getActiveTimer: { request: (i) => Operations.getActiveTimer({ authorization: auth(i) }) },
    startTimer: { request: start },
    stopTimer: {
      prepare: (i) => Effect.map(start(i), (started) => started.response.timer.id),
      request: (i, timerId) =>
        Operations.stopTimer({ authorization: auth(i), idempotencyKey: randomUUID(), path: { timerId } })
    },
    listTimeEntries: { request: (i) => Operations.listTimeEntries({ authorization: auth(i) }) }
  }
}

/** Runs the benchmark and returns one row per store and operation (times in µs per operation). */
export const run = async (options = {}) => {
  const ops = options.ops ?? 3000
  const warmup = options.warmup ?? 500
  const rounds = options.rounds ?? 3
  const users = options.users ?? 64
  const keysPerUser = options.keysPerUser ?? 64
  const stores = options.stores ?? ["memory", "sqlite"]
  const synchronous = typeof options.synchronous === "string"
    ? [options.synchronous]
    : options.synchronous ?? ["NORMAL", "FULL"]
  const unknownStores = stores.filter((kind) => kind !== "memory" && kind !== "sqlite")
  if (unknownStores.length > 0) throw new Error(`unknown stores: ${unknownStores.join(", ")}`)
  // One run per store, and on SQLite one per `synchronous` mode, each on a file of its own.
  const runs = stores.flatMap((kind) =>
    kind === "sqlite" ? synchronous.map((mode) => ({ kind, mode, label: `sqlite ${mode}` })) : [{ kind, label: kind }]
  )
  if (options.operations !== undefined) {
    const unknown = options.operations.filter((name) => !(name in operations("")))
    if (unknown.length > 0) throw new Error(`unknown operations: ${unknown.join(", ")}`)
  }
  // Every operation is a root fiber, as in a server: kept in a list, as `@stint/http` does (see FiberRoots).
  FiberRoots.install()
  const perCall = await wrapperCost()
  const dir = mkdtempSync(join(tmpdir(), "stint-core-bench-"))
  const rows = []
  try {
    for (const { kind, label, mode } of runs) {
      const spent = { micros: 0, calls: 0 }
      const storeLayer = kind === "memory"
        ? MemoryStore.layerMemory
        : SqliteStore.layer({ filename: join(dir, `core-${mode}.db`), synchronous: mode })
      const timedLayer = Layer.effect(Store.Store, Effect.map(Store.Store, (store) => timed(store, spent))).pipe(
        Layer.provide(storeLayer)
      )
      const runtime = ManagedRuntime.make(Layer.mergeAll(
        timedLayer,
        Layer.succeed(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 1_000_000_000, windowMillis: 60_000 } }),
        NodeHashing.layer
      ))
      try {
        const { file, projectId } = fixture(users, keysPerUser)
        await runtime.runPromise(Fixture.load(file).pipe(Effect.provide(Layer.succeed(Settings.Settings, Settings.defaults))))
        const chosen = Object.entries(operations(projectId, users, keysPerUser))
          .filter(([name]) => options.operations === undefined || options.operations.includes(name))
        for (const [operation, { prepare, request }] of chosen) {
          // Wall-clock and store time of the requests alone (not of their preparation).
          const timing = { micros: 0, storeMicros: 0, calls: 0 }
          const loop = (n) =>
            Effect.gen(function*() {
              for (let i = 0; i < n; i++) {
                const prepared = prepare === undefined ? undefined : yield* prepare(i)
                const store0 = spent.micros
                const calls0 = spent.calls
                const t0 = performance.now()
                yield* request(i, prepared)
                timing.micros += (performance.now() - t0) * 1000
                timing.storeMicros += spent.micros - store0
                timing.calls += spent.calls - calls0
              }
            })
          await runtime.runPromise(loop(warmup))
          // Several batches, and the one with the median core time: one batch can catch a pause of the machine.
          const batches = []
          for (let round = 0; round < rounds; round++) {
            timing.micros = 0
            timing.storeMicros = 0
            timing.calls = 0
            await runtime.runPromise(loop(ops))
            batches.push({ totalMicros: timing.micros / ops, storeMicros: timing.storeMicros / ops, calls: timing.calls / ops })
          }
          batches.sort((a, b) => (a.totalMicros - a.storeMicros) - (b.totalMicros - b.storeMicros))
          const { calls, storeMicros, totalMicros } = batches[Math.floor(batches.length / 2)]
          rows.push({
            store: label,
            operation,
            opsPerSecond: Math.round(1e6 / totalMicros),
            totalMicros: Math.round(totalMicros),
            storeMicros: Math.round(storeMicros),
            coreMicros: Math.round(totalMicros - storeMicros),
            storeCalls: Math.round(calls * 10) / 10,
            timingMicros: Math.round(calls * perCall * 10) / 10
          })
        }
      } finally {
        await runtime.dispose()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}

/** The rows as a table. */
export const format = (rows) =>
  [
    "store         operation          ops/s   µs/op  store µs  core µs  (timing µs in core: store calls × cost)",
    ...rows.map((r) =>
      `${r.store.padEnd(13)} ${r.operation.padEnd(17)} ${String(r.opsPerSecond).padStart(6)} ${String(r.totalMicros).padStart(7)} ${
        String(r.storeMicros).padStart(9)
      } ${String(r.coreMicros).padStart(8)}  ${String(r.timingMicros).padStart(5)} (${r.storeCalls} × ${
        (r.storeCalls === 0 ? 0 : r.timingMicros / r.storeCalls).toFixed(2)
      })`
    )
  ].join("\n")

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name, fallback) => {
    const at = process.argv.indexOf(`--${name}`)
    return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback
  }
  const rows = await run({
    ops: Number(option("ops", "3000")),
    warmup: Number(option("warmup", "500")),
    rounds: Number(option("rounds", "3")),
    users: Number(option("users", "64")),
    keysPerUser: Number(option("keys-per-user", "64")),
    stores: option("stores", "memory,sqlite").split(","),
    operations: option("operations", undefined)?.split(","),
    synchronous: option("synchronous", "NORMAL,FULL").split(",")
  })
  console.log(format(rows))
  const json = option("json", undefined)
  if (json !== undefined) writeFileSync(json, JSON.stringify(rows, null, 2))
}
