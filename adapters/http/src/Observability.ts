/**
 * What operators see of a running server, switched on as a whole: the request hooks the HTTP pipeline calls (its
 * `Observer`: a span per request, the request metrics, the trace id for the log line), the layer that turns metrics
 * and tracing on, and the matching `Store` decorator. Off, there are no hooks and no decorator: nothing runs.
 *
 * @since 0.1.0
 */
import * as Headers from "@effect/platform/Headers"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import * as OtelApi from "@opentelemetry/api"
import { W3CTraceContextPropagator } from "@opentelemetry/core"
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Store } from "@stint/core"
import * as Arr from "effect/Array"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Runtime from "effect/Runtime"
import * as Tracer from "effect/Tracer"
import * as Metrics from "./Metrics.js"
import * as MetricsServer from "./MetricsServer.js"
import * as ObservedStore from "./ObservedStore.js"
import type * as Observer from "./Observer.js"
import * as HttpMethod from "./internal/httpMethod.js"
import * as LogFields from "./internal/logFields.js"
import * as OtelSpan from "./internal/otelSpan.js"
import * as Tracing from "./Tracing.js"

/**
 * What is switched on.
 *
 * @since 0.1.0
 */
export interface ObserverShape {
  readonly metrics: boolean
  readonly tracing: boolean
  /**
   * With tracing, whether a request the sampler does not sample still runs under a stand-in span: its ids, not
   * sampled, as Effect's parent span. An Effect span made inside the request (a store's own `Effect.withSpan`) is then
   * its child, not sampled either, where with no parent it would start a trace of its own, which the sampler might
   * keep; and `Effect.currentSpan` inside it answers the ids of the request's log line. It costs a context of its own
   * for every such request (a few µs: `adapters/http/README.md`, Operating Stint, Cost), so turn it off when nothing
   * inside a request makes spans of its own: Stint's SQLite and PostgreSQL stores make none that are recorded
   * (`Tracing` drops the SQL client's), and `stint serve` turns it off. Without it, a request that is not sampled runs
   * under whatever span was current when it arrived: when that is a sampled span of `Tracing`'s (an embedder running
   * requests inside a span of its own, under a sampler that does not follow its parent), the request's store calls
   * become that span's children. Default `true`.
   */
  readonly unsampledParent?: boolean | undefined
}

/** Span attributes, after the OpenTelemetry HTTP conventions where one exists. */
const STATUS = "http.response.status_code"

/** Why a request span ended in error: the request was answered with a 5xx. */
class ServerErrorResponse extends Error {}

const endExit = (span: Tracer.Span, exit: Exit.Exit<unknown, unknown>): Exit.Exit<unknown, unknown> => {
  const status = span.attributes.get(STATUS)
  return Exit.isSuccess(exit) && typeof status === "number" && status >= 500
    ? Exit.fail(new ServerErrorResponse(`answered ${status} ${String(span.attributes.get("stint.error_code") ?? "")}`))
    : exit
}

/** The headers a caller's trace context may come in, for a tracer other than `Tracing`'s (Effect's parsing). */
const TRACE_HEADERS = ["traceparent", "tracestate", "b3", "x-b3-traceid", "x-b3-spanid", "x-b3-sampled"] as const

/**
 * The caller's trace context as Effect reads it (W3C `traceparent`, or B3, as Effect's own HTTP server does), for a
 * tracer other than `Tracing`'s. Most requests send none: then no headers are parsed.
 */
const callerSpan = (arrived: Observer.Arrived): Option.Option<Tracer.AnySpan> => {
  let sent: Record<string, string> | undefined
  for (const name of TRACE_HEADERS) {
    const value = arrived.header(name)
    if (value !== undefined) (sent ??= {})[name] = value
  }
  return sent === undefined ? Option.none() : HttpTraceContext.fromHeaders(Headers.unsafeFromRecord(sent))
}

const w3c = new W3CTraceContextPropagator()
const fromArrived: OtelApi.TextMapGetter<Observer.Arrived> = {
  get: (arrived, name) => arrived.header(name),
  keys: () => []
}

