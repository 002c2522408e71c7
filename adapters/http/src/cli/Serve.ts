/**
 * `stint serve`: the API on a host and port, the tunable policies from the environment, the demo data on request, and
 * a graceful stop on SIGINT/SIGTERM (stop accepting, finish in-flight requests, close the database).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpServer from "@effect/platform/HttpServer"
import { Settings } from "@stint/core"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Database from "../Database.js"
import { CliError, EXIT_USAGE } from "../internal/cliFailure.js"
import * as NodeHashing from "../NodeHashing.js"
import { check, database, decimal } from "../internal/cliOptions.js"
import * as Heap from "../internal/heap.js"
import * as TracingEnabled from "../internal/tracingEnabled.js"
import type * as Observability from "../Observability.js"
import * as Server from "../Server.js"
import * as Demo from "./Demo.js"

const positive = (name: string, fallback: number, integer: boolean) =>
  (integer ? Config.integer(name) : Config.number(name)).pipe(
    Config.validate({ message: "must be a positive number", validation: (n) => Number.isFinite(n) && n > 0 }),
    Config.withDefault(fallback)
  )

/**
 * The policies of a serving instance: `STINT_RATE_LIMIT` requests per key (default 120) in any window of
 * `STINT_RATE_WINDOW_SECONDS` seconds (default 60); the spec's values otherwise.
 *
 * @since 0.1.0
 */
export const settingsConfig: Config.Config<Settings.SettingsShape> = Config.all({
  limit: positive("STINT_RATE_LIMIT", Settings.defaults.rateLimit.limit, true),
  windowSeconds: positive("STINT_RATE_WINDOW_SECONDS", Settings.defaults.rateLimit.windowMillis / 1000, false)
}).pipe(Config.map(({ limit, windowSeconds }) => ({
  ...Settings.defaults,
  rateLimit: { limit, windowMillis: Math.max(1, Math.round(windowSeconds * 1000)) }
})))

/**
 * A port from the environment: decimal digits only, at most 65535. `Config.integer` would read `0x10` as 16 and `1e3`
 * as 1000, and an empty value is no port at all (the flags take neither: `decimal`).
 */
const envPort = (name: string): Config.Config<number> =>
  Config.string(name).pipe(Config.mapOrFail((text) =>
    /^[0-9]{1,5}$/.test(text.trim()) && Number(text.trim()) <= 65535
      ? Either.right(Number(text.trim()))
      : Either.left(ConfigError.InvalidData([], `must be an integer from 0 to 65535, got ${JSON.stringify(text)}`))
  ))

/** A host from the environment, not blank: an empty host would bind every interface. */
const envHost = (name: string): Config.Config<string> =>
  Config.string(name).pipe(Config.validate({ message: "must not be empty", validation: (text) => text.trim() !== "" }))

/** A host given: not blank (Node would bind every interface). */
const NonBlank = Schema.String.pipe(Schema.filter((text) => text.trim() !== ""))

const host = Options.text("host").pipe(
  Options.withPseudoName("HOST"),
  Options.withDescription("Address to listen on. Environment: STINT_HOST. Default: 127.0.0.1."),
  Options.withFallbackConfig(envHost("STINT_HOST")),
  Options.withDefault("127.0.0.1"),
  check("host", NonBlank, "an address, not empty")
)

const port = decimal("port", 65535, "an integer from 0 to 65535").pipe(
  Options.withPseudoName("PORT"),
  Options.withDescription("Port to listen on; 0 picks a free port. Environment: STINT_PORT. Default: 8787."),
  Options.withFallbackConfig(envPort("STINT_PORT")),
  Options.withDefault(8787)
)

const metricsPort = decimal("metrics-port", 65535, "an integer from 0 to 65535").pipe(
  Options.withPseudoName("PORT"),
  Options.withDescription(
    "Serve Prometheus metrics at http://METRICS_HOST:PORT/metrics, a listener of its own (never the API's port); " +
      "0 picks a free port. Environment: STINT_METRICS_PORT. Default: no metrics."
  ),
  Options.withFallbackConfig(envPort("STINT_METRICS_PORT")),
  Options.optional
)

const metricsHost = Options.text("metrics-host").pipe(
  Options.withPseudoName("HOST"),
  Options.withDescription("Address of the metrics listener. Environment: STINT_METRICS_HOST. Default: 127.0.0.1."),
  Options.withFallbackConfig(envHost("STINT_METRICS_HOST")),
  Options.withDefault("127.0.0.1"),
  check("metrics-host", NonBlank, "an address, not empty")
)

const demo = Options.boolean("demo").pipe(
  Options.withDescription(
    "When the database holds no workspace yet, create a demo workspace, owner, client and project, and print a " +
      "fresh API key once with a ready-to-paste curl line."
  )
)

