/**
 * The servers under test: `stint serve` from the built `dist/`, and the hand-written baselines of
 * `../shared/bench/baseline` when their folder is given. Each runs as its own process (its id is what the memory run
 * reads RSS from), logs to a file, and is ready when it prints its "listening on" line.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { closeSync, openSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort } from "../../testing/EmbeddedPostgres.js"

/** A running server. */
export interface Target {
  readonly label: string
  readonly url: string
  readonly pid: number
  readonly stop: () => Promise<void>
}

/** The `stint` command as built by `npm run build`. */
export const stintBin = fileURLToPath(new URL("../../adapters/http/dist/bin.js", import.meta.url))

/**
 * The flags the `stint` launcher (`adapters/http/bin/stint.js`) starts node with, from its shebang
 * (`#!/usr/bin/env -S node FLAGS`): the servers under test run as an operator's `stint serve` does.
 */
export const launcherFlags: ReadonlyArray<string> = (() => {
  const launcher = fileURLToPath(new URL("../../adapters/http/bin/stint.js", import.meta.url))
  const shebang = readFileSync(launcher, "utf8").split("\n", 1)[0] ?? ""
  const match = /^#!\/usr\/bin\/env -S node( .*)?$/.exec(shebang)
  if (match === null) throw new Error(`the launcher's shebang is not \`#!/usr/bin/env -S node FLAGS\`: ${shebang}`)
  return (match[1] ?? "").split(" ").filter((flag) => flag !== "")
})()

/** The rate limit every server gets: high enough for the deep walk on one key; every other key stays far below. */
export const RATE_LIMIT = 1_000_000

const start = async (
  label: string,
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string>>,
  logFile: string
): Promise<Target> => {
  const out = openSync(logFile, "w")
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", out, out] })
  closeSync(out)
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    await exited
    clearTimeout(killer)
  }
  const deadline = Date.now() + 60_000
  for (;;) {
    const text = readFileSync(logFile, "utf8")
    const match = /listening on (http:\/\/[\w.:[\]-]+)/.exec(text)
    if (match?.[1] !== undefined && child.pid !== undefined) return { label, url: match[1], pid: child.pid, stop }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`${label} did not start:\n${text.slice(0, 4000)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/**
 * `stint serve` on `database`, with the launcher's node flags (`launcherFlags`), pool 8 on PostgreSQL. SQLite runs at
 * `synchronous=NORMAL` unless `STINT_SQLITE_SYNCHRONOUS` says otherwise: the baselines run WAL with `NORMAL`, and
 * `../shared/bench` compares like with like. Stint's own default is `FULL` (see adapters/sqlite/README.md), which costs
 * a sync per write step. With `observed`, metrics and traces are on as an operator turns them on: the metrics listener
 * on a free port; spans (of every request, under the SDK's default sampler) exported over OTLP/HTTP. `bin` is another
 * build's `dist/bin.js` (`npm run bench -- --against DIR`).
 */
export const stint = (
  label: string,
  database: string,
  logDir: string,
  nodeOptions: ReadonlyArray<string> = [],
  observed?: Observed,
  bin: string = stintBin
): Promise<Target> =>
  start(label, [
    ...launcherFlags,
    ...nodeOptions,
    ...(process.env["STINT_BENCH_NODE_ARGS"]?.split(" ").filter((a) => a !== "") ?? []),
    bin,
    "serve",
    "--port",
    "0",
    "--database",
    database,
    ...(observed?.metrics === true ? ["--metrics-port", "0"] : [])
  ], {
    STINT_RATE_LIMIT: String(RATE_LIMIT),
    STINT_PG_POOL_SIZE: "8",
    STINT_SQLITE_SYNCHRONOUS: process.env["STINT_SQLITE_SYNCHRONOUS"] ?? "NORMAL",
    ...(observed?.otlpEndpoint === undefined ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: observed.otlpEndpoint })
  }, join(logDir, `${label}.log`))

/** What an observed `stint serve` gets: its metrics listener on a free port, and its spans exported to this endpoint. */
export interface Observed {
  readonly metrics: boolean
  readonly otlpEndpoint: string | undefined
}

/** A baseline server from `dir` (a copy of `../shared/bench/baseline`): PostgreSQL when `pg` is given, else SQLite. */
export const baseline = async (
  label: string,
  dir: string,
  database: { readonly pg: string } | { readonly sqlite: string },
  logDir: string
): Promise<Target> => {
  const port = await freePort()
  const common = { PORT: String(port), RATE_LIMIT: String(RATE_LIMIT), PG_POOL: "8" }
  return "pg" in database
    ? start(label, [join(dir, "server.mjs")], { ...common, DATABASE_URL: database.pg }, join(logDir, `${label}.log`))
    : start(label, [join(dir, "server-sqlite.mjs")], { ...common, SQLITE_PATH: database.sqlite }, join(logDir, `${label}.log`))
}

/** The resident set size of a process, in MB (Linux). */
export const rssMegabytes = (pid: number): number => {
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return match?.[1] === undefined ? NaN : Math.round(Number(match[1]) / 1024)
}
