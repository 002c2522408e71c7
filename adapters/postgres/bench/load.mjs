#!/usr/bin/env node
/**
 * A load run of `stint serve`: startTimer, then getActiveTimer, with N concurrent keep-alive clients and many API keys
 * (one per user, used in turn, so the default rate limit is in force but never reached), on SQLite (one process),
 * on PostgreSQL with one process, and on PostgreSQL with three processes sharing the database (requests spread
 * round-robin). Prints requests per second and latency percentiles per phase.
 *
 * Usage (after `npx tsc -b`, which builds the dist/ folders):
 *   node adapters/postgres/bench/load.mjs [--server postgres://postgres@127.0.0.1:5432/postgres]
 *        [--concurrency 32] [--duration 10] [--keys 3000] [--targets sqlite,pg,pg3]
 * A database named stint_bench_<random> is created on the server for each PostgreSQL target and dropped afterwards.
 *
 * Not part of `npm test`.
 */
import { execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback
}
const server = option("server", process.env.STINT_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres")
const concurrency = Number(option("concurrency", "32"))
const seconds = Number(option("duration", "10"))
const keyCount = Number(option("keys", "3000"))
const targets = option("targets", "sqlite,pg,pg3").split(",")

const bin = fileURLToPath(new URL("../../http/dist/bin.js", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "stint-pg-bench-"))

const fixture = () => {
  const workspaceId = randomUUID(), clientId = randomUUID(), projectId = randomUUID()
  const users = Array.from({ length: keyCount }, (_, i) => ({ id: randomUUID(), name: `User ${i}`, email: `u${i}@example.com` }))
  return {
    projectId,
    file: {
      workspaces: [{ id: workspaceId, name: "Bench" }],
      users,
      memberships: users.map((u) => ({ workspaceId, userId: u.id, role: "member", payRateCents: 6000 })),
      clients: [{ id: clientId, workspaceId, name: "Client" }],
      projects: [{ id: projectId, clientId, name: "Project" }],
      assignments: users.map((u) => ({ projectId, userId: u.id })),
      apiKeys: users.map((u) => ({ userId: u.id, workspaceId }))
    }
  }
}

const withServer = async (f) => {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

const serve = (database) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--database", database], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.setEncoding("utf8")
    const onData = (chunk) => {
      out += chunk
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      if (url !== undefined) {
        // Keep draining the request log so a full pipe never slows the server down.
        child.stdout.off("data", onData)
        child.stdout.on("data", () => {})
        resolve({ url, child })
      }
    }
    child.stdout.on("data", onData)
    child.on("exit", (code) => reject(new Error(`stint serve exited (${code})`)))
  })

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

const phase = async (label, bases, keys, request) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  const latencies = []
  const statuses = {}
  const deadline = performance.now() + seconds * 1000
  let next = 0
  const one = (base, { path, method, headers }, body) =>
    new Promise((resolve, reject) => {
      const req = http.request(`${base}${path}`, { method, headers, agent }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode))
      })
      req.on("error", reject)
      req.end(body)
    })
  const began = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const n = next++
      const { options, body } = request(keys[n % keys.length], n)
      const t0 = performance.now()
      const status = await one(bases[n % bases.length], options, body)
      latencies.push(performance.now() - t0)
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  }))
  const elapsed = (performance.now() - began) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const ms = (v) => `${v.toFixed(1)} ms`
  console.log(
    `  ${label.padEnd(15)} ${String(latencies.length).padStart(7)} requests: ${(latencies.length / elapsed).toFixed(0).padStart(5)} req/s, ` +
      `p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1])}; ` +
      `statuses ${JSON.stringify(statuses)}`
  )
}

const run = async (target) => {
  const { file, projectId } = fixture()
  const fixtureFile = join(dir, `${target}.json`)
  writeFileSync(fixtureFile, JSON.stringify(file))
  let database, drop = async () => {}
  if (target === "sqlite") {
    database = `sqlite:${join(dir, "bench.db")}`
  } else {
    const name = `stint_bench_${randomUUID().replace(/-/g, "").slice(0, 16)}`
    await withServer((c) => c.query(`CREATE DATABASE ${name}`))
    const url = new URL(server)
    url.pathname = `/${name}`
    database = url.toString()
    drop = () => withServer((c) => c.query(`DROP DATABASE ${name} WITH (FORCE)`))
  }
  const summary = JSON.parse(execFileSync(process.execPath, [bin, "seed", fixtureFile, "--database", database], {
    maxBuffer: 64 * 1024 * 1024
  }).toString())
  const keys = summary.apiKeys.map((k) => k.key)
  const processes = await Promise.all(Array.from({ length: target === "pg3" ? 3 : 1 }, () => serve(database)))
  const bases = processes.map((p) => p.url)
  try {
    console.log(
      `${target === "sqlite" ? "SQLite, 1 process" : `PostgreSQL, ${processes.length} process${processes.length > 1 ? "es" : ""}`}` +
        ` (${concurrency} clients, ${keys.length} keys, ${seconds} s per phase)`
    )
    await phase("startTimer", bases, keys, (key, n) => {
      const body = JSON.stringify({ projectId, note: `bench ${n}` })
      return {
        options: {
          path: "/api/v1/timers/start",
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "idempotency-key": randomUUID()
          }
        },
        body
      }
    })
    await phase("getActiveTimer", bases, keys, (key) => ({
      options: { path: "/api/v1/timer", method: "GET", headers: { authorization: `Bearer ${key}` } },
      body: undefined
    }))
  } finally {
    for (const p of processes) p.child.kill("SIGTERM")
    await Promise.all(processes.map((p) => new Promise((resolve) => p.child.exitCode !== null ? resolve() : p.child.on("exit", resolve))))
    await drop()
  }
}

try {
  for (const target of targets) await run(target)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
