/**
 * What a failure of PostgreSQL or of the connection to it means for the adapter: every one becomes the core's
 * `StoreError` (the cause kept for logs); serialization failures and deadlocks are transient and retried a bounded
 * number of times; uniqueness and foreign-key violations are recognisable for the admin side's `RecordConflict`.
 */
import { StoreError } from "@stint/core/Errors"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** The SQLSTATE of a server-reported error, if the value is one. */
export const sqlState = (error: unknown): string | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const code = (error as { readonly code?: unknown }).code
  const severity = (error as { readonly severity?: unknown }).severity
  return typeof code === "string" && typeof severity === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/**
 * Whether the connection that reported `error` must not be reused: anything the server did not report as a plain
 * statement failure (network errors, timeouts on our side, connection exceptions, the server shutting down).
 */
export const breaksConnection = (error: unknown): boolean => {
  const state = sqlState(error)
  return state === undefined || state.startsWith("08") || state.startsWith("57P")
}

const describeOne = (error: unknown): string => {
  const state = sqlState(error)
  const message = error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { readonly message: unknown }).message)
    : String(error)
  return state === undefined ? message : `${message} (SQLSTATE ${state})`
}

/** The message of an error and of its causes (`@effect/sql` wraps the driver's error in `cause`). */
const describe = (error: unknown): string => {
  const parts: Array<string> = []
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 4; depth++) {
    parts.push(describeOne(current))
    current = typeof current === "object" && "cause" in current ? (current as { readonly cause: unknown }).cause : undefined
  }
  return parts.join(": ")
}

/** The `StoreError` for a failure of `what`. */
export const storeError = (what: string, error: unknown): StoreError =>
  error instanceof StoreError ? error : new StoreError({ message: `PostgreSQL: ${what} failed: ${describe(error)}`, cause: error })

/** The SQLSTATE behind a `StoreError` this adapter made. */
export const stateOf = (error: StoreError): string | undefined => sqlState(error.cause)

/** Serialization failure or deadlock: the server rolled the transaction back and it may simply be run again. */
export const isTransient = (error: unknown): boolean => {
  const state = error instanceof StoreError ? stateOf(error) : undefined
  return state === "40001" || state === "40P01"
}

/** How many times a transient failure is retried, after the first attempt. */
export const TRANSIENT_RETRIES = 4

/** The pause before retry `n` (0-based): 10 ms doubling each time, jittered to between 80% and 120%. */
const pause = (n: number): Duration.Duration => Duration.millis(10 * 2 ** n * (0.8 + Math.random() * 0.4))

/**
 * Runs `effect` again (with a short jittered backoff) while it fails transiently, at most `TRANSIENT_RETRIES` times.
 * Every statement of the store goes through here, so the path of a first attempt that succeeds allocates nothing
 * beyond one `catchIf` (a `Schedule` driver would be built for every call).
 */
export const retryTransient = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const attempt = (n: number): Effect.Effect<A, E, R> =>
    Effect.catchIf(
      effect,
      (error) => n < TRANSIENT_RETRIES && isTransient(error),
      () => Effect.zipRight(Effect.sleep(pause(n)), attempt(n + 1))
    )
  return attempt(0)
}
