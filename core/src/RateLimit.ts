/**
 * The per-key rate limit as an exact sliding window: a request is accepted when fewer than `limit` requests of the key
 * were accepted in the window `(now − windowMillis, now]`. Only accepted requests are remembered, so the law holds:
 * no interval of `windowMillis` ever contains more than `limit` accepted requests. `decide` works on a list of times;
 * `decidePacked` gives the same answers on the times packed in bytes, for stores that keep a window as one value.
 *
 * @since 0.1.0
 */

/**
 * How many requests a key may make in what window. The spec's default: 120 per 60 seconds.
 *
 * @since 0.1.0
 */
export interface Policy {
  readonly limit: number
  readonly windowMillis: number
}

/** @since 0.1.0 */
export const defaultPolicy: Policy = { limit: 120, windowMillis: 60_000 }

/**
 * The outcome for one request and the hits to remember afterwards (those still inside the window, plus `now` when
 * accepted).
 *
 * @since 0.1.0
 */
export interface Decision {
  readonly accepted: boolean
  readonly hits: ReadonlyArray<number>
}

/**
 * Whether a request at `now` is accepted, given the times (epoch ms) of the key's earlier accepted requests.
 *
 * @since 0.1.0
 */
export const decide = (hits: ReadonlyArray<number>, now: number, policy: Policy): Decision => {
  const recent = hits.filter((at) => at > now - policy.windowMillis)
  return recent.length < policy.limit
    ? { accepted: true, hits: [...recent, now] }
    : { accepted: false, hits: recent }
}

/**
 * The bytes of one accepted time in a packed window (`decidePacked`).
 *
 * @since 0.1.0
 */
export const PACKED_TIME_BYTES = 8

const HIGH = 0x1_0000_0000

/** A `RangeError` unless `window` is a whole number of times. */
const checkPacked = (window: Uint8Array): void => {
  if (window.length % PACKED_TIME_BYTES !== 0) {
    throw new RangeError(`a packed rate-limit window of ${window.length} bytes, not a multiple of ${PACKED_TIME_BYTES}`)
  }
}

// Times are read and written a byte at a time: a `DataView` (or any use of a small array's `buffer`, which moves its
// bytes off V8's heap) costs more than the rest of a small window's decision together.

/** The `index`th time of a packed window. */
const timeAt = (window: Uint8Array, index: number): number => {
  const at = index * PACKED_TIME_BYTES
  // In range: callers read only whole times below the window's length.
  const high = (window[at]! << 24 | window[at + 1]! << 16 | window[at + 2]! << 8 | window[at + 3]!) >>> 0
  const low = (window[at + 4]! << 24 | window[at + 5]! << 16 | window[at + 6]! << 8 | window[at + 7]!) >>> 0
  return high * HIGH + low
}

/** Writes `time` as the `index`th time of a packed window (a `Uint8Array` keeps the low 8 bits of what it is given). */
const writeTime = (window: Uint8Array, index: number, time: number): void => {
  const at = index * PACKED_TIME_BYTES
  const high = Math.floor(time / HIGH)
  const low = time % HIGH
  window[at] = high >>> 24
  window[at + 1] = high >>> 16
  window[at + 2] = high >>> 8
  window[at + 3] = high
  window[at + 4] = low >>> 24
  window[at + 5] = low >>> 16
  window[at + 6] = low >>> 8
  window[at + 7] = low
}

/** The first index in `[from, count)` whose time is above `bound`, or `count` (the times ascend). */
const firstAbove = (window: Uint8Array, from: number, count: number, bound: number): number => {
  let low = from
  let high = count
  while (low < high) {
    const middle = (low + high) >>> 1
    if (timeAt(window, middle) > bound) high = middle
    else low = middle + 1
  }
  return low
}

/**
 * `decide`'s answer for a packed window, and the window to store afterwards.
 *
 * @since 0.1.0
 */
export interface PackedDecision {
  readonly accepted: boolean
  /** The window to remember: new bytes when accepted; when refused, the bytes decided on or the part of them kept. */
  readonly window: Uint8Array
  /** Whether `window` differs from the one decided on: only then need it be stored. */
  readonly changed: boolean
}

/**
 * `decide` for a window kept as bytes, for stores that keep each key's window as one value: the accepted times in
 * ascending order, each as 8 bytes, an unsigned big-endian integer of epoch milliseconds (`pack`). It gives the same
 * answers and remembers the same times as `decide`, in two binary searches and one copy of the bytes: a remembered
 * time costs a copy of 8 bytes, where a list of numbers costs a step of JavaScript for each (and, stored as JSON, a
 * number parsed and one written back). The result keeps the order, so it can be decided on again. `now` is a time as
 * `pack` takes them. Throws a `RangeError` for bytes that are not a whole number of times.
 *
 * @since 0.1.0
 */
export const decidePacked = (window: Uint8Array, now: number, policy: Policy): PackedDecision => {
  checkPacked(window)
  const count = window.length / PACKED_TIME_BYTES
  // Times at or before the window's start are forgotten; the rest count, later ones too (a clock ahead of this one).
  const first = firstAbove(window, 0, count, now - policy.windowMillis)
  if (count - first >= policy.limit) {
    const kept = first === 0 ? window : window.subarray(first * PACKED_TIME_BYTES)
    return { accepted: false, window: kept, changed: first > 0 }
  }
  // Accepted: `now` goes after every time not above it (usually last), so the times keep ascending.
  const at = firstAbove(window, first, count, now)
  const next = new Uint8Array((count - first + 1) * PACKED_TIME_BYTES)
  next.set(window.subarray(first * PACKED_TIME_BYTES, at * PACKED_TIME_BYTES))
  if (at < count) next.set(window.subarray(at * PACKED_TIME_BYTES), (at - first + 1) * PACKED_TIME_BYTES)
  writeTime(next, at - first, now)
  return { accepted: true, window: next, changed: true }
}

/**
 * Times (epoch milliseconds, whole, not negative, below 2^53) as a packed window (`decidePacked`), in ascending order.
 *
 * @since 0.1.0
 */
export const pack = (times: ReadonlyArray<number>): Uint8Array => {
  const window = new Uint8Array(times.length * PACKED_TIME_BYTES)
  ;[...times].sort((a, b) => a - b).forEach((time, index) => writeTime(window, index, time))
  return window
}

/**
 * The times of a packed window (`decidePacked`), in its order. Throws a `RangeError` for bytes that are not a whole
 * number of times.
 *
 * @since 0.1.0
 */
export const unpack = (window: Uint8Array): ReadonlyArray<number> => {
  checkPacked(window)
  return Array.from({ length: window.length / PACKED_TIME_BYTES }, (_, index) => timeAt(window, index))
}