/**
 * The caller's trace context under `Tracing`'s tracer: OpenTelemetry's W3C Trace Context propagator, the SDK's default
 * (`traceparent` exactly as the standard writes it, lowercase hex and not all zeros, else ignored; `tracestate` kept
 * and passed on to the request's spans). The OpenTelemetry context to start the request span in, and the caller's span
 * as Effect sees it.
 */
const callerContext = (
  arrived: Observer.Arrived
): { readonly context: OtelApi.Context; readonly span: Tracer.ExternalSpan } | undefined => {
  if (arrived.header("traceparent") === undefined) return undefined
  const context = w3c.extract(OtelApi.ROOT_CONTEXT, arrived, fromArrived)
  const caller = OtelApi.trace.getSpanContext(context)
  if (caller === undefined) return undefined
  return {
    context,
    span: Tracer.externalSpan({
      traceId: caller.traceId,
      spanId: caller.spanId,
      sampled: (caller.traceFlags & OtelApi.TraceFlags.SAMPLED) !== 0
    })
  }
}

/** A request span's ids, as the request's log line shows them. */
class TraceFields extends LogFields.LogFields {
  readonly [name: string]: string
  constructor(readonly traceId: string, readonly spanId: string) {
    super()
  }
  [LogFields.addTo](annotations: Record<string, unknown>): void {
    annotations["traceId"] = this.traceId
    annotations["spanId"] = this.spanId
  }
}

/**
 * The ids of a request the sampler did not sample: nothing else is made for such a request (no Effect span, no context
 * change, no store-call spans).
 */
class UnsampledFields extends TraceFields {}

/**
 * The ids of a request sampled under `Tracing`'s tracer, and its span, annotated when the request completes (kept in
 * a private field: not a field of the log line, not copied by a spread, not shown by `util.inspect`).
 */
class SampledFields extends TraceFields {
  readonly #span: OtelSpan.Span
  constructor(span: OtelSpan.Span) {
    super(span.traceId, span.spanId)
    this.#span = span
  }
  static spanOf(fields: SampledFields): OtelSpan.Span {
    return fields.#span
  }
}

/**
 * Where a request's ids are kept, sampled or not, for its log line (also when its client abandons it): on the request
 * object the pipeline hands every hook, under a symbol of this module. A `WeakMap` by request (or by fiber) costs more:
 * an entry per request in an ephemeron table that every garbage collection must walk.
 */
const IDS: unique symbol = Symbol("@stint/http/Observability/ids")

/**
 * The span `begin` started a request's fiber under (the request's, or its unsampled stand-in), or `UNSAMPLED` for a
 * request it gave none, until `traced` takes it: so that `traced` knows the fiber already runs under it, and ends it if
 * it is sampled (what `begin` starts, only `traced` ends).
 */
const BEGUN: unique symbol = Symbol("@stint/http/Observability/begun")

/**
 * What `BEGUN` holds for a request `begin` decided not to sample and gave no stand-in (`ObserverShape.unsampledParent`
 * off): its fiber starts in the runtime's own context, and `traced` has nothing to install or end.
 */
const UNSAMPLED: unique symbol = Symbol("@stint/http/Observability/unsampled")

interface WithIds {
  [IDS]?: TraceFields
  [BEGUN]?: Tracer.AnySpan | typeof UNSAMPLED | undefined
}

const idsOf = (arrived: Observer.Arrived): TraceFields | undefined => (arrived as WithIds)[IDS]

const keepIds = (arrived: Observer.Arrived, fields: TraceFields): void => {
  ;(arrived as WithIds)[IDS] = fields
}

const SERVER_SPAN = { kind: "server", captureStackTrace: false } as const

/**
 * The span a request runs under, decided before anything of it runs, its ids kept on the request for the log line.
 *
 * Under `Tracing`'s tracer the sampling decision comes first: for a request with no trace around it (no caller's
 * context, no current span), the tracer's sampler is asked about new ids before any span exists
 * (`OtelSpan.decideRoot`); otherwise the OpenTelemetry span is started and its flags say. A sampled request gets an
 * Effect span of ours (`OtelSpan.Span`, kept on the request for `completed`). One that is not sampled gets no span
 * at all, only a stand-in carrying its ids, not sampled (`Tracer.externalSpan`): an Effect span made inside it (an
 * embedder's store using `Effect.withSpan`) is then its child and not sampled either, where with no parent it would
 * start a trace of its own, which the sampler might keep. Without `standIn` (`ObserverShape.unsampledParent` off), not
 * even that: `undefined`, and the request runs under whatever span was current. The caller is the fiber's current span
 * when `current`, else none.
 */
