/**
 * The metrics listener: `GET /metrics` in Prometheus' text format on its own host and port, never on the API's. The
 * exposition is OpenTelemetry's Prometheus exporter reading Effect's metric registry through `@effect/opentelemetry`;
 * gauges (pool, memory, event-loop lag) are sampled at each scrape.
 *
 * @since 0.1.0
 */
import * as OtelMetrics from "@effect/opentelemetry/Metrics"
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus"
import type { MetricProducer } from "@opentelemetry/sdk-metrics"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { PoolStats, type PoolStatsShape } from "./internal/poolStats.js"
import * as StintResource from "./internal/resource.js"
import * as Metrics from "./Metrics.js"

/**
 * Where to listen.
 *
 * @since 0.1.0
 */
export interface Options {
  /** Default `127.0.0.1`: metrics are for the operator's scraper, not the world. */
  readonly host?: string | undefined
  /** `0` picks a free port. */
  readonly port: number
}

/**
 * The listener could not be opened (the port is taken, say).
 *
 * @since 0.1.0
 */
export class MetricsListenError extends Schema.TaggedError<MetricsListenError>()("MetricsListenError", {
  host: Schema.String,
  port: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `cannot serve metrics on ${this.host}:${this.port}: ${this.reason}`
  }
}

/**
 * The running listener.
 *
 * @since 0.1.0
 */
export class MetricsServer extends Context.Tag("@stint/http/MetricsServer")<MetricsServer, {
  readonly hostname: string
  readonly port: number
  /** `http://HOST:PORT/metrics`. */
  readonly url: string
}>() {}

/** How often the event-loop monitor's timer runs. */
const LAG_RESOLUTION_MILLIS = 10

/** Refreshes the gauges that describe the present moment, just before each collection. */
const sampler = (pool: Option.Option<PoolStatsShape>) => {
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MILLIS })
  lag.enable()
  const inUse = Metrics.labels(["state", "in_use"])
  const idle = Metrics.labels(["state", "idle"])
  const quantiles = (["mean", "p50", "p99", "max"] as const).map((q) => [q, Metrics.labels(["stat", q])] as const)
  const sample = () => {
    Metrics.residentMemory.unsafeUpdate(process.memoryUsage.rss(), [])
    for (const [q, labels] of quantiles) {
      const nanos = q === "mean" ? lag.mean : q === "max" ? lag.max : lag.percentile(q === "p50" ? 50 : 99)
      // The monitor measures whole intervals between its timer's runs: the lag is what exceeds the interval.
      const seconds = Number.isFinite(nanos) ? Math.max(0, nanos / 1e6 - LAG_RESOLUTION_MILLIS) / 1000 : 0
      Metrics.eventLoopLag.unsafeUpdate(seconds, labels)
    }
    lag.reset()
    if (Option.isSome(pool)) {
      const usage = pool.value.usage()
      Metrics.poolConnections.unsafeUpdate(usage.total - usage.idle, inUse)
      Metrics.poolConnections.unsafeUpdate(usage.idle, idle)
      Metrics.poolWaiting.unsafeUpdate(usage.waiting, [])
      Metrics.poolMax.unsafeUpdate(usage.max, [])
    }
  }
  return { sample, stop: () => lag.disable() }
}

const listen = (server: Http.Server, host: string, port: number) =>
  Effect.async<AddressInfo, MetricsListenError>((resume) => {
    const onError = (error: NodeJS.ErrnoException) =>
      resume(Effect.fail(new MetricsListenError({ host, port, reason: error.code ?? error.message })))
    server.once("error", onError)
    server.listen({ host, port }, () => {
      server.off("error", onError)
      resume(Effect.succeed(server.address() as AddressInfo))
    })
  })

/**
 * Serves `GET /metrics` on `host:port` for as long as the layer's scope is open; every other path answers 404. The
 * database pool gauges appear when the context holds `PgStore.PoolStats` (PostgreSQL).
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<MetricsServer, MetricsListenError> =>
  Layer.scoped(
    MetricsServer,
    Effect.gen(function*() {
      const host = options.host ?? "127.0.0.1"
      // Counters without labels show 0 from the first scrape on, not only once they first move.
      for (const counter of Metrics.unlabelled) counter.register()
      Metrics.presetLabelled()
      const gauges = sampler(yield* Effect.serviceOption(PoolStats))
      yield* Effect.addFinalizer(() => Effect.sync(gauges.stop))
      const exporter = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true })
      // The spans' resource, so that metrics and traces join on service.name (OTEL_SERVICE_NAME and
      // OTEL_RESOURCE_ATTRIBUTES included).
      const producer = yield* Effect.provide(OtelMetrics.makeProducer, StintResource.layer)
      const sampling: MetricProducer = {
        collect: (collectOptions) => {
          gauges.sample()
          return producer.collect(collectOptions)
        }
      }
      // Shuts the exporter down with the scope.
      yield* OtelMetrics.registerProducer(sampling, () => exporter)
      const server = Http.createServer((request, response) => {
        const path = (request.url ?? "").split("?")[0]
        if (path === "/metrics" && (request.method === "GET" || request.method === "HEAD")) {
          exporter.getMetricsRequestHandler(request, response)
        } else {
          response.writeHead(404, { "content-type": "text/plain" }).end("Not found: metrics are at /metrics\n")
        }
      })
      const address = yield* Effect.acquireRelease(listen(server, host, options.port), () =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        }))
      const hostname = address.address.includes(":") ? `[${address.address}]` : address.address
      return { hostname: address.address, port: address.port, url: `http://${hostname}:${address.port}/metrics` }
    })
  )
