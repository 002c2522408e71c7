/**
 * A leaf span (a store call) made without the OpenTelemetry SDK's tracer, for the processors the SDK's spans go to.
 *
 * The SDK's span does per span what a leaf under a sampled parent needs none of: a sampling decision (a local child
 * of a sampled span is sampled under every sampler `OTEL_TRACES_SAMPLER` can name), a check of the parent's ids, a
 * second clock reading to reconcile `Date.now()` with `performance.now()`, attribute limits and sanitizing, and the
 * SDK's own span metrics. A `LeafSpan` holds what the SDK's span holds and the exporter reads (`ReadableSpan`), shares
 * its parent's resource and instrumentation scope, and goes through the same processors, `onStart` to `onEnd`, so the
 * OTLP exporter serializes it exactly like any other span. Its empty lists and its attributes are shared until
 * written, so a leaf allocates little (it is kept until its batch is exported).
 */
import * as OtelApi from "@opentelemetry/api"
import type { ReadableSpan, SpanProcessor, TimedEvent } from "@opentelemetry/sdk-trace-base"
import * as RandomIds from "./randomIds.js"

const NONE: ReadonlyArray<never> = Object.freeze([])
const UNSET: OtelApi.SpanStatus = Object.freeze({ code: OtelApi.SpanStatusCode.UNSET })

/** A random span id: 16 hex digits, never all zeros (invalid in W3C trace context). */
const spanId = RandomIds.shared.spanId

/** `end - start` as OpenTelemetry's `[seconds, nanoseconds]`. */
const duration = (start: OtelApi.HrTime, end: OtelApi.HrTime): OtelApi.HrTime => {
  let seconds = end[0] - start[0]
  let nanos = end[1] - start[1]
  if (nanos < 0) {
    seconds -= 1
    nanos += 1e9
  }
  return seconds < 0 ? [0, 0] : [seconds, nanos]
}

/** The parts of a sampled SDK span a leaf takes from its parent. */
export type Parent = Pick<ReadableSpan, "resource" | "instrumentationScope" | "spanContext">

/** Whether `span` is a recorded SDK span (a sampled parent a leaf can take its resource and scope from). */
export const isParent = (span: OtelApi.Span): span is OtelApi.Span & Parent =>
  span.isRecording() && "resource" in span && "instrumentationScope" in span

export class LeafSpan implements OtelApi.Span, ReadableSpan {
  readonly parentSpanContext: OtelApi.SpanContext
  readonly resource: ReadableSpan["resource"]
  readonly instrumentationScope: ReadableSpan["instrumentationScope"]
  readonly droppedAttributesCount = 0
  readonly droppedEventsCount = 0
  readonly droppedLinksCount = 0
  attributes: OtelApi.Attributes
  links: Array<OtelApi.Link> = NONE as Array<never>
  events: Array<TimedEvent> = NONE as Array<never>
  status: OtelApi.SpanStatus = UNSET
  endTime: OtelApi.HrTime = [0, 0]
  duration: OtelApi.HrTime = [0, 0]
  ended = false
  private readonly context: OtelApi.SpanContext
  /** Whether `attributes` is still the caller's (shared) object. */
  private sharedAttributes = true

  /**
   * Starts a leaf named `name` under `parent` at `startTime`, with `attributes` (not copied: never changed unless
   * `setAttribute` is called, which copies them first), and hands it to `processors`' `onStart`.
   */
  constructor(
    private readonly processors: ReadonlyArray<SpanProcessor>,
    parent: Parent,
    parentContext: OtelApi.Context,
    public name: string,
    readonly kind: OtelApi.SpanKind,
    attributes: OtelApi.Attributes,
    readonly startTime: OtelApi.HrTime
  ) {
    const of = parent.spanContext()
    this.parentSpanContext = of
    this.context = of.traceState === undefined
      ? { traceId: of.traceId, spanId: spanId(), traceFlags: OtelApi.TraceFlags.SAMPLED }
      : { traceId: of.traceId, spanId: spanId(), traceFlags: OtelApi.TraceFlags.SAMPLED, traceState: of.traceState }
    this.resource = parent.resource
    this.instrumentationScope = parent.instrumentationScope
    this.attributes = attributes
    for (const processor of processors) processor.onStart(this as never, parentContext)
  }

