#!/usr/bin/env node
/**
 * Hostile request bodies side by side: two `stint` builds (say, before and after a change) serve `--demo` on fresh
 * SQLite files, and each gets the same startTimer bodies one at a time: a valid one, 6,000 unknown keys, a
 * 32,000-item array, a 60,000-character note, a value 5,000 levels deep. Rounds alternate A B, B A; the figures are
 * medians of per-round medians, with the status and size of each answer.
 *
 * Usage (after `npm install`, which builds dist/; build the other tree the same way):
 *   node adapters/http/bench/hostile.mjs --a OTHER/adapters/http/dist/bin.js [--b adapters/http/dist/bin.js]
 *     [--rounds 5] [--reps 40]
 *
 * Not part of `npm test`.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import http from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const arg = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback
}
const bins = {
  A: arg("a", undefined),
  B: arg("b", fileURLToPath(new URL("../dist/bin.js", import.meta.url)))
}
if (bins.A === undefined) {
  console.error("usage: node adapters/http/bench/hostile.mjs --a OTHER/adapters/http/dist/bin.js [--b BIN]")
  process.exit(2)
}
const rounds = Number(arg("rounds", 5))
const reps = Number(arg("reps", 40))
const dir = mkdtempSync(join(tmpdir(), "stint-hostile-"))
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })

const serve = (name, bin) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, "serve", "--demo", "--port", "0", "--database", `sqlite:${join(dir, `${name}.db`)}`], {
      env: { ...process.env, STINT_RATE_LIMIT: "100000000" },
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (data) => {
      out += data
      const port = /listening on http:\/\/[^:]+:(\d+)/.exec(out)?.[1]
      const key = /(stint_[A-Za-z0-9_-]{43})/.exec(out)?.[1]
      if (port !== undefined && key !== undefined) resolve({ child, port: Number(port), key })
    })
    child.on("exit", (code) => reject(new Error(`${name} exited with ${code}: ${out}`)))
  })

const send = (target, method, path, body, headers = {}) =>
  new Promise((resolve, reject) => {
    const request = http.request({
      host: "127.0.0.1",
      port: target.port,
      method,
      path,
      agent,
      headers: {
        authorization: `Bearer ${target.key}`,
        ...(body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) }),
        ...headers
      }
    }, (response) => {
      const chunks = []
      response.on("data", (chunk) => chunks.push(chunk))
      response.on("end", () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString() }))
    })
    request.on("error", reject)
    request.end(body)
  })

const targets = {}
try {
  for (const [name, bin] of Object.entries(bins)) targets[name] = await serve(name, bin)
  for (const target of Object.values(targets)) {
    const clients = JSON.parse((await send(target, "GET", "/api/v1/clients")).text).clients
    target.project = JSON.parse((await send(target, "GET", `/api/v1/projects?clientId=${clients[0].id}`)).text).projects[0].id
  }
  let n = 0
  const deep = (depth) => `${"[".repeat(depth)}"x"${"]".repeat(depth)}`
  const scenarios = {
    "valid start": (t) => [`{"projectId":"${t.project}","note":"hello"}`, `k${n++}`],
    "6,000 unknown keys (58 KiB)": () => [`{${Array.from({ length: 6000 }, (_, i) => `"k${i}":1`).join(",")}}`, "w"],
    "projectId: 32,000-item array": () => [`{"projectId":[${Array(32000).fill(0).join(",")}]}`, "a"],
    "note: 60,000-character string": (t) => [`{"projectId":"${t.project}","note":"${"a".repeat(60000)}"}`, "s"],
    "projectId: 5,000 levels deep": () => [`{"projectId":${deep(5000)}}`, "d"]
  }
  const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1]
  for (const [label, make] of Object.entries(scenarios)) {
    const seen = {}
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 === 0 ? ["A", "B"] : ["B", "A"]) {
        const times = []
        let last
        for (let i = 0; i < reps; i++) {
          const [body, key] = make(targets[name])
          const started = performance.now()
          last = await send(targets[name], "POST", "/api/v1/timers/start", body, { "idempotency-key": key })
          times.push(performance.now() - started)
        }
        const entry = (seen[name] ??= { medians: [], status: last.status, bytes: last.text.length })
        entry.medians.push(median(times))
      }
    }
    const [a, b] = [median(seen.A.medians), median(seen.B.medians)]
    console.log(
      `${label.padEnd(30)} A ${a.toFixed(2)} ms (${seen.A.status}, ${seen.A.bytes} B)  ` +
        `B ${b.toFixed(2)} ms (${seen.B.status}, ${seen.B.bytes} B)  B/A ${(b / a).toFixed(2)}`
    )
  }
} finally {
  for (const target of Object.values(targets)) target.child.kill("SIGTERM")
  agent.destroy()
  setTimeout(() => rmSync(dir, { recursive: true, force: true }), 500)
}