const decide = (
  otel: OtelApi.Tracer,
  clock: Clock.Clock,
  arrived: Observer.Arrived,
  current: Option.Option<Tracer.AnySpan>,
  standIn: boolean
): Tracer.AnySpan | undefined => {
  const caller = callerContext(arrived)
  const parent = caller === undefined ? current : Option.some(caller.span)
  // A request with no trace around it (most): the sampler is asked first, and only a sampled one gets a span.
  const name = HttpMethod.spanWord(arrived.method)
  const decided = Option.isNone(parent) ? OtelSpan.decideRoot(otel, name, "server") : undefined
  if (decided !== undefined && (decided.traceFlags & OtelApi.TraceFlags.SAMPLED) === 0) {
    return unsampled(arrived, decided.traceId, decided.spanId, standIn)
  }
  const started = decided !== undefined
    ? OtelSpan.startDecided(otel, name, "server", decided)
    : OtelSpan.start(otel, name, "server", caller === undefined ? OtelSpan.contextOf(parent) : caller.context)
  const ids = started.spanContext()
  if ((ids.traceFlags & OtelApi.TraceFlags.SAMPLED) === 0) {
    // A sampler may record without sampling (none of the standard ones does): such a span is exported by nobody.
    if (started.isRecording()) started.end()
    return unsampled(arrived, ids.traceId, ids.spanId, standIn)
  }
  const span = new OtelSpan.Span(
    otel,
    name,
    parent,
    Context.empty(),
    [],
    clock.unsafeCurrentTimeNanos(),
    "server",
    false,
    started
  )
  methodOf(span, arrived.method)
  keepIds(arrived, new SampledFields(span))
  return span
}

/** The stand-in parent of a request that is not sampled, when one is wanted (see `decide`); its ids kept either way. */
const unsampled = (
  arrived: Observer.Arrived,
  traceId: string,
  spanId: string,
  standIn: boolean
): Tracer.ExternalSpan | undefined => {
  keepIds(arrived, new UnsampledFields(traceId, spanId))
  return standIn ? Tracer.externalSpan({ traceId, spanId, sampled: false }) : undefined
}

/**
 * What `begin` reads of a runtime: `Tracing`'s OpenTelemetry tracer (when the runtime's tracer is ours), its clock, and
 * its parent span (usually none).
 */
interface RuntimeTracing {
  readonly otel: OtelApi.Tracer | undefined
  readonly clock: Clock.Clock
  readonly parent: Option.Option<Tracer.AnySpan>
}

/** What `begin` read of each runtime (a runtime never changes; a runner asks with the same one every time). */
const runtimeTracing = new WeakMap<Runtime.Runtime<never>, RuntimeTracing>()

const tracingOf = (runtime: Runtime.Runtime<never>): RuntimeTracing => {
  let found = runtimeTracing.get(runtime)
  if (found === undefined) {
    const services = FiberRefs.getOrDefault(runtime.fiberRefs, DefaultServices.currentServices)
    found = {
      otel: OtelSpan.otelTracerOf(Context.get(services, Tracer.Tracer)),
      clock: Context.get(services, Clock.Clock),
      parent: Context.getOption(runtime.context as Context.Context<never>, Tracer.ParentSpan)
    }
    runtimeTracing.set(runtime, found)
  }
  return found
}

/**
 * `begin`: the request's span decided before its fiber starts (`decide`), and the runtime's context with it as the
 * parent span, so that the fiber starts under it with no fiber-ref write; the runtime's own context for a request that
 * is not sampled when `standIn` is off. Under another tracer, nothing (`traced` decides in the fiber).
 */
