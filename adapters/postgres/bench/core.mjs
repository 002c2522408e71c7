#!/usr/bin/env node
/**
 * The storage adapters alone, without HTTP: startTimer, then getActiveTimer, through the core's operations with N
 * concurrent fibers and many API keys, on SQLite and on PostgreSQL (one store, or three stores with their own pools
 * sharing the database, requests spread round-robin). Prints operations per second and latency percentiles.
 *
 * Usage (after `npx tsc -b`):
 *   node adapters/postgres/bench/core.mjs [--server postgres://postgres@127.0.0.1:5432/postgres]
 *        [--concurrency 32] [--requests 3000] [--keys 3000] [--targets sqlite,pg,pg3]
 *
 * Not part of `npm test`.
 */
import { Fixture, Operations, Request, Settings, Store } from "@stint/core"
import { PgStore } from "@stint/postgres"
import { SqliteStore } from "@stint/sqlite"
import { Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback
}
const server = option("server", process.env.STINT_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres")
const concurrency = Number(option("concurrency", "32"))
const requests = Number(option("requests", "3000"))
const keyCount = Number(option("keys", "3000"))
const targets = option("targets", "sqlite,pg,pg3").split(",")
const dir = mkdtempSync(join(tmpdir(), "stint-core-bench-"))

const key = (i) => `stint_bench${String(i).padStart(8, "0")}${"x".repeat(30)}`
const fixture = () => {
  const workspaceId = randomUUID(), clientId = randomUUID(), projectId = randomUUID()
  const users = Array.from({ length: keyCount }, (_, i) => ({ id: randomUUID(), name: `U${i}`, email: `u${i}@example.com` }))
  return {
    projectId,
    file: {
      workspaces: [{ id: workspaceId, name: "Bench" }],
      users,
      memberships: users.map((u) => ({ workspaceId, userId: u.id, role: "member" })),
      clients: [{ id: clientId, workspaceId, name: "Client" }],
      projects: [{ id: projectId, clientId, name: "Project" }],
      assignments: users.map((u) => ({ projectId, userId: u.id })),
      apiKeys: users.map((u, i) => ({ key: key(i), userId: u.id, workspaceId }))
    }
  }
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

const phase = (label, stores, request) =>
  Effect.gen(function*() {
    const latencies = []
    const began = performance.now()
    yield* Effect.forEach(Array.from({ length: requests }, (_, i) => i), (i) =>
      Effect.gen(function*() {
        const t0 = performance.now()
        yield* request(i).pipe(Effect.provideService(Store.Store, stores[i % stores.length]))
        latencies.push(performance.now() - t0)
      }), { concurrency, discard: true })
    const elapsed = (performance.now() - began) / 1000
    latencies.sort((a, b) => a - b)
    const ms = (v) => `${v.toFixed(1)} ms`
    console.log(
      `  ${label.padEnd(15)} ${requests} ops: ${(requests / elapsed).toFixed(0).padStart(5)} ops/s, ` +
        `p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1])}`
    )
  })

const settings = { ...Settings.defaults, rateLimit: { limit: 1_000_000, windowMillis: 60_000 } }

const run = (target) =>
  Effect.gen(function*() {
    const { file, projectId } = fixture()
    let stores
    if (target === "sqlite") {
      stores = [Context.get(yield* Layer.build(SqliteStore.layer({ filename: join(dir, "bench.db") })), Store.Store)]
    } else {
      const name = `stint_bench_${randomUUID().replace(/-/g, "").slice(0, 16)}`
      const admin = new pg.Client({ connectionString: server })
      yield* Effect.promise(() => admin.connect().then(() => admin.query(`CREATE DATABASE ${name}`)))
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => admin.query(`DROP DATABASE ${name} WITH (FORCE)`).then(() => admin.end())))
      const url = new URL(server)
      url.pathname = `/${name}`
      stores = yield* Effect.all(Array.from({ length: target === "pg3" ? 3 : 1 }, () => PgStore.make({ url: url.toString() })))
    }
    yield* Fixture.load(file).pipe(Effect.provideService(Store.Store, stores[0]))
    console.log(
      `${target === "sqlite" ? "SQLite" : `PostgreSQL, ${stores.length} store${stores.length > 1 ? "s" : ""}`}` +
        ` (${concurrency} concurrent, ${keyCount} keys)`
    )
    yield* phase("startTimer", stores, (i) =>
      Operations.startTimer({ authorization: `Bearer ${key(i % keyCount)}`, idempotencyKey: randomUUID(), body: Request.json({ projectId }) }))
    yield* phase("getActiveTimer", stores, (i) => Operations.getActiveTimer({ authorization: `Bearer ${key(i % keyCount)}` }))
  }).pipe(Effect.scoped, Effect.provideService(Settings.Settings, settings))

Effect.runPromise(Effect.forEach(targets, run, { discard: true })).finally(() => rmSync(dir, { recursive: true, force: true }))
