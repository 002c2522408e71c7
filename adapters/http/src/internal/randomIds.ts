/**
 * Random trace and span ids as W3C Trace Context writes them (32 and 16 lowercase hex digits, never all zeros), drawn
 * from a pool: a few hundred bytes from the system's CSPRNG, turned into hex at once, each id a slice of that text.
 *
 * Every request under `Tracing`'s tracer with no trace around it (no caller's `traceparent`) gets new ids before its
 * sampler is asked (`OtelSpan.decideRoot`), sampled or not; a sampled one's store calls draw a span id each. The SDK's
 * generator makes each id with two to four `Math.random` calls, buffer writes and a hex conversion in C++. From the
 * pool an id is a substring, and the pool (16 KiB: the ids of about 680 unsampled requests) is refilled once used.
 *
 * The refill is the cost, and it is not the size: in a loaded `stint serve` one `randomFillSync` of 512 bytes took
 * about 20 µs and its hex conversion 4 to 5 µs, a call that runs cold (its code and data out of the caches since the
 * last one). With a pool of 512 bytes, refilled every 21 requests, drawing a request's ids cost 1.7 to 2.0 µs a
 * request in place; with 16 KiB, 0.5 to 0.7 µs (timed inside the server, SQLite `GET /api/v1/timer`, 2026-11-30). A
 * slice keeps its pool's text alive while the id lives: 32 KB, a few of them at most (ids outlive their request only
 * in the sampled spans waiting for export, and those come from consecutive requests).
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
  bytes = 16 * 1024
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
