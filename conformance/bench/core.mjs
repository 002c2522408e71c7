#!/usr/bin/env node
/**
 * The core alone, for embedders: the public operations through `@stint/core` (no HTTP) on the memory store and on
 * SQLite, one at a time, printing operations per second and the core's own cost per operation over the store's (the
 * time spent outside the store's methods, measured by timing every store call; inside a timer transaction the body,
 * which is the core's, counts as the core's). Target: the core adds at most 50 µs per operation.
 *
 * Usage (after `npm run build`):
 *   node conformance/bench/core.mjs [--ops 3000] [--warmup 500] [--users 64] [--stores memory,sqlite] [--json FILE]
 * As a function (`npm run bench` calls it):
 *   import { run } from "./conformance/bench/core.mjs"
 *   const rows = await run({ ops: 3000, stores: ["memory", "sqlite"] })  // [{ store, operation, opsPerSecond, totalMicros, storeMicros, coreMicros }]
 *
 * Not part of `npm test`.
 */
import { Fixture, Operations, Request, Settings, Store } from "@stint/core"
import { NodeHashing } from "@stint/http"
import { SqliteStore } from "@stint/sqlite"
import { MemoryStore } from "@stint/core"
import { Effect, Layer, ManagedRuntime } from "effect"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const keyOf = (i) => `stint_corebench${String(i).padStart(6, "0")}${"k".repeat(30)}`

/** One workspace, `users` members each with a key, one client and one project everyone is assigned to. */
const fixture = (users) => {
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
      apiKeys: people.map((u, i) => ({ key: keyOf(i), userId: u.id, workspaceId }))
    }
  }
}

/** The store with every method timed: `spent.micros` grows by the time spent inside the store. */
const timed = (store, spent) => {
  const time = (effect) =>
    Effect.suspend(() => {
      const t0 = performance.now()
      return Effect.ensuring(effect, Effect.sync(() => void (spent.micros += (performance.now() - t0) * 1000)))
    })
  const wrapped = {}
  for (const [name, value] of Object.entries(store)) {
    if (name === "withTimerTransaction") {
      wrapped[name] = (scope, body) =>
        time(value(scope, (tx) => {
          // The body is the core's: take its time back out of the store's.
          const t0 = performance.now()
          return Effect.ensuring(
            body({ read: (q) => time(tx.read(q)), write: (c) => time(tx.write(c)) }),
            Effect.sync(() => void (spent.micros -= (performance.now() - t0) * 1000))
          )
        }))
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

const operations = (projectId) => {
  const auth = (i) => `Bearer ${keyOf(i)}`
  return {
    getActiveTimer: (i) => Operations.getActiveTimer({ authorization: auth(i) }),
    startTimer: (i) =>
      Operations.startTimer({ authorization: auth(i), idempotencyKey: randomUUID(), body: Request.json({ projectId }) }),
    "start, then stop": (i) =>
      Effect.flatMap(
        Operations.startTimer({ authorization: auth(i), idempotencyKey: randomUUID(), body: Request.json({ projectId }) }),
        (started) =>
          Operations.stopTimer({
            authorization: auth(i),
            idempotencyKey: randomUUID(),
            path: { timerId: started.response.timer.id }
          })
      ),
    listTimeEntries: (i) => Operations.listTimeEntries({ authorization: auth(i) })
  }
}

/**
 * Runs the benchmark and returns one row per store and operation (times in µs per operation; "start, then stop"
 * counts as one operation made of two requests).
 */
export const run = async (options = {}) => {
  const ops = options.ops ?? 3000
  const warmup = options.warmup ?? 500
  const users = options.users ?? 64
  const stores = options.stores ?? ["memory", "sqlite"]
  const dir = mkdtempSync(join(tmpdir(), "stint-core-bench-"))
  const rows = []
  try {
    for (const kind of stores) {
      const spent = { micros: 0 }
      const storeLayer = kind === "memory"
        ? MemoryStore.layerMemory
        : SqliteStore.layer({ filename: join(dir, "core.db"), synchronous: options.synchronous ?? "FULL" })
      const timedLayer = Layer.effect(Store.Store, Effect.map(Store.Store, (store) => timed(store, spent))).pipe(
        Layer.provide(storeLayer)
      )
      const runtime = ManagedRuntime.make(Layer.mergeAll(
        timedLayer,
        Layer.succeed(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 1_000_000_000, windowMillis: 60_000 } }),
        NodeHashing.layer
      ))
      try {
        const { file, projectId } = fixture(users)
        await runtime.runPromise(Fixture.load(file).pipe(Effect.provide(Layer.succeed(Settings.Settings, Settings.defaults))))
        for (const [operation, request] of Object.entries(operations(projectId))) {
          const loop = (n) =>
            Effect.gen(function*() {
              for (let i = 0; i < n; i++) yield* request(i % users)
            })
          await runtime.runPromise(loop(warmup))
          spent.micros = 0
          const t0 = performance.now()
          await runtime.runPromise(loop(ops))
          const totalMicros = (performance.now() - t0) * 1000 / ops
          const storeMicros = spent.micros / ops
          rows.push({
            store: kind,
            operation,
            opsPerSecond: Math.round(1e6 / totalMicros),
            totalMicros: Math.round(totalMicros),
            storeMicros: Math.round(storeMicros),
            coreMicros: Math.round(totalMicros - storeMicros)
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
    "store   operation          ops/s   µs/op  store µs  core µs",
    ...rows.map((r) =>
      `${r.store.padEnd(7)} ${r.operation.padEnd(17)} ${String(r.opsPerSecond).padStart(6)} ${String(r.totalMicros).padStart(7)} ${
        String(r.storeMicros).padStart(9)
      } ${String(r.coreMicros).padStart(8)}`
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
    users: Number(option("users", "64")),
    stores: option("stores", "memory,sqlite").split(","),
    synchronous: option("synchronous", "FULL")
  })
  console.log(format(rows))
  const json = option("json", undefined)
  if (json !== undefined) writeFileSync(json, JSON.stringify(rows, null, 2))
}
