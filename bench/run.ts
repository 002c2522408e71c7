/**
 * `npm run bench`: Stint's own benchmark (not part of `npm test`). Starts `stint serve` on SQLite and on PostgreSQL,
 * seeds the data of `../shared/bench` (64 users, 4,096 keys, a deep user), runs its scenarios with the project's load
 * driver and prints one table: requests per second, p50 and p99 per scenario and store. With `--baseline-dir` (the
 * hand-written baselines of `../shared/bench/baseline`) it runs them side by side, alternating rounds, and adds the
 * ratios. Then a memory run: RSS of a fresh `stint serve` after 300, 5,000, 25,000, 50,000 and 100,000 mixed requests.
 *
 *   npm run bench -- [--stores sqlite,postgres] [--scenarios timer,start,startstop,list,deep] [--rounds 3]
 *     [--duration 5] [--warmup 1] [--connections 32] [--deep-entries 1000000] [--memory-requests 100000]
 *     [--memory-stores sqlite,postgres] [--core-ops 3000] [--baseline-dir ../shared/bench/baseline]
 *     [--profile DIR] [--profile-interval 1000] [--observability metrics,traces] [--against DIR] [--fresh-servers]
 *
 * `--profile DIR` runs the scenario servers of Stint under `node --cpu-prof` (one .cpuprofile per Stint server in DIR,
 * written when the server stops) and prints where their CPU time went (`bench/internal/Profile.ts`);
 * `--profile-interval µs` samples more often than V8's 1,000 µs, to tell small costs apart.
 *
 * `--observability metrics,traces` measures what metrics and traces cost: the scenarios run on Stint with what it names
 * on (`--metrics-port`; every request traced and exported over OTLP/HTTP to a local receiver,
 * `internal/otlpReceiver.mjs`) against the same build with both off on its own copy of the data, alternating rounds,
 * instead of against the baselines; the report adds the spans received per request. The standard `OTEL_*` variables
 * (a sampler, say) reach the observed server; with it, the memory run is of an observed server too.
 * `--observability none` runs two plain servers that way: the noise floor of the comparison.
 *
 * `--against DIR` measures a change: the build of another checkout of Stint (`git worktree add DIR REV`, then
 * `npm ci` there) runs as the second server, on its own copy of the data, in alternating rounds, instead of the
 * baselines. The ratios are this build's over that one's.
 *
 * `--fresh-servers` starts every server afresh (and warms it up again) before each of its rounds, so that the rounds
 * draw different processes and a difference between two processes of the same build averages out over the rounds.
 *
 * PostgreSQL is `STINT_TEST_DATABASE_URL` when set (a database of the run's own is created there and dropped after),
 * otherwise a throwaway embedded server. Last, the core alone without HTTP (`conformance/bench/core.mjs`, on the memory
 * store and SQLite; `--core-ops 0` skips it).
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import pg from "pg"
import * as EmbeddedPostgres from "../testing/EmbeddedPostgres.js"
import * as Cpu from "./internal/Cpu.js"
import * as Data from "./internal/Data.js"
import * as Load from "./internal/Load.js"
import { median } from "./internal/median.mjs"
import * as OtlpReceiver from "./internal/otlpReceiver.mjs"
import * as Profile from "./internal/Profile.js"
import * as Scenarios from "./internal/Scenarios.js"
import * as Table from "./internal/Table.js"
import * as Targets from "./internal/Targets.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const { values: options } = parseArgs({
  options: {
    stores: { type: "string", default: "sqlite,postgres" },
    scenarios: { type: "string", default: "timer,start,startstop,list,deep" },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    connections: { type: "string", default: "32" },
    "deep-entries": { type: "string", default: "1000000" },
    "deep-samples": { type: "string", default: "50" },
    "memory-requests": { type: "string", default: "100000" },
    "memory-stores": { type: "string", default: "sqlite,postgres" },
    "core-ops": { type: "string", default: "3000" },
    "baseline-dir": { type: "string" },
    profile: { type: "string" },
    "profile-interval": { type: "string", default: "1000" },
    observability: { type: "string" },
    against: { type: "string" },
    "fresh-servers": { type: "boolean", default: false }
  }
})
const list = (s: string) => s.split(",").map((x) => x.trim()).filter((x) => x.length > 0)
const stores = list(options.stores) as Array<"sqlite" | "postgres">
const wanted = list(options.scenarios)
const rounds = Number(options.rounds)
const connections = Number(options.connections)
const deepEntries = Number(options["deep-entries"])
const memoryRequests = Number(options["memory-requests"])
const memoryStores = memoryRequests > 0 ? list(options["memory-stores"]) : []
const log = (line: string) => process.stderr.write(`${line}\n`)
const profileDir = options.profile === undefined ? undefined : resolve(options.profile)
const observing = options.observability === undefined ? [] : list(options.observability)
for (const part of observing) {
  // `none`: both servers plain, to see how far two identical servers' figures drift apart on this machine.
  if (part !== "metrics" && part !== "traces" && part !== "none") {
    throw new Error(`--observability takes metrics, traces, both, or none, not ${part}`)
  }
}
const observability = observing.length > 0
/** With `--against DIR`: that checkout's build of `stint` (its `npm run build` done) as the second server. */
const againstBin = options.against === undefined
  ? undefined
  : join(resolve(options.against), "adapters", "http", "dist", "bin.js")