  spanContext(): OtelApi.SpanContext {
    return this.context
  }

  setAttribute(key: string, value: OtelApi.AttributeValue): this {
    if (this.ended) return this
    if (this.sharedAttributes) {
      this.attributes = { ...this.attributes }
      this.sharedAttributes = false
    }
    this.attributes[key] = value
    return this
  }

  setAttributes(attributes: OtelApi.Attributes): this {
    for (const key in attributes) {
      const value = attributes[key]
      if (value !== undefined) this.setAttribute(key, value)
    }
    return this
  }

  addEvent(name: string, attributesOrTime?: OtelApi.Attributes | OtelApi.TimeInput, time?: OtelApi.TimeInput): this {
    if (this.ended) return this
    const timed = Array.isArray(attributesOrTime) || typeof attributesOrTime === "number" ||
      attributesOrTime instanceof Date
    const at = timed ? attributesOrTime : time
    this.events = [...this.events, {
      name,
      attributes: timed || attributesOrTime === undefined ? {} : { ...(attributesOrTime as OtelApi.Attributes) },
      time: toHrTime(at),
      droppedAttributesCount: 0
    }]
    return this
  }

  addLink(link: OtelApi.Link): this {
    if (!this.ended) this.links = [...this.links, link]
    return this
  }

  addLinks(links: Array<OtelApi.Link>): this {
    if (!this.ended) this.links = [...this.links, ...links]
    return this
  }

  setStatus(status: OtelApi.SpanStatus): this {
    // As the SDK: UNSET changes nothing, OK is final, a message only with ERROR.
    if (this.ended || status.code === OtelApi.SpanStatusCode.UNSET) return this
    if (this.status.code === OtelApi.SpanStatusCode.OK) return this
    this.status = status.code === OtelApi.SpanStatusCode.ERROR && typeof status.message === "string"
      ? { code: status.code, message: status.message }
      : { code: status.code }
    return this
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name
    return this
  }

  /** Ends the span at `endTime`, an `HrTime` from the same clock as its start (`otelSpan.now`). */
  end(endTime?: OtelApi.TimeInput): void {
    if (this.ended) return
    this.endTime = toHrTime(endTime)
    this.duration = duration(this.startTime, this.endTime)
    for (const processor of this.processors) processor.onEnding?.(this as never)
    this.ended = true
    for (const processor of this.processors) processor.onEnd(this)
  }

  isRecording(): boolean {
    return !this.ended
  }

  recordException(exception: OtelApi.Exception, time?: OtelApi.TimeInput): void {
    const attributes: OtelApi.Attributes = {}
    if (typeof exception === "string") {
      attributes["exception.message"] = exception
    } else {
      const type = exception.code === undefined ? exception.name : String(exception.code)
      if (type !== undefined) attributes["exception.type"] = type
      if (exception.message !== undefined) attributes["exception.message"] = exception.message
      if (exception.stack !== undefined) attributes["exception.stacktrace"] = exception.stack
    }
    this.addEvent("exception", attributes, time)
  }
}

/** A time as the SDK reads one: an `HrTime` as it is, a number of milliseconds since the epoch or (below
 * `performance.now()`) since the time origin, a `Date`; none is now. */
const toHrTime = (time: OtelApi.TimeInput | undefined): OtelApi.HrTime => {
  if (Array.isArray(time)) return time as OtelApi.HrTime
  const now = performance.now()
  const millis = time === undefined
    ? performance.timeOrigin + now
    : typeof time === "number"
    ? time <= now ? performance.timeOrigin + time : time
    : time.getTime()
  const seconds = Math.floor(millis / 1000)
  return [seconds, Math.round((millis - seconds * 1000) * 1e6)]
}
