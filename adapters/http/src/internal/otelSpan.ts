/**
 * Effect spans made straight on an OpenTelemetry SDK tracer, and leaf spans made without Effect at all: what
 * `Tracing`'s tracer hands Effect instead of `@effect/opentelemetry`'s spans, at a fraction of their cost per span.
 *
 * The differences that make it cheap: the parent's OpenTelemetry context is built once per parent (not per child and
 * not from OpenTelemetry's active context), times come from one clock of our own (`now`: no `bigint` conversions, the
 * same for parents and children), and a store call's span is an OpenTelemetry span only (`Leaf`), with no Effect
 * span, context copy or fiber-ref update around it, made without the SDK's tracer when its parent is a sampled SDK
 * span of a `register`ed tracer (`leafSpan.ts`).
 */
import * as OtelApi from "@opentelemetry/api"
import type { IdGenerator, Sampler, SpanProcessor } from "@opentelemetry/sdk-trace-base"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import type * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as Inspectable from "effect/Inspectable"
import * as Option from "effect/Option"
import type * as EffectTracer from "effect/Tracer"
import * as LeafSpan from "./leafSpan.js"
import * as RandomIds from "./randomIds.js"

const kinds: Record<EffectTracer.SpanKind, OtelApi.SpanKind> = {
  internal: OtelApi.SpanKind.INTERNAL,
  client: OtelApi.SpanKind.CLIENT,
  server: OtelApi.SpanKind.SERVER,
  producer: OtelApi.SpanKind.PRODUCER,
  consumer: OtelApi.SpanKind.CONSUMER
}

/** An attribute value as OpenTelemetry takes it. */
const attributeValue = (value: unknown): OtelApi.AttributeValue =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean"
    ? value
    : typeof value === "bigint"
    ? value.toString()
    : Inspectable.toStringUnknown(value)

const attributesOf = (record: Readonly<Record<string, unknown>>): OtelApi.Attributes => {
  const attributes: OtelApi.Attributes = {}
  for (const key in record) attributes[key] = attributeValue(record[key])
  return attributes
}

/** `performance.timeOrigin`, read once (a getter, not free, and constant for the process). */
const ORIGIN = performance.timeOrigin

/**
 * The time now, as OpenTelemetry's `[seconds, nanoseconds]`, from `performance.timeOrigin + performance.now()`. Every
 * span gets explicit times from this one clock: left to itself, the SDK anchors each span on `Date.now()` (whole
 * milliseconds), so a child could end up to a millisecond after its parent.
 */
export const now = (): OtelApi.HrTime => {
  const millis = ORIGIN + performance.now()
  const seconds = Math.floor(millis / 1000)
  const nanos = Math.round((millis - seconds * 1000) * 1e6)
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos]
}

/**
 * Ends an OpenTelemetry span with the status an exit calls for: on failure ERROR with the first error recorded as an
 * exception; otherwise the status stays unset, as OpenTelemetry asks of instrumentation (OK is the application's to
 * set; a request answered with a 4xx is no error of the server's). An interruption alone is no error either: it is
 * marked by the attribute `status.interrupted`.
 */
export const end = (span: OtelApi.Span, exit: Exit.Exit<unknown, unknown>): void =>
  endWith(span, exit._tag === "Success" ? undefined : exit.cause)

/** `end` with the failure's cause, `undefined` for a success (no `Exit` to allocate). */
export const endWith = (span: OtelApi.Span, cause: Cause.Cause<unknown> | undefined): void => {
  const time = now()
  if (cause !== undefined && !Cause.isEmpty(cause)) {
    if (Cause.isInterruptedOnly(cause)) {
      span.setAttribute("status.interrupted", true)
    } else {
      const first = Cause.prettyErrors(cause)[0]
      if (first !== undefined) {
        first.stack = Cause.pretty(cause, { renderErrorCause: true })
        span.recordException(first, time)
        span.setStatus({ code: OtelApi.SpanStatusCode.ERROR, message: first.message })
      }
    }
  }
  span.end(time)
}

const linkOf = (link: EffectTracer.SpanLink): OtelApi.Link => ({
  context: {
    traceId: link.span.traceId,
    spanId: link.span.spanId,
    traceFlags: link.span.sampled ? OtelApi.TraceFlags.SAMPLED : OtelApi.TraceFlags.NONE
  },
  attributes: attributesOf(link.attributes)
})

