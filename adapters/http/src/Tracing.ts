/**
 * OpenTelemetry tracing for Stint: Effect's tracer backed by the OpenTelemetry SDK (`@effect/opentelemetry`), with
 * spans exported over OTLP/HTTP when the standard `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: as protobuf, the standard's default, or as JSON when
 * `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` (or `OTEL_EXPORTER_OTLP_PROTOCOL`) is `http/json`. The exporter reads the other
 * standard variables itself (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_TRACES_SAMPLER`,
 * `OTEL_SERVICE_NAME`, …).
 *
 * @since 0.1.0
 */
import * as NodeSdk from "@effect/opentelemetry/NodeSdk"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base"
import type { NonEmptyReadonlyArray } from "effect/Array"
import * as Config from "effect/Config"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as EffectTracer from "effect/Tracer"
import * as OtelSpan from "./internal/otelSpan.js"
import * as StintResource from "./internal/resource.js"
import * as TracingEnabled from "./internal/tracingEnabled.js"

/**
 * Whether spans are to be exported: an OTLP endpoint is set, the SDK is not disabled (`OTEL_SDK_DISABLED=true`), and
 * `OTEL_TRACES_EXPORTER` is not `none`. (Read without loading this module's OpenTelemetry dependencies from
 * `internal/tracingEnabled.ts`, where `stint serve` reads it.)
 *
 * @since 0.1.0
 */
export const enabledConfig: Config.Config<boolean> = TracingEnabled.config

/**
 * How spans go over OTLP/HTTP: `http/protobuf` (the OpenTelemetry standard's default) or `http/json`.
 *
 * @since 0.1.0
 */
export type Protocol = "http/protobuf" | "http/json"

/**
 * The protocol the standard variables ask for: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`;
 * `http/protobuf` when neither is set, and for a value Stint does not speak (`grpc`: `stint serve` warns about it).
 *
 * @since 0.1.0
 */
export const protocolOf = (env: Readonly<Record<string, string | undefined>>): Protocol => {
  const traces = env["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"]?.trim().toLowerCase()
  const chosen = traces === undefined || traces === "" ? env["OTEL_EXPORTER_OTLP_PROTOCOL"]?.trim().toLowerCase() : traces
  return chosen === "http/json" ? "http/json" : "http/protobuf"
}

/**
 * A batching processor over the SDK's OTLP/HTTP exporter for `protocol` (by default the one the standard variables
 * ask for, `protocolOf`), configured by the standard environment variables.
 *
 * Both exporters are imported, though one is used: they share their transport and transform packages, and the second
 * one loaded took 3 to 4 ms (measured on Node 20, after the first one's 25 to 40 ms), not worth making this function
 * asynchronous or loading one through `require` (a second, CommonJS copy of the SDK's packages).
 *
 * @since 0.1.0
 */
export const otlpProcessor = (protocol: Protocol = protocolOf(process.env)): SpanProcessor =>
  new BatchSpanProcessor(protocol === "http/json" ? new JsonExporter() : new ProtobufExporter())

/**
 * Spans of libraries inside the store that are not exported: the SQL client's (`sql.execute` per statement, with its
 * text). They would double the spans of a request on SQLite for little news: the store call's span says enough.
 */
const isDropped = (name: string): boolean => name.startsWith("sql.")

/** A span that records nothing (it still carries ids and a parent, should anything ask). */
const droppedSpan = (
  name: string,
  parent: Option.Option<EffectTracer.AnySpan>,
  context: Context.Context<never>,
  links: ReadonlyArray<EffectTracer.SpanLink>,
  startTime: bigint,
  kind: EffectTracer.SpanKind
): EffectTracer.Span => {
  const span: { -readonly [K in keyof EffectTracer.Span]: EffectTracer.Span[K] } = {
    _tag: "Span",
    name,
    spanId: "0000000000000000",
    traceId: Option.match(parent, { onNone: () => "00000000000000000000000000000000", onSome: (p) => p.traceId }),
    parent,
    context,
    status: { _tag: "Started", startTime },
    attributes: new Map(),
    links,
    sampled: false,
    kind,
    attribute: () => {},
    event: () => {},
    addLinks: () => {},
    end: (endTime, exit) => {
      span.status = { _tag: "Ended", startTime, endTime, exit }
    }
  }
  return span
}

/**
 * Effect's own tracer's `context` (it runs the step as it is), taken from the default runtime. Effect calls a fiber's
 * tracer's `context` around every step it runs, start-up's fibers under the built-in tracer and requests' under ours:
 * the very same function keeps that call site monomorphic. A function of our own doing the same showed up with about
 * 1 µs of self time a request in one CPU profile of `stint serve` (not in another: V8 inlined it there).
 */
const runStep: EffectTracer.Tracer["context"] = Effect.runSync(Effect.tracer).context

/**
 * Effect's tracer on the OpenTelemetry tracer, with spans of our own (`internal/otelSpan.ts`) instead of
 * `@effect/opentelemetry`'s: the same OpenTelemetry spans, made for a fraction of the cost (the parent's context built
 * once, the SDK's clock). Without `@effect/opentelemetry`'s context hook either: that hook enters OpenTelemetry's
 * active context around every step of every traced fiber, for OpenTelemetry-instrumented libraries called inside;
 * Stint calls none (spans find their parents through Effect), so the hook would only cost.
 */
const effectTracer = (
  processors: ReadonlyArray<SpanProcessor>,
  ids: OtelSpan.RequestIds
): Layer.Layer<never, never, OtelTracer.OtelTracer> =>
  Layer.unwrapEffect(
    Effect.map(OtelTracer.OtelTracer, (otel) =>
      Layer.setTracer(OtelSpan.register(
        EffectTracer.make({
          span: (name, parent, context, links, startTime, kind, options) =>
            isDropped(name)
              ? droppedSpan(name, parent, context, links, startTime, kind)
              : new OtelSpan.Span(otel, name, parent, context, links, startTime, kind, options?.root === true),
          context: runStep
        }),
        otel,
        processors,
        ids
      )))
  )

const isList = (
  processors: SpanProcessor | NonEmptyReadonlyArray<SpanProcessor>
): processors is NonEmptyReadonlyArray<SpanProcessor> => Array.isArray(processors)

/**
 * Effect's tracer on an OpenTelemetry tracer provider that hands every ended span to `processors`; the resource is
 * `service.name` `stint` (or `OTEL_SERVICE_NAME`) plus `OTEL_RESOURCE_ATTRIBUTES`. Provide it to the layers whose
 * fibers should be traced (`Server.layer`). When its scope closes, pending spans are flushed (3 s at most).
 *
 * @since 0.1.0
 */
export const layer = (
  processors: SpanProcessor | NonEmptyReadonlyArray<SpanProcessor>
): Layer.Layer<OtelTracer.OtelTracer> => {
  // The SDK draws span ids from this generator, so that a request's sampling decision can be made before its span.
  const ids = new OtelSpan.RequestIds()
  return effectTracer(isList(processors) ? processors : [processors], ids).pipe(
    Layer.provideMerge(OtelTracer.layerTracer),
    Layer.provide(NodeSdk.layerTracerProvider(processors, { idGenerator: ids })),
    Layer.provide(StintResource.layer)
  )
}
