/**
 * Reads an OTLP/protobuf `ExportTraceServiceRequest` (what the SDK's `http/protobuf` exporter posts) into the shape of
 * its OTLP/JSON form, for the parts the tests look at: resource attributes, and each span's ids (lowercase hex),
 * parent, name and attributes. A reader of protobuf's wire format written from the OTLP `.proto` field numbers, not
 * the SDK's serializer run backwards, so that a test checks what went over the wire.
 */

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

/** One field of a message: its number, and its value (a varint, the 8 or 4 bytes of a fixed one, or the bytes). */
interface Field {
  readonly number: number
  readonly varint?: bigint
  readonly bytes?: Uint8Array
}

const fields = (message: Uint8Array): ReadonlyArray<Field> => {
  const found: Array<Field> = []
  let at = 0
  const varint = (): bigint => {
    let value = 0n
    let shift = 0n
    for (;;) {
      const byte = message[at++]
      if (byte === undefined) throw new Error("protobuf: truncated varint")
      value |= BigInt(byte & 0x7f) << shift
      if (byte < 0x80) return value
      shift += 7n
    }
  }
  const take = (length: number): Uint8Array => {
    if (at + length > message.length) throw new Error("protobuf: field runs past its message")
    const bytes = message.subarray(at, at + length)
    at += length
    return bytes
  }
  while (at < message.length) {
    const tag = Number(varint())
    const number = tag >>> 3
    const wire = tag & 7
    if (wire === 0) found.push({ number, varint: varint() })
    else if (wire === 1) found.push({ number, bytes: take(8) })
    else if (wire === 2) found.push({ number, bytes: take(Number(varint())) })
    else if (wire === 5) found.push({ number, bytes: take(4) })
    else throw new Error(`protobuf: wire type ${wire} (field ${number}) is not used by OTLP`)
  }
  return found
}

const all = (message: Uint8Array, number: number): ReadonlyArray<Uint8Array> =>
  fields(message).flatMap((field) => field.number === number && field.bytes !== undefined ? [field.bytes] : [])

const one = (message: Uint8Array, number: number): Field | undefined =>
  fields(message).find((field) => field.number === number)

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
const attributes = (message: Uint8Array, number: number): ReadonlyArray<OtlpAttribute> =>
  all(message, number).map((pair) => ({ key: text(one(pair, 1)?.bytes), value: value(one(pair, 2)?.bytes ?? new Uint8Array()) }))

/** `Span`: trace_id 1, span_id 2, parent_span_id 4, name 5, attributes 9. */
const span = (message: Uint8Array): OtlpSpan => {
  const parent = one(message, 4)?.bytes
  return {
    traceId: hex(one(message, 1)?.bytes ?? new Uint8Array()),
    spanId: hex(one(message, 2)?.bytes ?? new Uint8Array()),
    ...(parent === undefined || parent.length === 0 ? {} : { parentSpanId: hex(parent) }),
    name: text(one(message, 5)?.bytes),
    attributes: attributes(message, 9)
  }
}

/**
 * `ExportTraceServiceRequest`: resource_spans 1; `ResourceSpans`: resource 1 (`Resource`: attributes 1), scope_spans
 * 2; `ScopeSpans`: spans 2.
 */
export const decodeTraces = (body: Uint8Array): OtlpExport => ({
  resourceSpans: all(body, 1).map((resourceSpans) => {
    const resource = one(resourceSpans, 1)?.bytes
    return {
      ...(resource === undefined ? {} : { resource: { attributes: attributes(resource, 1) } }),
      scopeSpans: all(resourceSpans, 2).map((scopeSpans) => ({ spans: all(scopeSpans, 2).map(span) }))
    }
  })
})