/**
 * An Effect span backed by an OpenTelemetry span of `tracer`. Its start and end times are `now`'s (the `bigint` times
 * Effect passes are kept in `status` only).
 */
export class Span implements EffectTracer.Span {
  readonly _tag = "Span"
  readonly otel: OtelApi.Span
  readonly spanId: string
  readonly traceId: string
  readonly sampled: boolean
  readonly attributes = new Map<string, unknown>()
  readonly links: Array<EffectTracer.SpanLink>
  status: EffectTracer.SpanStatus
  /** The OpenTelemetry context with this span active: the parent of children, made on first use. */
  private asParent: OtelApi.Context | undefined
  /** Leaves under this span not ended yet (see `Leaf`), made on first use. */
  private open: Array<Leaf> | undefined

  constructor(
    readonly tracer: OtelApi.Tracer,
    readonly name: string,
    readonly parent: Option.Option<EffectTracer.AnySpan>,
    readonly context: Context.Context<never>,
    links: ReadonlyArray<EffectTracer.SpanLink>,
    startTime: bigint,
    readonly kind: EffectTracer.SpanKind,
    root: boolean,
    /** The OpenTelemetry span, when already started (`start`, with no links): else started here. */
    started?: OtelApi.Span
  ) {
    this.links = [...links]
    this.otel = started ?? tracer.startSpan(
      name,
      links.length > 0
        ? { kind: kinds[kind], startTime: now(), links: links.map(linkOf) }
        : { kind: kinds[kind], startTime: now() },
      root ? OtelApi.ROOT_CONTEXT : contextOf(parent)
    )
    const spanContext = this.otel.spanContext()
    this.spanId = spanContext.spanId
    this.traceId = spanContext.traceId
    this.sampled = (spanContext.traceFlags & OtelApi.TraceFlags.SAMPLED) === OtelApi.TraceFlags.SAMPLED
    this.status = { _tag: "Started", startTime }
  }

  /** The context to start children in. */
  parentContext(): OtelApi.Context {
    return this.asParent ??= OtelApi.trace.setSpan(OtelApi.ROOT_CONTEXT, this.otel)
  }

  attribute(key: string, value: unknown): void {
    this.otel.setAttribute(key, attributeValue(value))
    this.attributes.set(key, value)
  }

  event(name: string, _startTime: bigint, attributes?: Record<string, unknown>): void {
    this.otel.addEvent(name, attributes === undefined ? undefined : attributesOf(attributes), now())
  }

  addLinks(links: ReadonlyArray<EffectTracer.SpanLink>): void {
    this.links.push(...links)
    this.otel.addLinks(links.map(linkOf))
  }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    if (this.status._tag === "Ended") return
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
    // A leaf still open here was cut short (its fiber interrupted): it ends with the span, as interrupted.
    if (this.open !== undefined && this.open.length > 0) {
      for (const leaf of this.open.splice(0)) leaf.cut()
    }
    end(this.otel, exit)
  }

  /** @internal */
  opened(leaf: Leaf): void {
    ;(this.open ??= []).push(leaf)
  }

  /** @internal */
  closed(leaf: Leaf): void {
    const open = this.open
    if (open === undefined) return
    // Usually the last one opened: store calls of a request run one after another.
    const at = open.lastIndexOf(leaf)
    if (at >= 0) open.splice(at, 1)
  }
}

/**
 * A leaf span under one of our spans (a store call): a `LeafSpan` for the tracer's processors when they are known
 * (`register`) and the parent is a recorded SDK span, else a span of the OpenTelemetry tracer; no Effect span,
 * context copy or fiber-ref update. `onEnd` runs once when its own effect ends it (the store-call metrics). The leaf
 * is ended by whoever finishes first: its own effect (success or failure), or its parent span's end (`cut`: it was
 * interrupted, so its own continuation never ran, and `onEnd` does not run either). That lets the caller wrap a store
 * call in a plain success/failure continuation instead of an uninterruptible `onExit`.
 */
export class Leaf {
  private ended = false
  readonly otel: OtelApi.Span