/** The base URL clients should call for a bound address. */
const baseUrlOf = (address: HttpServer.Address): string =>
  address._tag === "UnixAddress"
    ? `http+unix://${address.path}`
    : `http://${Demo.reachableHost(address.hostname)}:${address.port}`

/**
 * Once the server is listening: the demo's lines (given the base URL to call), the metrics listener's address (when
 * there is one), then the ready line of `cli-and-fixtures.md`.
 */
const announce = (demoLines: (baseUrl: string) => ReadonlyArray<string>, metricsUrl: Effect.Effect<Option.Option<string>>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    for (const line of demoLines(baseUrlOf(address))) yield* Console.log(line)
    const metrics = yield* metricsUrl
    if (Option.isSome(metrics)) yield* Console.log(`metrics on ${metrics.value}`)
    // Last, so that whoever waits for it has seen every line before it.
    yield* Console.log(
      address._tag === "UnixAddress"
        ? `listening on ${address.path}`
        : `listening on http://${address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname}:${address.port}`
    )
  }))

/**
 * Metrics and traces as `options` ask for them. Their modules (OpenTelemetry's SDK and exporters, about 10 MB of a
 * serving process) are loaded only when one of them is on.
 */
const observing = (options: { readonly metricsPort: Option.Option<number>; readonly metricsHost: string }) =>
  Effect.gen(function*() {
    const tracing = yield* TracingEnabled.config
    if (Option.isNone(options.metricsPort) && !tracing) return undefined
    const [observability, metricsServer, tracer, diagnostics] = yield* Effect.promise(() =>
      Promise.all([
        import("../Observability.js"),
        import("../MetricsServer.js"),
        import("../Tracing.js"),
        import("../internal/otelDiag.js")
      ])
    )
    // OpenTelemetry's complaints (a misconfigured variable, a failed export) go to the log, before anything is built.
    diagnostics.install((line) => process.stdout.write(`${line}\n`))
    if (tracing) for (const warning of diagnostics.unsupported(process.env)) diagnostics.warn(warning)
    const chosen: Observability.Options = {
      metrics: Option.match(options.metricsPort, {
        onNone: () => undefined,
        onSome: (port) => ({ host: options.metricsHost, port })
      }),
      spanProcessors: tracing ? [tracer.otlpProcessor()] : [],
      // Its stores make no spans that are recorded: a request that is not sampled needs no stand-in span.
      unsampledParent: false
    }
    return {
      observer: observability.hooks(observability.shapeOf(chosen)),
      layer: observability.layer(chosen),
      storeLayer: observability.storeLayer(chosen),
      metricsUrl: Effect.map(Effect.serviceOption(metricsServer.MetricsServer), Option.map((server) => server.url))
    }
  })

/**
 * `stint serve [--host H] [--port P] [--database URL] [--demo]`.
 *
 * @since 0.1.0
 */
export const command = Command.make("serve", { host, port, database, demo, metricsPort, metricsHost }, (options) =>
  Effect.gen(function*() {
    // The configuration is checked before the database is opened.
    const settings = yield* settingsConfig
    if (Option.exists(options.metricsPort, (port) => port !== 0 && port === options.port)) {
      return yield* new CliError({ message: "--metrics-port must differ from --port", exitCode: EXIT_USAGE })
    }
    const observed = yield* observing(options)
    // A long-running process: keep the old generation near the live heap, and young objects young (internal/heap.ts).
    yield* Effect.sync(Heap.serving)
    yield* Effect.gen(function*() {
      const demo = options.demo ? Option.some(yield* Demo.ensure) : Option.none()
      const demoLines = (baseUrl: string) =>
        Option.match(demo, {
          onNone: () => [],
          onSome: Option.match({ onNone: () => [Demo.skipped], onSome: (made) => Demo.announcement(made, baseUrl) })
        })
      yield* Layer.launch(announce(demoLines, observed?.metricsUrl ?? Effect.succeedNone).pipe(
        Layer.provide(Server.layer({ host: options.host, port: options.port, observer: observed?.observer })),
        Layer.provide(Layer.succeed(Settings.Settings, settings)),
        Layer.provide(NodeHashing.layer),
        Layer.provide(observed?.layer ?? Layer.empty)
      ))
    }).pipe(Effect.provide(
      observed === undefined
        ? Database.layer(options.database)
        : observed.storeLayer.pipe(Layer.provide(Database.layer(options.database)))
    ))
  })).pipe(
    Command.withDescription(
      "Serve the API. Prints a line 'listening on http://HOST:PORT' when ready. SIGINT/SIGTERM: stop accepting, " +
        "finish in-flight requests, close the database, exit 0. Rate limit: STINT_RATE_LIMIT requests per key " +
        "(default 120) per STINT_RATE_WINDOW_SECONDS seconds (default 60). Metrics: --metrics-port. Traces: set " +
        "OTEL_EXPORTER_OTLP_ENDPOINT to export spans over OTLP/HTTP (the request log line then carries traceId)."
    )
  )
