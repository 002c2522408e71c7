#!/usr/bin/env node
/**
 * What observing costs a request, without HTTP in the way. Runs one route through the request pipeline every
 * transport shares (`adapters/http/dist/internal/pipeline.js`), on the memory store or a SQLite file, under several
 * configurations side by side in one process: plain, metrics, traces under a sampler, both. Each configuration has
 * its own runtime and store, wired as `stint serve` wires them; every round runs each once, in a new order, so that
 * the machine's slow and fast phases fall on all alike and none always follows the same one; a traced round ends once
 * its spans are exported (`forceFlush`), so that its export is its own. Spans are exported over OTLP/HTTP to a local receiver in
 * a process of its own (`internal/otlpReceiver.mjs`), as `stint serve` exports them. Prints CPU µs per request (this
 * process's user + system time over a round), median and spread per configuration, and each one's excess over plain.
 *
 * Usage (after `npm run build`; `npm run bench:observing -- …` builds first):
 *   node bench/observing.mjs [--rounds 10] [--requests 10000] [--warmup-requests N] [--concurrency 8]
 *     [--store memory|sqlite] [--route timer|clients|entries]
 *     [--configs plain,metrics,traces-off,traces-1,traces-10,traces-on,both-10]
 *
 * Configurations: `plain`; `metrics`; `traces-off` (sampler `always_off`: every request decided unsampled);
 * `traces-1` and `traces-10` (`parentbased_traceidratio` 0.01 and 0.1); `traces-on` (`always_on`); `both-10` (metrics
 * and `traces-10`). The first round is a warm-up (V8 compiles) and not counted; `--warmup-requests` sizes it (default:
 * `--requests`). Every round's exported spans are checked against its sampler (none, all, or a share) and their number
 * per request is printed at the end. Run with `node` itself, not a TypeScript loader: a loader's rewritten imports
 * would be measured too. Not part of `npm test`. `bench/instructions.mjs` runs it under valgrind.
 */
import { MemoryStore, Settings } from "@stint/core"
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { NodeHashing, Observability, Tracing } from "@stint/http"
import * as Demo from "@stint/http/cli/Demo"
import { SqliteStore } from "@stint/sqlite"
import { Layer, Logger, ManagedRuntime } from "effect"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import * as LogWriter from "../adapters/http/dist/internal/logWriter.js"
import * as Pipeline from "../adapters/http/dist/internal/pipeline.js"
import { wholeNumber } from "./internal/args.mjs"
import * as Configs from "./internal/configs.mjs"
import { median } from "./internal/median.mjs"
import { orderOf } from "./internal/order.mjs"
import * as OtlpReceiver from "./internal/otlpReceiver.mjs"

const { values: options } = parseArgs({
  options: {
    rounds: { type: "string", default: "10" },
    requests: { type: "string", default: "10000" },
    "warmup-requests": { type: "string" },
    concurrency: { type: "string", default: "8" },
    store: { type: "string", default: "memory" },
    route: { type: "string", default: "timer" },
    configs: { type: "string", default: "plain,metrics,traces-off,traces-10,both-10" }
  }
})

const path = Configs.routePath(options.route)
if (options.store !== "memory" && options.store !== "sqlite") throw new Error("--store takes memory or sqlite")

const chosen = Configs.chosen(options.configs)

/** The demo data of `stint serve --demo` (a workspace, its owner, a client with a project): the owner's key. */
const seeded = Effect.map(Demo.ensure, (demo) => Option.getOrThrow(demo).key)

/** One configuration's runtime, wired as `stint serve` wires it (the SDK reads its sampler from the environment). */
const prepare = async (config, endpoint, dir) => {
  const names = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG"]
  const saved = names.map((name) => [name, process.env[name]])
  if (config.sampler !== undefined) {
    process.env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
    process.env["OTEL_TRACES_SAMPLER"] = config.sampler[0]
    if (config.sampler[1] === undefined) delete process.env["OTEL_TRACES_SAMPLER_ARG"]
    else process.env["OTEL_TRACES_SAMPLER_ARG"] = config.sampler[1]
  }
  // What `Tracing.otlpProcessor` makes (protobuf unless `OTEL_EXPORTER_OTLP_PROTOCOL` is `http/json`), with a handle
  // on the exporter for `flush`.
  const Exporter = Tracing.protocolOf(process.env) === "http/json" ? JsonExporter : ProtobufExporter
  const exporter = config.sampler === undefined ? undefined : new Exporter()
  const processors = exporter === undefined ? [] : [new BatchSpanProcessor(exporter)]
  // Without the unsampled stand-in, as `stint serve` runs (its stores make no spans that are recorded).
  const observing = {
    metrics: config.metrics ? { port: 0 } : undefined,
    spanProcessors: processors,
    unsampledParent: false
  }
  const store = options.store === "memory"
    ? MemoryStore.layerMemory
    : SqliteStore.layer({ filename: join(dir, `${config.name}.db`), synchronous: "NORMAL" })
  const managed = ManagedRuntime.make(Layer.mergeAll(
    Observability.storeLayer(observing).pipe(Layer.provideMerge(store)),
    NodeHashing.layer,
    // No 429s, and a window of one millisecond: the key's hits in it stay few, as under the default policy.
    Layer.succeed(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 1e9, windowMillis: 1 } }),
    Logger.json,
    Observability.layer(observing)
  ))
  const runtime = await managed.runtime()
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  const key = await managed.runPromise(seeded)
  // Lines are built and queued as `stint serve` does, then dropped instead of written.
  const runner = Pipeline.runner(runtime, {
    log: LogWriter.make({ sink: () => {} }),
    observer: Observability.hooks(Observability.shapeOf(observing))
  })
  // A round ends once its spans are exported: a batch left in the processor would be exported in a later round, often
  // another configuration's. The processor's flush exports what it still holds; the exporter's waits for the batches
  // it is still sending (one the processor sent when it filled up, say).
  const flush = async () => {
    await Promise.all(processors.map((processor) => processor.forceFlush()))
    await exporter?.forceFlush()
  }
  return { config, runner, key, flush, close: () => managed.dispose() }
}

