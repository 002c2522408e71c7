#!/usr/bin/env node
/**
 * What V8's heap settings cost `stint serve` below saturation: a plain server (SQLite, the demo data) under a closed
 * loop of `--connections` keep-alive clients in this process, each sending its next `GET /api/v1/timer` when the last
 * one is answered, once per old-generation growth setting (`--growth`: a `--heap-growing-percent` given on node's
 * command line, or `shipped` for none, so that `stint serve` sets its own: `adapters/http/src/internal/heap.ts`).
 * Every server starts as the `stint` launcher starts it (`--max-semi-space-size=8`) with `--trace-gc`, its SQLite at
 * `synchronous=NORMAL` as in `npm run bench` (at `FULL` every request's rate-limit commit waits for an fsync, the
 * server idles through it, and the full collections did not come); after a warm-up
 * of half as many requests, `--requests` are counted: the server's own CPU per request (from `/proc`, so Linux only),
 * requests a second, and full collections (V8's `Mark-Compact` lines) per 10,000 requests. Rounds run every setting
 * in a new order; the table gives medians. Saturated (`npm run bench`), the server may show none of this: the finding
 * it was written for (`heap.ts`, 2026-11-30) did not show there.
 *
 * Usage (after `npm run build`; `npm run bench:gc -- …` builds first):
 *   node bench/gc.mjs [--growth shipped,30,100] [--connections 1,8] [--requests 20000] [--rounds 3]
 *     [--database URL]   (default: a fresh SQLite file per server; a PostgreSQL URL is used by every server as it is)
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { wholeNumber } from "./internal/args.mjs"
import { sendGets, whenListening } from "./internal/demoServer.mjs"
import { median } from "./internal/median.mjs"
import { orderOf } from "./internal/order.mjs"
import { processMillis } from "./internal/processCpu.mjs"

const { values: options } = parseArgs({
  options: {
    growth: { type: "string", default: "shipped,30,100" },
    connections: { type: "string", default: "1,8" },
    requests: { type: "string", default: "20000" },
    rounds: { type: "string", default: "3" },
    database: { type: "string" }
  }
})

const growths = options.growth.split(",").map((g) => g.trim()).filter((g) => g !== "")
for (const growth of growths) if (growth !== "shipped") wholeNumber("--growth", growth)
const connectionCounts = options.connections.split(",").map((c) => wholeNumber("--connections", c.trim()))
const requests = wholeNumber("--requests", options.requests)
const rounds = wholeNumber("--rounds", options.rounds)

const bin = join(dirname(fileURLToPath(import.meta.url)), "..", "adapters", "http", "dist", "bin.js")
const dir = mkdtempSync(join(tmpdir(), "stint-gc-"))

/** The demo owner's key, as a server last printed it. */
let demoKey

/** One server under one setting: its figures over `requests` after a warm-up. */
const measure = async (growth, connections, run) => {
  const growthFlag = growth === "shipped" ? [] : [`--heap-growing-percent=${growth}`]
  const flags = ["--max-semi-space-size=8", "--trace-gc", ...growthFlag]
  const database = options.database ?? `sqlite:${join(dir, `${run}.db`)}`
  const child = spawn(process.execPath, [...flags, bin, "serve", "--port", "0", "--demo", "--database", database], {
    env: {
      ...process.env,
      STINT_RATE_LIMIT: "1000000000",
      STINT_RATE_WINDOW_SECONDS: "1",
      STINT_SQLITE_SYNCHRONOUS: "NORMAL"
    },
    stdio: ["ignore", "pipe", "inherit"]
  })
  let fullCollections = 0
  const exited = new Promise((resolve) => child.once("exit", resolve))
  try {
    // A database given with `--database` is seeded by the first server only: later ones print no key.
    const { key, port } = await whenListening(child, exited, {
      key: demoKey,
      onLine: (line) => {
        if (line.includes(": Mark-Compact ")) fullCollections++
      }
    })
    demoKey = key
    const send = (count) => sendGets({ port, key, path: "/api/v1/timer", connections, count })
    await send(Math.ceil(requests / 2))
    const before = { cpu: processMillis(child.pid), at: performance.now(), collections: fullCollections }
    await send(requests)
    return {
      cpu: (processMillis(child.pid) - before.cpu) * 1000 / requests,
      rps: requests / ((performance.now() - before.at) / 1000),
      collections: (fullCollections - before.collections) * 10_000 / requests
    }
  } finally {
    child.kill("SIGTERM")
    await exited
  }
}

const results = new Map()
let run = 0
try {
  for (let round = 1; round <= rounds; round++) {
    const settings = connectionCounts.flatMap((connections) => growths.map((growth) => ({ growth, connections })))
    for (const { growth, connections } of orderOf(settings, round)) {
      const figures = await measure(growth, connections, ++run)
      const key = `${connections}\u0000${growth}`
      results.set(key, [...(results.get(key) ?? []), figures])
      process.stderr.write(
        `round ${round}: growth ${growth}, ${connections} connections: ${figures.cpu.toFixed(0)} µs a request, ` +
          `${figures.rps.toFixed(0)} req/s, ${figures.collections.toFixed(1)} full collections per 10,000\n`
      )
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}

const store = options.database === undefined ? "SQLite" : "PostgreSQL"
const loop = `GET /api/v1/timer in a closed loop, ${requests} requests`
console.log(`\nstint serve on ${store}, ${loop}, medians of ${rounds} rounds`)
console.log("\n| connections | growth | server CPU µs a request | req/s | full collections per 10,000 requests |")
console.log("|---|---|---|---|---|")
for (const connections of connectionCounts) {
  for (const growth of growths) {
    const figures = results.get(`${connections}\u0000${growth}`) ?? []
    const of = (name, digits) => median(figures.map((f) => f[name])).toFixed(digits)
    console.log(`| ${connections} | ${growth} | ${of("cpu", 0)} | ${of("rps", 0)} | ${of("collections", 1)} |`)
  }
}