if (againstBin !== undefined && !existsSync(againstBin)) throw new Error(`--against: no build at ${againstBin}`)
if (againstBin !== undefined && (observability || options["baseline-dir"] !== undefined)) {
  throw new Error("--against replaces the second server: not with --observability or --baseline-dir")
}
/**
 * Whether every server is started afresh before each of its rounds (and warmed up again): each round then draws a new
 * process, so that a difference between two processes of one build, were it to last as long as they run (stop 51,
 * `adapters/http/README.md`, Operating Stint, Cost, could not rule it out), averages out over the rounds.
 */
const freshServers = options["fresh-servers"] === true
if (freshServers && profileDir !== undefined) throw new Error("--fresh-servers: not with --profile (one profile a server)")
/** Whether each store gets a second Stint server on its own copy of the data (observed against plain, or two builds). */
const paired = observability || againstBin !== undefined

const work = mkdtempSync(join(tmpdir(), "stint-bench-"))
const dataDir = join(work, "data")
mkdirSync(dataDir)
const cleanups: Array<() => Promise<void>> = []

/** The baselines, copied next to the project's `node_modules` so that their `pg` and `better-sqlite3` resolve. */
const baselineCopy = (): string | undefined => {
  if (options["baseline-dir"] === undefined) return undefined
  const from = resolve(options["baseline-dir"])
  const to = join(root, "node_modules", ".cache", "stint-bench")
  rmSync(to, { recursive: true, force: true })
  cpSync(from, join(to, "baseline"), { recursive: true })
  cpSync(join(dirname(from), "seed.mjs"), join(to, "seed.mjs"))
  return to
}

/** The PostgreSQL server: the machine's, or an embedded one started for this run. */
const postgresServer = async (): Promise<string> => {
  const given = process.env["STINT_TEST_DATABASE_URL"]
  if (given !== undefined && given.length > 0) return given
  log("starting an embedded PostgreSQL (STINT_TEST_DATABASE_URL is not set)")
  const server = await EmbeddedPostgres.start()
  cleanups.push(server.stop)
  return server.url
}

const admin = async (server: string, sql: string): Promise<void> => {
  const client = new pg.Client({ connectionString: server })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

/** The pids of the backends connected to the database of `url`. */
const backends = async (url: URL): Promise<Array<number>> => {
  const client = new pg.Client({ connectionString: url.toString() })
  await client.connect()
  try {
    const result = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    )
    return result.rows.map((row) => row.pid)
  } finally {
    await client.end()
  }
}

/** A new database on the server, dropped when the run ends. */
const database = async (server: string, name: string): Promise<string> => {
  await admin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin(server, `CREATE DATABASE ${name}`)
  cleanups.push(() => admin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  const url = new URL(server)
  url.pathname = `/${name}`
  return url.toString()
}

/** Runs a `stint` command; a large fixture loads in one transaction, longer than the default statement timeout. */
const stint = (...args: Array<string>) =>
  execFileSync(process.execPath, [Targets.stintBin, ...args], {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, STINT_PG_STATEMENT_TIMEOUT_MS: "3600000" }
  })