/** Runs `count` requests, `concurrency` at a time; answers CPU µs per request. */
const round = (prepared, count, concurrency) =>
  new Promise((resolve, reject) => {
    const authorization = `Bearer ${prepared.key}`
    const incoming = {
      method: "GET",
      url: path,
      header: (name) => name === "authorization" ? authorization : name === "host" ? "localhost" : undefined,
      body: () => {
        throw new Error("no body")
      }
    }
    let started = 0
    let answered = 0
    const cpu = process.cpuUsage()
    // The memory store answers synchronously: each next request is started from the event loop, as a socket's
    // would be, not from inside the last one's completion (which would recurse).
    const next = () => {
      if (started === count) return
      started++
      prepared.runner.run(incoming, (response) => {
        if (response.status !== 200) return reject(new Error(`${path} answered ${response.status}: ${response.body}`))
        answered++
        if (answered < count) return setImmediate(next)
        prepared.flush().then(() => {
          const used = process.cpuUsage(cpu)
          resolve((used.user + used.system) / count)
        }, reject)
      })
    }
    for (let i = 0; i < concurrency; i++) next()
  })

const main = async (receiver, dir) => {
  const prepared = []
  for (const config of chosen) prepared.push(await prepare(config, receiver.endpoint, dir))
  const rounds = Number(options.rounds)
  const requests = wholeNumber("--requests", options.requests)
  const warmupRequests = wholeNumber("--warmup-requests", options["warmup-requests"] ?? options.requests)
  const concurrency = Number(options.concurrency)
  const figures = new Map(chosen.map((config) => [config.name, []]))
  const spanCounts = new Map()
  console.log(
    `GET ${path} on ${options.store}: ${requests} requests a round, ${concurrency} in flight, ${rounds} rounds ` +
      `after a warm-up of ${warmupRequests}`
  )
  for (let r = 0; r <= rounds; r++) {
    const line = []
    for (const one of orderOf(prepared, r)) {
      const before = await receiver.spans()
      const size = r === 0 ? warmupRequests : requests
      const micros = await round(one, size, concurrency)
      // The round ended once its spans were exported (`flush`): they are all counted now, and only they.
      const spans = (await receiver.spans()) - before
      checkSpans(one.config, spans, size)
      if (r > 0) {
        figures.get(one.config.name).push(micros)
        spanCounts.set(one.config.name, (spanCounts.get(one.config.name) ?? 0) + spans)
      }
      line.push(`${one.config.name} ${micros.toFixed(1)}`)
    }
    console.log(`${r === 0 ? "warm-up" : `round ${r}`}: ${line.join(", ")}`)
  }
  const plain = figures.get("plain")
  const base = plain === undefined ? undefined : median(plain)
  console.log(`\nCPU µs per request, median [min..max] of ${rounds} rounds`)
  for (const [name, values] of figures) {
    const mid = median(values)
    const over = base === undefined || name === "plain"
      ? ""
      : `  ${mid >= base ? "+" : ""}${(mid - base).toFixed(1)} (x${(mid / base).toFixed(2)})`
    console.log(
      `${name.padEnd(11)} ${mid.toFixed(1).padStart(6)} [${Math.min(...values).toFixed(1)}..${
        Math.max(...values).toFixed(1)
      }]${over}`
    )
  }
  for (const one of prepared) await one.close()
  console.log(`\nspans exported per request, sampled or not (a sampled one's and its store calls')`)
  for (const config of chosen) {
    if (config.sampler === undefined) continue
    const perRequest = (spanCounts.get(config.name) ?? 0) / (requests * rounds)
    console.log(`${config.name.padEnd(11)} ${perRequest.toFixed(3)}  (${config.sampler.join(" ")})`)
  }
}

/**
 * What a round's exported spans must be: none under `always_off`; under `always_on` the same whole number per request
 * (its span and one per store call); under a ratio, fewer than that, and some when the round is large enough to
 * sample a few requests (checked loosely: the ratio is random).
 */
const checkSpans = (config, spans, requests) => {
  const sampler = config.sampler?.[0]
  const fail = (what) => {
    throw new Error(`${config.name}: ${spans} spans exported for ${requests} requests, ${what}`)
  }
  if (sampler === undefined || sampler === "always_off") {
    if (spans !== 0) fail("expected none")
  } else if (sampler === "always_on") {
    if (spans < 2 * requests || spans % requests !== 0) fail("expected a whole number of at least 2 per request")
  } else if (spans >= 2 * requests || (spans === 0 && requests * Number(config.sampler[1]) >= 20)) {
    // No span at all is expected only when the round samples few requests (0.99^requests at 1%).
    fail(`expected a share under ${config.sampler.join(" ")}`)
  }
}

const receiver = await OtlpReceiver.start()
const dir = mkdtempSync(join(tmpdir(), "stint-observing-"))
try {
  await main(receiver, dir)
} finally {
  await receiver.stop()
  rmSync(dir, { recursive: true, force: true })
}