const beginWith = (standIn: boolean) =>
<R>(arrived: Observer.Arrived, runtime: Runtime.Runtime<R>): Context.Context<R> | undefined => {
  const { clock, otel, parent } = tracingOf(runtime as Runtime.Runtime<never>)
  if (otel === undefined) return undefined
  const span = decide(otel, clock, arrived, parent, standIn)
  ;(arrived as WithIds)[BEGUN] = span ?? UNSAMPLED
  return span === undefined ? undefined : Context.add(runtime.context, Tracer.ParentSpan, span)
}

/**
 * Runs `self` inside the request's server span: a child of the caller's trace context when one was sent (else of the
 * fiber's current span, if any).
 *
 * When `begin` ran, the fiber already runs under the request's span, or its unsampled stand-in (or, without `standIn`,
 * under nothing of the request's): a sampled span is ended when `self` ends. Otherwise the span is decided here
 * (`decide`) and installed as the fiber's parent span by setting the fiber's context, put back when `self` ends:
 * `Effect.withParentSpan` would do the same through an acquire/use/release region, and `Effect.onExit` through an
 * uninterruptible one, each several times the cost of the plain success/failure continuation used here. That
 * continuation does not run when the fiber is interrupted (the client went away): the fiber's exit ends the span
 * then, as interrupted. It is Effect's own parent span, not a reference of ours, so that every Effect span made inside
 * the request (an embedder's store using `Effect.withSpan`), its log events and `Effect.currentSpan` see the request.
 * Under another tracer, the tracer makes the span (what `Effect.makeSpan` does, without reading span annotations and
 * links no request has).
 */
const tracedWith = (standIn: boolean) =>
<A, E, R>(arrived: Observer.Arrived, self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const begun = (arrived as WithIds)[BEGUN]
    if (begun !== undefined) {
      // Taken once: another run of this same effect (a retry, say) is another request, decided afresh.
      ;(arrived as WithIds)[BEGUN] = undefined
      if (begun === UNSAMPLED) return self
      const body = begun instanceof OtelSpan.Span ? ending(fiber, clockOf(fiber), begun, self) : self
      // The fiber started under it (a transport's runner), unless something between changed its context.
      return fiber.currentSpan === begun ? body : under(fiber, begun, body)
    }
    const clock = clockOf(fiber)
    const otel = OtelSpan.otelTracerOf(fiber.currentTracer)
    if (otel === undefined) {
      const caller = callerSpan(arrived)
      const parent = Option.isSome(caller) ? caller : Option.fromNullable(fiber.currentSpan)
      return tracedBy(fiber.currentTracer, clock, arrived, parent, self)
    }
    const span = decide(otel, clock, arrived, Option.fromNullable(fiber.currentSpan), standIn)
    if (span === undefined) return self
    return under(fiber, span, span instanceof OtelSpan.Span ? ending(fiber, clock, span, self) : self)
  })

/** The request hooks, with and without the unsampled stand-in: made once, shared by every `hooks` that asks. */
const withStandIn = { request: tracedWith(true), begin: beginWith(true) }
const withoutStandIn = { request: tracedWith(false), begin: beginWith(false) }

const clockOf = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Clock.Clock =>
  Context.get(fiber.currentDefaultServices, Clock.Clock)

/** `self` with `span` as the fiber's parent span, the fiber's context put back when it ends. */
const under = <A, E, R>(
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  span: Tracer.AnySpan,
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const outer = fiber.currentContext
  const restore = FiberRef.set(FiberRef.currentContext, outer)
  return Effect.zipRight(
    FiberRef.set(FiberRef.currentContext, Context.add(outer, Tracer.ParentSpan, span)),
    Effect.matchCauseEffect(self, {
      onFailure: (cause) => Effect.zipRight(restore, Effect.failCause(cause)),
      onSuccess: (value) => Effect.as(restore, value)
    })
  )
}

/** `self`, and the request's sampled span ended when it ends (or when the fiber ends, when it is interrupted). */
const ending = <A, E, R>(
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  clock: Clock.Clock,
  span: OtelSpan.Span,
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  // Ends the span unless already ended (`Span.end` does nothing the second time).
  const end = (exit: Exit.Exit<unknown, unknown>) => span.end(clock.unsafeCurrentTimeNanos(), endExit(span, exit))
  fiber.addObserver(end)
  return Effect.matchCauseEffect(self, {
    onFailure: (cause) => {
      end(Exit.failCause(cause))
      return Effect.failCause(cause)
    },
    onSuccess: (value) => {
      end(Exit.succeed(value))
      return Effect.succeed(value)
    }
  })
}

