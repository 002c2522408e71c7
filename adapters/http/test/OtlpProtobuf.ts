/**
 * Reads an OTLP/protobuf `ExportTraceServiceRequest` (what the SDK's `http/protobuf` exporter posts) into the shape of
 * its OTLP/JSON form, for the parts the tests look at: resource attributes, and each span's ids (lowercase hex),
 * parent, name and attributes. A reader of protobuf's wire format written from the OTLP `.proto` field numbers, not
 * the SDK's serializer run backwards, so that a test checks what went over the wire. The wire format itself is read by
 * `testing/protobufWire.mjs`, which the benchmarks' OTLP receiver shares.
 */

import { type Field, fields, repeated } from "../../../testing/protobufWire.mjs"

export interface OtlpValue {
  readonly stringValue?: string
  readonly boolValue?: boolean
  readonly intValue?: number | string
  readonly doubleValue?: number
}
export interface OtlpAttribute {
  readonly key: string
  readonly value: OtlpValue
}
export interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes?: ReadonlyArray<OtlpAttribute>
}
export interface OtlpExport {
  readonly resourceSpans: ReadonlyArray<{
    readonly resource?: { readonly attributes?: ReadonlyArray<OtlpAttribute> }
    readonly scopeSpans: ReadonlyArray<{ readonly spans?: ReadonlyArray<OtlpSpan> }>
  }>
}

/**
 * A message read once: its fields by number, in wire order. (`fields` reads the whole message; reading it once per
 * message, rather than once per field looked up, reads each byte once per level of nesting.)
 */
interface Message {
  readonly one: (number: number) => Field | undefined
  readonly all: (number: number) => ReadonlyArray<Uint8Array>
}

const read = (message: Uint8Array): Message => {
  const byNumber = new Map<number, Array<Field>>()
  for (const field of fields(message)) {
    const same = byNumber.get(field.number)
    if (same === undefined) byNumber.set(field.number, [field])
    else same.push(field)
  }
  return {
    one: (number) => byNumber.get(number)?.[0],
    all: (number) => (byNumber.get(number) ?? []).flatMap((field) => field.bytes === undefined ? [] : [field.bytes])
  }
}

const text = (bytes: Uint8Array | undefined): string => new TextDecoder().decode(bytes ?? new Uint8Array())
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

/** `AnyValue`: string 1, bool 2, int 3 (a varint, two's complement), double 4; arrays and maps are not read. */
const value = (message: Uint8Array): OtlpValue => {
  const field = fields(message)[0]
  if (field === undefined) return {}
  switch (field.number) {
    case 1:
      return { stringValue: text(field.bytes) }
    case 2:
      return { boolValue: field.varint === 1n }
    case 3:
      return { intValue: Number(BigInt.asIntN(64, field.varint ?? 0n)) }
    case 4:
      return { doubleValue: Buffer.from(field.bytes ?? new Uint8Array(8)).readDoubleLE(0) }
    default:
      throw new Error(`protobuf: AnyValue field ${field.number} is not read here`)
  }
}

/** `KeyValue`: key 1, value 2. */
const attributes = (message: Message, number: number): ReadonlyArray<OtlpAttribute> =>
  message.all(number).map((bytes) => {
    const pair = read(bytes)
    return { key: text(pair.one(1)?.bytes), value: value(pair.one(2)?.bytes ?? new Uint8Array()) }
  })

/** `Span`: trace_id 1, span_id 2, parent_span_id 4, name 5, attributes 9. */
const span = (bytes: Uint8Array): OtlpSpan => {
  const message = read(bytes)
  const parent = message.one(4)?.bytes
  return {
    traceId: hex(message.one(1)?.bytes ?? new Uint8Array()),
    spanId: hex(message.one(2)?.bytes ?? new Uint8Array()),
    ...(parent === undefined || parent.length === 0 ? {} : { parentSpanId: hex(parent) }),
    name: text(message.one(5)?.bytes),
    attributes: attributes(message, 9)
  }
}

/**
 * `ExportTraceServiceRequest`: resource_spans 1; `ResourceSpans`: resource 1 (`Resource`: attributes 1), scope_spans
 * 2; `ScopeSpans`: spans 2.
 */
export const decodeTraces = (body: Uint8Array): OtlpExport => ({
  resourceSpans: repeated(body, 1).map((bytes) => {
    const resourceSpans = read(bytes)
    const resource = resourceSpans.one(1)?.bytes
    return {
      ...(resource === undefined ? {} : { resource: { attributes: attributes(read(resource), 1) } }),
      scopeSpans: resourceSpans.all(2).map((scopeSpans) => ({ spans: repeated(scopeSpans, 2).map(span) }))
    }
  })
})