  constructor(
    readonly parent: Span,
    name: string,
    kind: EffectTracer.SpanKind,
    attributes: OtelApi.Attributes,
    private readonly onEnd: ((cause: Cause.Cause<unknown> | undefined) => void) | undefined
  ) {
    const processors = processorsOf.get(parent.tracer)
    this.otel = processors !== undefined && LeafSpan.isParent(parent.otel)
      ? new LeafSpan.LeafSpan(processors, parent.otel, parent.parentContext(), name, kinds[kind], attributes, now())
      : parent.tracer.startSpan(name, { kind: kinds[kind], attributes, startTime: now() }, parent.parentContext())
    parent.opened(this)
  }

  /** Ends the leaf: `undefined` for a success, else the failure's cause. Later calls do nothing. */
  end(cause: Cause.Cause<unknown> | undefined): void {
    if (this.ended) return
    this.ended = true
    this.parent.closed(this)
    this.onEnd?.(cause)
    endWith(this.otel, cause)
  }

  /** Ends the leaf as interrupted, without `onEnd`: its call was cut short by the end of its request. */
  cut(): void {
    if (this.ended) return
    this.ended = true
    endWith(this.otel, Cause.interrupt(FiberId.none))
  }
}

/**
 * The SDK's span ids, random (`randomIds.ts`), except for the one span whose ids were chosen before it started
 * (`startWith`): a request span whose sampler was asked first (`decideRoot`) gets the ids it was asked about.
 * `startSpan` runs synchronously, so nothing else can take the chosen ids.
 */
export class RequestIds implements IdGenerator {
  private readonly random = RandomIds.shared
  private traceId: string | undefined
  private spanId: string | undefined

  generateTraceId(): string {
    const chosen = this.traceId
    if (chosen === undefined) return this.random.traceId()
    this.traceId = undefined
    return chosen
  }

  generateSpanId(): string {
    const chosen = this.spanId
    if (chosen === undefined) return this.random.spanId()
    this.spanId = undefined
    return chosen
  }

  /** A new root span's ids, not yet given to any span. */
  draw(): OtelApi.SpanContext {
    return {
      traceId: this.random.traceId(),
      spanId: this.random.spanId(),
      traceFlags: OtelApi.TraceFlags.NONE
    }
  }

  /** Runs `start` (which starts one SDK span) with `ids` as the ids the SDK draws. */
  startWith(ids: OtelApi.SpanContext, start: () => OtelApi.Span): OtelApi.Span {
    this.traceId = ids.traceId
    this.spanId = ids.spanId
    try {
      return start()
    } finally {
      this.traceId = undefined
      this.spanId = undefined
    }
  }
}

/** What decides a root span before the SDK is asked to start it: the tracer's sampler, and the SDK's id generator. */
interface RootDecision {
  readonly sampler: Sampler
  readonly ids: RequestIds
}

/** The OpenTelemetry tracer under each Effect tracer made by `Tracing` (see `register`). */
const registered = new WeakMap<EffectTracer.Tracer, OtelApi.Tracer>()

/** The processors behind each OpenTelemetry tracer `register`ed: leaves go to them directly (`LeafSpan`). */
const processorsOf = new WeakMap<OtelApi.Tracer, ReadonlyArray<SpanProcessor>>()

/** The sampler and id generator of each OpenTelemetry tracer `register`ed with its `RequestIds` (see `decideRoot`). */
const rootsOf = new WeakMap<OtelApi.Tracer, RootDecision>()

/**
 * The sampler of an SDK tracer, read from the tracer itself (`_sampler`: the SDK's own field, holding the sampler its
 * provider built from `OTEL_TRACES_SAMPLER`), and only when its id generator is `ids`; else `undefined`.
 */
const rootDecisionOf = (otel: OtelApi.Tracer, ids: RequestIds): RootDecision | undefined => {
  const fields = otel as { readonly _sampler?: unknown; readonly _idGenerator?: unknown }
  const sampler = fields._sampler
  if (fields._idGenerator !== ids || typeof sampler !== "object" || sampler === null) return undefined
  return typeof (sampler as Partial<Sampler>).shouldSample === "function"
    ? { sampler: sampler as Sampler, ids }
    : undefined
}