/** A copy of a seeded store: the SQLite file copied, or a PostgreSQL database made from the seeded one as template. */
const copyOf = async (url: string, server: string | undefined, suffix: string): Promise<string> => {
  if (url.startsWith("sqlite:")) {
    const file = url.slice("sqlite:".length)
    const copy = file.replace(/\.db$/, "-copy.db")
    cpSync(file, copy)
    // Seeding has ended (its process closed the file), so a WAL file is normally gone; if one was kept, it goes along.
    if (existsSync(`${file}-wal`)) cpSync(`${file}-wal`, `${copy}-wal`)
    return `sqlite:${copy}`
  }
  if (server === undefined) throw new Error(`no PostgreSQL server to copy ${url} on`)
  const name = `stint_bench_copy_${suffix}`
  await admin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  await admin(server, `CREATE DATABASE ${name} TEMPLATE ${new URL(url).pathname.slice(1)}`)
  cleanups.push(() => admin(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
  const copy = new URL(server)
  copy.pathname = `/${name}`
  return copy.toString()
}

/** Seeds Stint's database from the fixture files. */
const seedStint = async (url: string): Promise<void> => {
  stint("seed", join(dataDir, "fixture.json"), "--database", url)
  if (deepEntries > 0) stint("seed", join(dataDir, "fixture-deep.json"), "--database", url)
  if (url.startsWith("postgres")) await admin(url, "VACUUM ANALYZE")
}

/** Medians over the rounds of one scenario on one target. */
const summary = (results: ReadonlyArray<Load.Result & { readonly cpu?: Cpu.PerRequest }>): Table.Figures => ({
  rps: Math.round(median(results.map((r) => r.rps))),
  ...(results.every((r) => r.cpu !== undefined)
    ? {
      cpu: {
        server: Math.round(median(results.map((r) => r.cpu?.server ?? 0))),
        database: Math.round(median(results.map((r) => r.cpu?.database ?? 0)))
      }
    }
    : {}),
  // An even number of rounds takes the mean of the middle two: shown to the hundredth, as each round's is.
  p50: Math.round(median(results.map((r) => r.p50)) * 100) / 100,
  p99: Math.round(median(results.map((r) => r.p99)) * 100) / 100,
  failed: results.reduce((n, r) => n + r.errors + Object.entries(r.statuses).filter(([s]) => !s.startsWith("2")).reduce((m, [, c]) => m + c, 0), 0)
})

/** With two targets, each round's ratio of the first to the second (`Table.ByRound`). */
const perRound = (
  results: ReadonlyArray<ReadonlyArray<Load.Result & { readonly cpu?: Cpu.PerRequest }>>
): Table.ByRound | undefined => {
  const [a, b] = results
  if (results.length !== 2 || a === undefined || b === undefined) return undefined
  const pairs = a.flatMap((x, round) => {
    const y = b[round]
    return y === undefined ? [] : [[x, y] as const]
  })
  if (pairs.length === 0) return undefined
  const spread = (ratios: ReadonlyArray<number>): Table.Spread | undefined =>
    ratios.length === 0
      ? undefined
      : { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios), interval: Table.medianInterval(ratios) }
  const cpu = (r: Cpu.PerRequest | undefined) => r === undefined ? 0 : r.server + r.database
  // A round whose second target answered nothing (or was not measured) has no ratio: left out.
  return {
    rps: spread(pairs.flatMap(([x, y]) => y.rps > 0 ? [x.rps / y.rps] : [])),
    cpu: spread(pairs.flatMap(([x, y]) => x.cpu !== undefined && cpu(y.cpu) > 0 ? [cpu(x.cpu) / cpu(y.cpu)] : []))
  }
}

const main = async () => {
  log(`machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), node ${process.version}; work dir ${work}`)
  const shared = baselineCopy()
  const pgServer = stores.includes("postgres") || memoryStores.includes("postgres") ? await postgresServer() : undefined
  const suffix = `${process.pid}`
  const stintUrls: Record<string, string> = {}
  const baseUrls: Record<string, { readonly pg: string } | { readonly sqlite: string }> = {}
  if (stores.includes("sqlite") || memoryStores.includes("sqlite")) stintUrls["sqlite"] = `sqlite:${join(work, "stint.db")}`
  if (pgServer !== undefined) stintUrls["postgres"] = await database(pgServer, `stint_bench_${suffix}`)
  log("making the data set")
  const keys: Data.Keys = await (async () => {
    if (shared === undefined) {
      return Data.make(dataDir, { users: 64, keysPerUser: 64, history: 200, deepEntries })
    }
    const args = [join(shared, "seed.mjs"), "--out", dataDir, "--deep-entries", String(deepEntries)]
    if (stores.includes("sqlite")) {
      baseUrls["sqlite"] = { sqlite: join(work, "baseline.db") }
      args.push("--sqlite", join(work, "baseline.db"))
    }
    if (stores.includes("postgres") && pgServer !== undefined) {
      const url = await database(pgServer, `stint_bench_base_${suffix}`)
      baseUrls["postgres"] = { pg: url }
      args.push("--pg", url)
    }
    execFileSync(process.execPath, args, { stdio: ["ignore", "ignore", "inherit"] })
    return JSON.parse(readFileSync(join(dataDir, "keys.json"), "utf8")) as Data.Keys
  })()
  for (const [store, url] of Object.entries(stintUrls)) {
    log(`seeding Stint on ${store}`)
    await seedStint(url)
  }
  /**
   * With `--observability` or `--against`, the second server's own copy of each store (the same data, none of the
   * other's writes).
   */
  const plainUrls: Record<string, string> = {}
  if (paired) {
    for (const [store, url] of Object.entries(stintUrls)) plainUrls[store] = await copyOf(url, pgServer, suffix)
  }

  const sink = observing.includes("traces") ? await OtlpReceiver.start() : undefined
  if (sink !== undefined) cleanups.push(sink.stop)
  const observed = observability
    ? { metrics: observing.includes("metrics"), otlpEndpoint: sink?.endpoint }
    : undefined
  /** Spans the receiver got per request of the observed server, by store and scenario. */
  const spanLines: Array<string> = []

  const rows: Array<Table.Row> = []
  const deepRows: Array<Table.DeepRow> = []
  for (const store of stores) {
    const url = stintUrls[store]
    if (url === undefined) continue
    // Every Stint server of a comparison is profiled, not one side only: the profiler's cost would skew the ratios.
    const profiled = (label: string) =>
      profileDir === undefined ? [] : [
        "--cpu-prof",
        "--cpu-prof-dir",
        profileDir,
        "--cpu-prof-name",
        `${label}.cpuprofile`,
        "--cpu-prof-interval",
        options["profile-interval"]
      ]
    // How to start each server: with `--fresh-servers`, again before each of its rounds.
    const starts: Array<() => Promise<Targets.Target>> = [
      () => Targets.stint(`stint-${store}`, url, work, profiled(`stint-${store}`), observed)
    ]
    const base = paired ? undefined : baseUrls[store]
    const plainUrl = plainUrls[store]
    if (plainUrl !== undefined) {
      const label = againstBin === undefined ? `stint-${store}-plain` : `stint-${store}-against`
      starts.push(() => Targets.stint(label, plainUrl, work, profiled(label), undefined, againstBin))
    }
    if (shared !== undefined && base !== undefined) {
      const sharedDir = shared
      starts.push(() => Targets.baseline(`baseline-${store}`, join(sharedDir, "baseline"), base, work))
    }
    const targets: Array<Targets.Target> = []
    for (const begin of starts) targets.push(await begin())
    /**
     * Whether the servers have served a round (every round loads each of them): with `--fresh-servers`, the first
     * round uses them as started, every later one starts them afresh.
     */
    let served = false
    // The PostgreSQL database of each target, whose backends' CPU time is read around every round.
    const databases = store === "postgres"
      ? [url, plainUrl ?? (base !== undefined && "pg" in base ? base.pg : undefined)].map((u) => u === undefined ? undefined : new URL(u))
      : []
    try {
      for (const scenario of Scenarios.throughput(keys, connections)) {
        if (!wanted.includes(scenario.name)) continue
        const results = targets.map((): Array<Load.Result & { readonly cpu?: Cpu.PerRequest }> => [])
        let spans = 0
        for (const target of targets) await scenario.setup?.(target.url)
        for (let round = 0; round < rounds; round++) {
          // Every other round runs the targets in reverse order, so that neither always runs first (or right after
          // the other): an order effect of this machine would otherwise read as a difference between the servers.
          const order = [...targets.entries()]
          if (round % 2 === 1) order.reverse()
          for (const [i, previous] of order) {
            log(`${store} ${scenario.name} round ${round + 1}/${rounds}: ${previous.label}`)
            const begin = starts[i]
            let target = previous
            if (freshServers && served && begin !== undefined) {
              await target.stop()
              target = targets[i] = await begin()
              log(`  ${target.label}: started afresh (pid ${target.pid})`)
            }
            if ((round === 0 || freshServers) && Number(options.warmup) > 0) {
              await Load.run(scenario.script, { url: target.url, connections, seconds: Number(options.warmup) })
            }
            const database = databases[i]
            const before = Cpu.read(target.pid, database === undefined ? [] : await backends(database))
            const spansBefore = (await sink?.spans()) ?? 0
            const result = await Load.run(scenario.script, { url: target.url, connections, seconds: Number(options.duration) })
            const after = Cpu.read(target.pid, database === undefined ? [] : await backends(database))
            if (i === 0) spans += ((await sink?.spans()) ?? 0) - spansBefore
            for (const message of result.errorMessages) log(`${store} ${scenario.name}: transport error: ${message}`)
            const cpu = Cpu.perRequest(before, after, result.requests)
            log(`  ${target.label}: ${Math.round(result.rps)} req/s, p99 ${result.p99} ms, ${Math.round(cpu.server)} µs server CPU a request`)
            results[i]?.push({ ...result, cpu })
          }
          served = true
        }
        rows.push({ store, scenario: scenario.title, figures: results.map(summary), byRound: perRound(results) })
        const observedRequests = results[0]?.reduce((n, r) => n + r.requests, 0) ?? 0
        if (sink !== undefined && observedRequests > 0) {
          // Spans still queued in the server at a round's end arrive during the next one: a batch at most either way.
          spanLines.push(`| ${store} | ${scenario.title} | ${(spans / observedRequests).toFixed(2)} |`)
        }
      }
      if (wanted.includes("deep") && keys.deep !== null) {
        const deep = []
        for (const target of targets) {
          log(`${store} deep page: ${target.label} (walking ${Math.floor(keys.deep.entries * 0.009)} pages of 100)`)
          deep.push(await Scenarios.deep(target.url, keys, Number(options["deep-samples"])))
        }
        deepRows.push({ store, figures: deep.filter((d) => d !== undefined) })
      }
    } finally {
      for (const target of targets) await target.stop()
    }
  }

  const memoryRows: Array<Table.MemoryRow> = []
  for (const store of memoryStores) {
    const url = stintUrls[store]
    if (url === undefined || memoryRequests <= 0) continue
    log(`${store} memory run: ${memoryRequests} mixed requests on a fresh stint serve`)
    const target = await Targets.stint(`stint-${store}-memory`, url, work, [], observed)
    // Marks past the warm-up too, so that the table shows whether RSS levels off or keeps growing.
    const marks = [300, 5_000, 25_000, 50_000, memoryRequests]
      .filter((m, i, all) => m <= memoryRequests && all.indexOf(m) === i)
    const rss: Array<[number, number]> = [[0, Targets.rssMegabytes(target.pid)]]
    try {
      const result = await Load.run(Scenarios.mixed(keys), {
        url: target.url,
        connections,
        requests: memoryRequests,
        onResponse: (count) => {
          if (!marks.includes(count)) return
          rss.push([count, Targets.rssMegabytes(target.pid)])
          log(`${store} memory run: RSS ${rss[rss.length - 1]?.[1]} MB after ${count} requests`)
        }
      })
      for (const message of result.errorMessages) log(`${store} memory run: transport error: ${message}`)
      log(`${store} memory run: statuses ${JSON.stringify(result.statuses)}`)
      memoryRows.push({ store, rss, rps: result.rps, failed: summary([result]).failed })
    } finally {
      await target.stop()
    }
  }

  const labels = observability
    ? ["Stint observed", "Stint"]
    : againstBin !== undefined
    ? ["Stint", "against"]
    : shared === undefined
    ? ["Stint"]
    : ["Stint", "baseline"]
  process.stdout.write(`\n${Table.render({ labels, rows, deepRows, memoryRows, rounds, connections, duration: Number(options.duration), cores: cpus().length })}\n`)
  if (spanLines.length > 0) {
    process.stdout.write(`\nSpans the OTLP receiver got per request of Stint observed (one for the request, one for each of its store calls)\n\n`)
    process.stdout.write(`| store | scenario | spans per request |\n|---|---|---|\n${spanLines.join("\n")}\n`)
  }
  if (profileDir !== undefined) {
    for (const store of stores) {
      for (const label of [`stint-${store}`, `stint-${store}-plain`, `stint-${store}-against`]) {
        const file = join(profileDir, `${label}.cpuprofile`)
        if (existsSync(file)) process.stdout.write(`\n${Profile.summarize(file).join("\n")}\n`)
      }
    }
  }

  const coreOps = Number(options["core-ops"])
  if (coreOps > 0) {
    log(`the core alone (conformance/bench/core.mjs): ${coreOps} operations each on memory and SQLite`)
    // A plain module of the conformance package, so imported by a computed name (it has no type declarations).
    const coreBench = join(root, "conformance", "bench", "core.mjs")
    const core = (await import(coreBench)) as { readonly run: (options: { readonly ops: number }) => Promise<ReadonlyArray<Table.CoreRow>> }
    process.stdout.write(`\n${Table.renderCore(await core.run({ ops: coreOps }))}\n`)
  }
}

const cleanup = async () => {
  for (const f of cleanups.reverse()) await f().catch((e: unknown) => log(`cleanup: ${String(e)}`))
  rmSync(work, { recursive: true, force: true })
}
main().then(cleanup, async (error: unknown) => {
  log(error instanceof Error ? error.stack ?? error.message : String(error))
  await cleanup()
  process.exitCode = 1
})
