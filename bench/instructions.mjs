#!/usr/bin/env node
/**
 * What observing costs a request, counted in instructions instead of seconds: `bench/observing.mjs` under valgrind's
 * callgrind, which counts the instructions each thread runs whatever else the machine is doing. On this shared machine
 * CPU time per request drifts by several percent between runs; a change of 1% shows only in a count.
 *
 * For each configuration, two runs that differ only in the size of the measured round (after the same warm-up): the
 * difference, divided by the difference in requests, is the cost of one request, without start-up (module loading,
 * the warm-up's compiles). Only the main thread counts (the request path); its instructions are split, by function
 * name and roughly, into garbage collection, the compilers and the rest (the mutator: JavaScript, builtins, the
 * runtime, SQLite). The mutator's count is the steady one (within about 1.5% run to run); the collector's is not (a
 * scavenge more or less in the window, a major collection or none: it has been seen to double between two runs of the
 * same build). Work driven by the clock rather than by requests (the metrics' event-loop delay monitor samples every
 * 10 ms, a batch of spans is exported at the latest every 5 s) lands in the slope too, and grows with valgrind's
 * slowness: a small excess in `metrics` is partly that.
 *
 * Usage (after `npm run build`; valgrind installed; each run takes a minute or more):
 *   node bench/instructions.mjs [--configs plain,traces-off,both-10] [--store sqlite] [--route timer]
 *     [--requests 2000,22000] [--warmup-requests 20000]
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { parts, selfCost, table } from "./internal/callgrind.mjs"

const { values: options } = parseArgs({
  options: {
    configs: { type: "string", default: "plain,traces-off,both-10" },
    store: { type: "string", default: "sqlite" },
    route: { type: "string", default: "timer" },
    requests: { type: "string", default: "2000,22000" },
    "warmup-requests": { type: "string", default: "20000" }
  }
})
const configs = options.configs.split(",").map((name) => name.trim()).filter((name) => name !== "")
const [fewer, more] = options.requests.split(",").map(Number)
if (!(Number.isInteger(fewer) && Number.isInteger(more) && fewer > 0 && more > fewer)) {
  throw new Error("--requests takes two whole numbers above 0, the second larger: 2000,22000")
}
const observing = join(dirname(fileURLToPath(import.meta.url)), "observing.mjs")

/** The valgrind runs not yet ended, stopped when one of their siblings fails. */
const running = new Set()

/** Runs observing.mjs for one configuration and round size under callgrind; answers the main thread's profile. */
const run = (dir, config, requests) =>
  new Promise((resolve, reject) => {
    const out = join(dir, `${config}-${requests}.out`)
    const child = spawn("valgrind", [
      "--tool=callgrind",
      "--separate-threads=yes",
      `--callgrind-out-file=${out}`,
      process.execPath,
      observing,
      ...["--configs", config, "--store", options.store, "--route", options.route, "--rounds", "1"],
      ...["--requests", String(requests), "--warmup-requests", options["warmup-requests"]]
    ], { stdio: ["ignore", "ignore", "pipe"] })
    running.add(child)
    let stderr = ""
    child.stderr.on("data", (chunk) => {
      stderr += chunk
    })
    child.on("error", reject)
    // `close`, not `exit`: its standard error has been read to the end by then.
    child.on("close", (code) => {
      running.delete(child)
      if (code !== 0) return reject(new Error(`valgrind ${config} ${requests}: exit ${code}\n${stderr.slice(-2000)}`))
      // callgrind names each thread's file `<out>-<thread>`; thread 1 is the main thread.
      const main = `${out}-01`
      if (!existsSync(main)) return reject(new Error(`no profile of the main thread for ${config} ${requests}`))
      resolve(selfCost(readFileSync(main, "utf8")))
    })
  })

/** Stops the runs still going and waits for them (before their directory is removed). */
const stopAll = () =>
  Promise.all([...running].map((child) =>
    new Promise((resolve) => {
      child.once("close", resolve)
      child.kill("SIGTERM")
    })
  ))

/** Instructions per request, by part, from the two runs' profiles: their difference over the difference in requests. */
const perRequest = (small, large) => {
  const difference = new Map()
  for (const name of new Set([...small.keys(), ...large.keys()])) {
    difference.set(name, ((large.get(name) ?? 0) - (small.get(name) ?? 0)) / (more - fewer))
  }
  return parts(difference)
}

const dir = mkdtempSync(join(tmpdir(), "stint-instructions-"))
try {
  const rows = []
  for (const config of configs) {
    process.stderr.write(`${config}: ${fewer} and ${more} requests under callgrind\n`)
    // The two sizes side by side: two cores, one valgrind each. One failing stops the other.
    const [small, large] = await Promise.all([run(dir, config, fewer), run(dir, config, more)]).catch(async (error) => {
      await stopAll()
      throw error
    })
    rows.push([config, perRequest(small, large)])
  }
  console.log(`\nThousands of instructions per request on the main thread, GET ${options.route} on ${options.store}`)
  console.log(`(slope between rounds of ${fewer} and ${more} requests after ${options["warmup-requests"]} of warm-up)\n`)
  // Each configuration's excess over plain.
  console.log(table(rows, "plain"))
} finally {
  rmSync(dir, { recursive: true, force: true })
}