/**
 * Records that `effect` makes its spans (ours) on `otel`, whose provider hands every span to `processors`:
 * `otelTracerOf` finds `otel` again, and leaves under its spans are made for `processors` without the SDK's tracer.
 * With `ids`, the id generator `otel`'s provider was given, a root span's sampling decision is made before the SDK
 * starts it (`decideRoot`).
 */
export const register = (
  effect: EffectTracer.Tracer,
  otel: OtelApi.Tracer,
  processors: ReadonlyArray<SpanProcessor>,
  ids?: RequestIds
): EffectTracer.Tracer => {
  registered.set(effect, otel)
  processorsOf.set(otel, processors)
  const roots = ids === undefined ? undefined : rootDecisionOf(otel, ids)
  if (roots !== undefined) rootsOf.set(otel, roots)
  return effect
}

/** Whether `decideRoot` decides for `otel` (it found the sampler). */
export const decidesRoots = (otel: OtelApi.Tracer): boolean => rootsOf.has(otel)

/**
 * A root span's sampling decision, asked of `otel`'s sampler exactly as the SDK's `startSpan` asks it (no parent,
 * new ids, the name and kind, no attributes or links), before any span is made: the ids, with `SAMPLED` when it is to
 * be recorded. Start a sampled one with `startDecided`, which hands the SDK the same ids: the samplers
 * `OTEL_TRACES_SAMPLER` names decide on the context and the trace id alone, so the SDK decides the same again. An
 * unsampled request is then no more than its ids: no span object, no ids drawn twice. `undefined` when the sampler is
 * not known: start it with `start`.
 */
export const decideRoot = (
  otel: OtelApi.Tracer,
  name: string,
  kind: EffectTracer.SpanKind
): OtelApi.SpanContext | undefined => {
  const roots = rootsOf.get(otel)
  if (roots === undefined) return undefined
  const ids = roots.ids.draw()
  // Fresh attributes and links, as the SDK passes them: a sampler may write to them.
  const result = roots.sampler.shouldSample(OtelApi.ROOT_CONTEXT, ids.traceId, name, kinds[kind], {}, [])
  if (result.decision === OtelApi.SamplingDecision.RECORD_AND_SAMPLED) ids.traceFlags = OtelApi.TraceFlags.SAMPLED
  return ids
}

/** Starts the root span `decideRoot` sampled, with its ids. */
export const startDecided = (
  otel: OtelApi.Tracer,
  name: string,
  kind: EffectTracer.SpanKind,
  ids: OtelApi.SpanContext
): OtelApi.Span => {
  const roots = rootsOf.get(otel)
  return roots === undefined
    ? start(otel, name, kind, OtelApi.ROOT_CONTEXT)
    : roots.ids.startWith(ids, () => start(otel, name, kind, OtelApi.ROOT_CONTEXT))
}

/** The OpenTelemetry tracer under `tracer` when it is `Tracing`'s (its spans are ours), else `undefined`. */
export const otelTracerOf = (tracer: EffectTracer.Tracer): OtelApi.Tracer | undefined => registered.get(tracer)

/**
 * Starts an OpenTelemetry span (no links) on `tracer` in `context`, as a `Span` would: to learn the sampler's decision
 * before making anything else (`new Span(…, started)` wraps it).
 */
export const start = (
  tracer: OtelApi.Tracer,
  name: string,
  kind: EffectTracer.SpanKind,
  context: OtelApi.Context
): OtelApi.Span => tracer.startSpan(name, { kind: kinds[kind], startTime: now() }, context)

/** The OpenTelemetry context a child of `parent` starts in: ours, a caller's, or none. */
export const contextOf = (parent: Option.Option<EffectTracer.AnySpan>): OtelApi.Context => {
  if (Option.isNone(parent)) return OtelApi.ROOT_CONTEXT
  const span = parent.value
  if (span instanceof Span) return span.parentContext()
  return OtelApi.trace.setSpanContext(OtelApi.ROOT_CONTEXT, {
    traceId: span.traceId,
    spanId: span.spanId,
    traceFlags: span.sampled ? OtelApi.TraceFlags.SAMPLED : OtelApi.TraceFlags.NONE,
    isRemote: span._tag === "ExternalSpan"
  })
}