/** The request's method on its span, as OpenTelemetry's HTTP conventions name it (`internal/httpMethod.ts`). */
const methodOf = (span: Tracer.Span, method: string): void => {
  span.attribute("http.request.method", HttpMethod.label(method))
  if (!HttpMethod.isKnown(method)) span.attribute("http.request.method_original", method)
}

/** `traced` under a tracer other than `Tracing`'s. */
const tracedBy = <A, E, R>(
  tracer: Tracer.Tracer,
  clock: Clock.Clock,
  arrived: Observer.Arrived,
  parent: Option.Option<Tracer.AnySpan>,
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const name = HttpMethod.spanWord(arrived.method)
  const span = tracer.span(name, parent, Context.empty(), [], clock.unsafeCurrentTimeNanos(), "server", SERVER_SPAN)
  methodOf(span, arrived.method)
  keepIds(arrived, new TraceFields(span.traceId, span.spanId))
  return Effect.onExit(
    Effect.withParentSpan(self, span),
    (exit) => Effect.sync(() => span.end(clock.unsafeCurrentTimeNanos(), endExit(span, exit)))
  )
}

const noFields: Readonly<Record<string, string>> = {}

/** Names the request span after the route and gives it the outcome; answers its ids for the log line. */
const annotate = (
  record: Observer.Completed,
  arrived: Observer.Arrived
): Effect.Effect<Readonly<Record<string, string>>> => {
  const ids = idsOf(arrived)
  if (ids instanceof UnsampledFields) return Effect.succeed(ids)
  if (ids instanceof SampledFields) {
    annotateOurs(SampledFields.spanOf(ids), record)
    return Effect.succeed(ids)
  }
  return annotateCurrent(record, ids)
}

/** The outcome on one of our spans, named after the route when one matched. */
const annotateOurs = (span: OtelSpan.Span, record: Observer.Completed): void => {
  outcome(span, record)
  if (record.route !== null) span.otel.updateName(`${HttpMethod.spanWord(record.method)} ${record.route}`)
}

/** The request's outcome, as attributes of its span. */
const outcome = (span: Tracer.Span, record: Observer.Completed): void => {
  if (record.route !== null) span.attribute("http.route", record.route)
  span.attribute(STATUS, record.status)
  span.attribute("stint.request_id", record.requestId)
  if (record.keyId !== null) span.attribute("stint.key_id", record.keyId)
  if (record.code !== undefined) span.attribute("stint.error_code", record.code)
  if (record.status >= 500 && record.code !== undefined) span.attribute("error.type", record.code)
}

/**
 * `annotate` when no span was kept on the request (another tracer's, `tracedBy`): the fiber's current span is the
 * request's, `ids` its ids.
 */
const annotateCurrent = (
  record: Observer.Completed,
  ids: TraceFields | undefined
): Effect.Effect<Readonly<Record<string, string>>> =>
  Effect.withFiberRuntime((fiber) => {
    const span = fiber.currentSpan
    if (span === undefined || span._tag !== "Span") return Effect.succeed(noFields)
    const fields = ids ?? new TraceFields(span.traceId, span.spanId)
    if (span instanceof OtelSpan.Span) {
      annotateOurs(span, record)
      return Effect.succeed(fields)
    }
    outcome(span, record)
    if (record.route === null) return Effect.succeed(fields)
    const name = `${HttpMethod.spanWord(record.method)} ${record.route}`
    // Another tracer's span: rename it if it is an OpenTelemetry one.
    return OtelTracer.currentOtelSpan.pipe(
      Effect.map((otel) => {
        otel.updateName(name)
        return fields
      }),
      Effect.orElseSucceed(() => fields)
    )
  })

/** The trace and span ids of a request its client abandoned, for its log line. */
const aborted = (arrived: Observer.Arrived): Readonly<Record<string, string>> => idsOf(arrived) ?? noFields

