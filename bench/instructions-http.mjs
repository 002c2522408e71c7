#!/usr/bin/env node
/**
 * What observing costs a request over HTTP, counted in instructions: `stint serve` itself (`adapters/http/bin`, from
 * `dist`) under valgrind's callgrind, one process per configuration, each on a fresh SQLite file holding the demo data.
 * A client in this process sends `--warmup-requests` requests over `--connections` keep-alive connections; then the
 * counts are zeroed (`callgrind_control -z`), `--requests` more are sent, and the counts are dumped
 * (`callgrind_control -d`). The main thread's instructions over those requests, divided by their number, are split as
 * `instructions.mjs` splits them (`internal/callgrind.mjs`).
 *
 * `instructions.mjs` counts the request pipeline alone; this counts everything the serving process does for a request
 * on its own thread: Node's HTTP parser and socket code, the request log line, the store. So the excess it shows is a
 * share of the process's own work. The kernel's work (socket writes, SQLite's file writes) is not counted; it is the
 * same whatever the configuration. Work driven by the clock (the metrics' event-loop monitor, the exporter's 5 s
 * batches) is counted too, and weighs more under valgrind's slowness than at full speed. Spans go to the local OTLP
 * receiver of `internal/otlpReceiver.mjs`, in a process of its own.
 *
 * Usage (after `npm run build`; valgrind installed; two configurations run at once, a few minutes each):
 *   node bench/instructions-http.mjs [--configs plain,both-10] [--route timer|clients|entries]
 *     [--requests 10000] [--warmup-requests 40000] [--connections 8]
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { wholeNumber } from "./internal/args.mjs"
import { parts, selfCost, table } from "./internal/callgrind.mjs"
import * as Configs from "./internal/configs.mjs"
import { sendGets, whenListening } from "./internal/demoServer.mjs"
import * as OtlpReceiver from "./internal/otlpReceiver.mjs"

const { values: options } = parseArgs({
  options: {
    configs: { type: "string", default: "plain,both-10" },
    route: { type: "string", default: "timer" },
    requests: { type: "string", default: "10000" },
    "warmup-requests": { type: "string", default: "40000" },
    connections: { type: "string", default: "8" }
  }
})

const path = Configs.routePath(options.route)
const [requests, warmupRequests, connections] = ["requests", "warmup-requests", "connections"].map((name) =>
  wholeNumber(`--${name}`, options[name])
)

const configs = Configs.chosen(options.configs)
if (configs.length === 0) throw new Error("--configs names no configuration")

const stint = join(dirname(fileURLToPath(import.meta.url)), "..", "adapters", "http", "bin", "stint.js")

/** The environment of a configuration's server: nothing of this shell's own OpenTelemetry settings. */
const environment = (config, endpoint) => {
  const env = { ...process.env }
  for (const name of Object.keys(env)) if (name.startsWith("OTEL_")) delete env[name]
  // No 429s: a window of one second, as good as unlimited within it.
  Object.assign(env, {
    STINT_RATE_LIMIT: "1000000000",
    STINT_RATE_WINDOW_SECONDS: "1",
    STINT_SQLITE_SYNCHRONOUS: "NORMAL"
  })
  if (config.sampler !== undefined) {
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    env["OTEL_TRACES_SAMPLER"] = config.sampler[0]
    if (config.sampler[1] !== undefined) env["OTEL_TRACES_SAMPLER_ARG"] = config.sampler[1]
  }
  return env
}

/** The servers still running, stopped when one configuration fails. */
const running = new Set()

/** One configuration: its server under callgrind, warmed, counted over `requests`; answers the main thread's parts. */
const measure = async (dir, config, endpoint) => {
  const out = join(dir, `${config.name}.out`)
  const child = spawn("valgrind", [
    "--tool=callgrind",
    "--separate-threads=yes",
    `--callgrind-out-file=${out}`,
    process.execPath,
    stint,
    ...["serve", "--port", "0", "--demo", "--database", `sqlite:${join(dir, `${config.name}.db`)}`],
    ...(config.metrics ? ["--metrics-port", "0"] : [])
  ], { env: environment(config, endpoint), stdio: ["ignore", "pipe", "pipe"] })
  running.add(child)
  let stderr = ""
  child.stderr.on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000)
  })
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))
  try {
    // The demo key, then the listening line; every line after (one a request) is read and dropped.
    const { key, port } = await whenListening(child, exited.then(({ code, signal }) => code ?? signal)).catch(
      (error) => {
        throw new Error(`${config.name}: ${error.message}\n${stderr}`)
      }
    )
    const send = (count) => sendGets({ port, key, path, connections, count })
    await send(warmupRequests)
    execFileSync("callgrind_control", ["-z", String(child.pid)], { stdio: "ignore" })
    await send(requests)
    execFileSync("callgrind_control", ["-d", String(child.pid)], { stdio: "ignore" })
    // The dump is written by the process itself, after the command returns: wait for the main thread's file.
    const main = `${out}.1-01`
    for (let waited = 0; !existsSync(main) || readFileSync(main, "utf8").indexOf("\ntotals:") === -1; waited++) {
      if (waited > 600) throw new Error(`${config.name}: no dump of the main thread after 60 s`)
      await sleep(100)
    }
    const sums = parts(selfCost(readFileSync(main, "utf8")))
    for (const part of Object.keys(sums)) sums[part] /= requests
    return sums
  } finally {
    child.kill("SIGINT")
    // Under valgrind a shutdown takes a while; one that hangs is killed.
    const stuck = setTimeout(() => child.kill("SIGKILL"), 60_000)
    await exited
    clearTimeout(stuck)
    running.delete(child)
  }
}

const dir = mkdtempSync(join(tmpdir(), "stint-instructions-http-"))
const receiver = await OtlpReceiver.start()
try {
  const measured = new Map()
  // Two at a time: two cores, one valgrind each.
  for (let i = 0; i < configs.length; i += 2) {
    const pair = configs.slice(i, i + 2)
    process.stderr.write(`${pair.map((config) => config.name).join(" and ")}: under callgrind\n`)
    const results = await Promise.all(pair.map((config) => measure(dir, config, receiver.endpoint))).catch(
      async (error) => {
        for (const child of running) child.kill("SIGKILL")
        throw error
      }
    )
    pair.forEach((config, index) => measured.set(config.name, results[index]))
  }
  console.log(`\nThousands of instructions per request on stint serve's main thread, GET ${options.route} on sqlite`)
  console.log(`(${requests} requests after ${warmupRequests} of warm-up, ${connections} keep-alive connections)\n`)
  // Each configuration's excess over the first listed.
  console.log(table([...measured], configs[0].name))
} finally {
  await receiver.stop()
  rmSync(dir, { recursive: true, force: true })
}
