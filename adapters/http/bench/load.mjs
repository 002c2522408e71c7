#!/usr/bin/env node
/**
 * A quick load run of `stint serve` on SQLite: requests per second and latency percentiles for startTimer and
 * getActiveTimer with N concurrent keep-alive clients. Every request uses the next of many API keys (one per user), so
 * the default rate limit (120 per key per minute) is in force but never reached; the run reports any 429 it saw.
 *
 * Usage (after `npm install`, which builds dist/):
 *   node adapters/http/bench/load.mjs [--concurrency 32] [--duration 10] [--keys 3000]
 *
 * Not part of `npm test`.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { randomUUID } from "node:crypto"
import { fileURLToPath } from "node:url"

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 && process.argv[at + 1] !== undefined ? Number(process.argv[at + 1]) : fallback
}
const concurrency = arg("concurrency", 32)
const durationSeconds = arg("duration", 10)
const keyCount = arg("keys", 3000)

const bin = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "stint-bench-"))
const database = `sqlite:${join(dir, "bench.db")}`

/** One workspace, one client and project, `keyCount` members assigned to it, one key each. */
const makeFixture = () => {
  const workspaceId = randomUUID()
  const clientId = randomUUID()
  const projectId = randomUUID()
  const users = Array.from({ length: keyCount }, (_, i) => ({
    id: randomUUID(),
    name: `User ${i}`,
    email: `user${i}@example.com`
  }))
  return {
    projectId,
    fixture: {
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

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

/** Runs `concurrency` loops for `durationSeconds`, each request built by `request(keyIndex, n)`. */
const phase = async (name, base, keys, request) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  const latencies = []
  const statuses = new Map()
  const deadline = performance.now() + durationSeconds * 1000
  let next = 0
  const one = (options, body) =>
    new Promise((resolve, reject) => {
      const req = http.request(`${base}${options.path}`, { ...options, agent }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      })
      req.on("error", reject)
      req.end(body)
    })
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline) {
      const key = keys[next++ % keys.length]
      const { options, body } = request(key, next)
      const t0 = performance.now()
      const status = await one(options, body)
      latencies.push(performance.now() - t0)
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
    }
  }))
  const elapsed = (performance.now() - started) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const ms = (v) => `${v.toFixed(2)} ms`
  console.log(
    `${name.padEnd(15)} ${String(latencies.length).padStart(7)} requests in ${elapsed.toFixed(1)} s: ` +
      `${(latencies.length / elapsed).toFixed(0)} req/s, p50 ${ms(percentile(latencies, 50))}, ` +
      `p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1])}; statuses ` +
      JSON.stringify(Object.fromEntries(statuses))
  )
  return statuses
}

const main = async () => {
  const { fixture, projectId } = makeFixture()
  const fixtureFile = join(dir, "fixture.json")
  writeFileSync(fixtureFile, JSON.stringify(fixture))
  const summary = JSON.parse(execFileSync(process.execPath, [bin, "seed", fixtureFile, "--database", database], {
    maxBuffer: 64 * 1024 * 1024
  }).toString())
  const keys = summary.apiKeys.map((k) => k.key)

  const server = spawn(process.execPath, [bin, "serve", "--port", "0", "--database", database], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  const base = await new Promise((resolve, reject) => {
    let buffer = ""
    server.stdout.setEncoding("utf8")
    server.stdout.on("data", (chunk) => {
      buffer += chunk
      const match = /listening on (http:\/\/\S+)/.exec(buffer)
      if (match) resolve(match[1])
    })
    server.on("exit", (code) => reject(new Error(`server exited (${code})`)))
  })
  // Drain the per-request log lines so a full pipe never slows the server down.
  server.stdout.on("data", () => {})

  try {
    console.log(
      `stint serve on SQLite, ${concurrency} concurrent clients, ${keys.length} keys, ${durationSeconds} s per phase`
    )
    const start = await phase("startTimer", base, keys, (key, n) => {
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
    const get = await phase("getActiveTimer", base, keys, (key) => ({
      options: { path: "/api/v1/timer", method: "GET", headers: { authorization: `Bearer ${key}` } },
      body: undefined
    }))
    const limited = (start.get(429) ?? 0) + (get.get(429) ?? 0)
    if (limited > 0) console.log(`warning: ${limited} requests were rate limited; use more --keys`)
  } finally {
    server.kill("SIGTERM")
    await new Promise((resolve) => server.on("exit", resolve))
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
