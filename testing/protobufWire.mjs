/**
 * A reader of protobuf's wire format, written from the encoding's documentation: the fields of one message, in order,
 * each its number and its value (a varint, or the bytes of a fixed 64- or 32-bit value or of a length-delimited one).
 * A nested message is a length-delimited field's bytes, read by calling `fields` again, so a caller reads only as deep
 * as it needs. Shared by the tests that decode OTLP from the wire (`adapters/http/test/OtlpProtobuf.ts`) and the
 * benchmarks' OTLP receiver (`bench/internal/otlpReceiver.mjs`). Plain JavaScript, so that both can import it.
 */

/** The fields of `message` (a `Uint8Array`), in wire order. Throws on a truncated message or a group (wire 3, 4). */
export const fields = (message) => {
  const found = []
  let at = 0
  const varint = () => {
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
  const take = (length) => {
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
    else throw new Error(`protobuf: wire type ${wire} (field ${number}) is not read here`)
  }
  return found
}

/** The bytes of every length-delimited field numbered `number` in `message`: a repeated nested message's items. */
export const repeated = (message, number) =>
  fields(message).flatMap((field) => field.number === number && field.bytes !== undefined ? [field.bytes] : [])
