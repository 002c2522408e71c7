/**
 * The client's options and their defaults: where the API is, the key, the per-request timeout, the retry policy of
 * uncertain failures, and the client-side rate-limit window. Plain values, shared by both faces.
 *
 * @since 0.1.0
 */
import * as Header from "./internal/header.js"

/**
 * How the client retries a request whose outcome is uncertain (no answer, a timeout, a 5xx): reads and timer
 * mutations only, a mutation always with the same `Idempotency-Key` and the same bytes. Delays grow exponentially
 * from `initialDelayMillis` up to `maxDelayMillis`, each one drawn at random between half and all of its value.
 *
 * @since 0.1.0
 */
export interface RetryOptions {
  /** Tries in all, the first included. Default 3. */
  readonly maxAttempts?: number | undefined
  /** The delay before the first retry, before jitter. Default 200. */
  readonly initialDelayMillis?: number | undefined
  /** The largest delay between tries, before jitter. Default 2000. */
  readonly maxDelayMillis?: number | undefined
  /** No retry starts later than this after the first try. Default 30000. */
  readonly deadlineMillis?: number | undefined
  /** How often a read or timer mutation answered 429 waits for the window and tries again. Default 3. */
  readonly rateLimitedRetries?: number | undefined
}

/**
 * The client-side sliding window: at most `limit` requests in any `windowMillis`, counted from each request's answer
 * (the server counts it somewhere between sending and answering). Calls beyond it wait in line instead of failing.
 * Set it to the server's values (the spec's defaults: 120 per 60 s). One client per key and process shares it.
 *
 * @since 0.1.0
 */
export interface RateLimitOptions {
  /** Requests per window. Default 120. `Infinity` turns the queue off. */
  readonly limit?: number | undefined
  /** The window's length. Default 60000. */
  readonly windowMillis?: number | undefined
}

/**
 * What every client needs.
 *
 * @since 0.1.0
 */
export interface StintClientOptions {
  /** The server's address, e.g. `http://127.0.0.1:8787` (paths `/api/v1/…` are appended). */
  readonly baseUrl: string
  /** A personal API key, `stint_…`. */
  readonly apiKey: string
  /** How long one request may take before it counts as failed (and, where allowed, is retried). Default 10000. */
  readonly timeoutMillis?: number | undefined
  readonly retry?: RetryOptions | undefined
  readonly rateLimit?: RateLimitOptions | undefined
}

/**
 * The options with every default filled in.
 *
 * @since 0.1.0
 */
export interface Resolved {
  readonly baseUrl: string
  readonly apiKey: string
  readonly timeoutMillis: number
  readonly retry: Required<{ readonly [K in keyof RetryOptions]: number }>
  readonly rateLimit: Required<{ readonly [K in keyof RateLimitOptions]: number }>
}

/**
 * The defaults: the spec's rate limit, 10 s per request, 3 tries within 30 s.
 *
 * @since 0.1.0
 */
export const defaults = {
  timeoutMillis: 10_000,
  retry: {
    maxAttempts: 3,
    initialDelayMillis: 200,
    maxDelayMillis: 2_000,
    deadlineMillis: 30_000,
    rateLimitedRetries: 3
  },
  rateLimit: { limit: 120, windowMillis: 60_000 }
} as const

const check = (name: string, value: number, integer: boolean, allowZero: boolean): number => {
  const valid = value === Infinity
    ? name === "rateLimit.limit"
    : Number.isFinite(value) && (integer ? Number.isInteger(value) : true) && (allowZero ? value >= 0 : value > 0)
  if (!valid) throw new TypeError(`StintClient: ${name} must be a ${allowZero ? "non-negative" : "positive"} number`)
  return value
}

/**
 * Fills in the defaults and checks every option; throws a `TypeError` naming the first bad one.
 *
 * @since 0.1.0
 */
export const resolve = (options: StintClientOptions): Resolved => {
  let base: URL
  try {
    base = new URL(options.baseUrl)
  } catch {
    throw new TypeError(`StintClient: baseUrl must be an absolute http(s) URL, got ${JSON.stringify(options.baseUrl)}`)
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new TypeError(`StintClient: baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`)
  }
  if (typeof options.apiKey !== "string" || options.apiKey === "") {
    throw new TypeError("StintClient: apiKey is required")
  }
  const unsendable = Header.problem(options.apiKey)
  if (unsendable !== undefined) throw new TypeError(`StintClient: apiKey ${unsendable}`)
  const retry = options.retry ?? {}
  const rateLimit = options.rateLimit ?? {}
  const d = defaults
  return {
    baseUrl: `${base.origin}${base.pathname.replace(/\/+$/, "")}`,
    apiKey: options.apiKey,
    timeoutMillis: check("timeoutMillis", options.timeoutMillis ?? d.timeoutMillis, false, false),
    retry: {
      maxAttempts: check("retry.maxAttempts", retry.maxAttempts ?? d.retry.maxAttempts, true, false),
      initialDelayMillis: check(
        "retry.initialDelayMillis",
        retry.initialDelayMillis ?? d.retry.initialDelayMillis,
        false,
        true
      ),
      maxDelayMillis: check("retry.maxDelayMillis", retry.maxDelayMillis ?? d.retry.maxDelayMillis, false, true),
      deadlineMillis: check("retry.deadlineMillis", retry.deadlineMillis ?? d.retry.deadlineMillis, false, true),
      rateLimitedRetries: check(
        "retry.rateLimitedRetries",
        retry.rateLimitedRetries ?? d.retry.rateLimitedRetries,
        true,
        true
      )
    },
    rateLimit: {
      limit: check("rateLimit.limit", rateLimit.limit ?? d.rateLimit.limit, true, false),
      windowMillis: check("rateLimit.windowMillis", rateLimit.windowMillis ?? d.rateLimit.windowMillis, false, false)
    }
  }
}
