/**
 * Random trace and span ids as W3C Trace Context writes them (32 and 16 lowercase hex digits, never all zeros), drawn
 * from a pool: a few hundred bytes from the system's CSPRNG, turned into hex at once, each id a slice of that text.
 *
 * Every request under `Tracing`'s tracer with no trace around it (no caller's `traceparent`) gets new ids before its
 * sampler is asked (`OtelSpan.decideRoot`), sampled or not; a sampled one's store calls draw a span id each. The SDK's
 * generator makes each id with two to four `Math.random` calls, buffer writes and a hex conversion in C++. From the
 * pool an id is a substring, and the pool (512 bytes: the ids of about 21 unsampled requests) is refilled once used.
 * A slice keeps its pool's text alive while the id lives: 1 KB.
 */
import { randomFillSync } from "node:crypto"

/** A source of ids. */
export interface RandomIds {
  /** 32 lowercase hex digits, not all zeros. */
  readonly traceId: () => string
  /** 16 lowercase hex digits, not all zeros. */
  readonly spanId: () => string
}

const ZERO_TRACE = "0".repeat(32)
const ZERO_SPAN = "0".repeat(16)
const ZERO = "0".charCodeAt(0)

/**
 * Ids from pools of `bytes` random bytes (at least 16: a trace id) written by `fill` (the system's CSPRNG unless a
 * test says otherwise). The ids are the pool's hex text in order, cut in 32 or 16 digits; the end of a pool too short
 * for the next id is left unused.
 */
export const make = (
  fill: (pool: Buffer) => void = (pool) => randomFillSync(pool),
  bytes = 512
): RandomIds => {
  if (!Number.isInteger(bytes) || bytes < 16) throw new RangeError(`a pool holds at least 16 bytes, not ${bytes}`)
  const pool = Buffer.alloc(bytes)
  let hex = ""
  let at = 0
  const take = (digits: number): string => {
    if (at + digits > hex.length) {
      fill(pool)
      hex = pool.toString("hex")
      at = 0
    }
    const id = hex.slice(at, at + digits)
    at += digits
    return id
  }
  // Compared with the zeros only when it starts with one: comparing a slice's contents is a call into the runtime.
  const traceId = (): string => {
    const id = take(32)
    return id.charCodeAt(0) === ZERO && id === ZERO_TRACE ? traceId() : id
  }
  const spanId = (): string => {
    const id = take(16)
    return id.charCodeAt(0) === ZERO && id === ZERO_SPAN ? spanId() : id
  }
  return { traceId, spanId }
}

/** The process's ids (request spans, their leaves, and any span the SDK starts under `Tracing`). */
export const shared: RandomIds = make()