/**
 * The hooks for what is switched on: with tracing, a server span per request named after its route
 * (`POST /api/v1/timers/start`, the method alone when no route matched, `HTTP` instead of a method that is not known:
 * `internal/httpMethod.ts`) with its method, route, status, error code, request id and key id (never the key), and
 * `traceId`/`spanId` for the log line (also of a request its client abandoned); with metrics, the request metrics
 * (an abandoned request counted in `stint_http_requests_aborted_total`).
 * Both off: no hooks at all. The hooks are a set: with tracing, `begin` starts the request's span and `request` ends
 * it, so keep them together (wrap `request` in your own, calling it, rather than replacing it).
 *
 * @since 0.1.0
 */
export const hooks = (shape: ObserverShape): Observer.Observer => {
  const record = shape.metrics ? Metrics.recordRequest : undefined
  const completed = shape.tracing
    ? (completed: Observer.Completed, arrived: Observer.Arrived) => {
      record?.(completed)
      return annotate(completed, arrived)
    }
    : record === undefined
    ? undefined
    : (completed: Observer.Completed) => {
      record(completed)
      return Effect.succeed(noFields)
    }
  // Rare (a client gone before its answer), so one function that asks what is on, rather than one per combination.
  const abandoned = shape.tracing || shape.metrics
    ? (arrived: Observer.Arrived) => {
      if (shape.metrics) Metrics.recordAborted()
      return shape.tracing ? aborted(arrived) : noFields
    }
    : undefined
  return {
    ...(shape.tracing ? shape.unsampledParent === false ? withoutStandIn : withStandIn : {}),
    ...(abandoned === undefined ? {} : { aborted: abandoned }),
    ...(completed === undefined ? {} : { completed })
  }
}

/**
 * What to switch on.
 *
 * @since 0.1.0
 */
export interface Options {
  /** Serve Prometheus metrics on this listener; no metrics when absent. */
  readonly metrics?: MetricsServer.Options | undefined
  /** Hand request and store spans to these processors; no tracing when empty or absent. */
  readonly spanProcessors?: ReadonlyArray<SpanProcessor> | undefined
  /** A request that is not sampled runs under a stand-in span (`ObserverShape.unsampledParent`). Default `true`. */
  readonly unsampledParent?: boolean | undefined
}

/**
 * What `options` switch on.
 *
 * @since 0.1.0
 */
export const shapeOf = (options: Options): ObserverShape => ({
  metrics: options.metrics !== undefined,
  tracing: (options.spanProcessors ?? []).length > 0,
  // Its default is decided in one place, by `hooks`.
  unsampledParent: options.unsampledParent
})

/**
 * The `Store` decorator that matches `options`: store-call metrics and domain events when metrics are on, child spans
 * when tracing is on. Everything else in its input context passes through.
 *
 * @since 0.1.0
 */
export const storeLayer = (options: Options): Layer.Layer<Store.Store, never, Store.Store> => {
  const shape = shapeOf(options)
  const settings = { metrics: shape.metrics, spans: shape.tracing }
  return Layer.effectContext(Effect.map(Effect.context<Store.Store>(), (context) =>
    Context.add(context, Store.Store, ObservedStore.make(Context.get(context, Store.Store), settings))))
}

/**
 * The tracer when tracing, and the metrics listener when metrics are on (its `MetricsServer` in context). Provide it
 * to `Server.layer` (whose runtime then traces), with `hooks(shapeOf(options))` as the server's `observer`, and
 * `storeLayer(options)` over the `Store`.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<never, MetricsServer.MetricsListenError> => {
  const processors = options.spanProcessors ?? []
  // A layer may provide more than its type says: the tracer and `MetricsServer` ride along.
  const tracer: Layer.Layer<never> = Arr.isNonEmptyReadonlyArray(processors) ? Tracing.layer(processors) : Layer.empty
  const metrics: Layer.Layer<never, MetricsServer.MetricsListenError> = options.metrics === undefined
    ? Layer.empty
    : MetricsServer.layer(options.metrics)
  return Layer.merge(tracer, metrics)
}
