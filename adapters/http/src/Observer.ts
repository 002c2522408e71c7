/**
 * The one place per request where an observer (metrics, traces) sees it: a wrapper around its handling and the record
 * of its outcome. Every transport (`stint serve`, the embedders' handlers, `Server.app`) calls both, once per request.
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Runtime from "effect/Runtime"

/**
 * A request as an observer sees it when it arrives.
 *
 * @since 0.1.0
 */
export interface Arrived {
  readonly method: string
  /** The request target below the mount prefix, query included (may hold anything a client sent: do not record it). */
  readonly url: string
  /** A header's value by lower-case name (e.g. `traceparent`). */
  readonly header: (name: string) => string | undefined
}

/**
 * An answered request, as the pipeline knows it when it writes the log line.
 *
 * @since 0.1.0
 */
export interface Completed {
  readonly requestId: string
  readonly method: string
  /** The route template (`/api/v1/timers/:timerId/stop`), `null` when no route matched. */
  readonly route: string | null
  readonly status: number
  /** The error code, when the response is an error. */
  readonly code: string | undefined
  /** From the request's arrival to its outcome, in milliseconds (three decimals). */
  readonly durationMs: number
  /** The id of the API key that authenticated, never the key; `null` when none did. */
  readonly keyId: string | null
}

/**
 * Hooks into the handling of every request. All optional; without them a request costs nothing more.
 *
 * @since 0.1.0
 */
export interface Observer {
  /**
   * Wraps the whole handling of a request, in the request's fiber (a span around it, say; store calls run inside).
   * Must run `self` exactly once and not change its result.
   */
  readonly request?: <A, E, R>(arrived: Arrived, self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Called once per request before its fiber starts, by the transports that start one fiber per request on a runtime
   * (`stint serve` and the embedders' handlers; not `Server.app`, which runs inside a fiber of the platform's), with
   * the request `request` will be given and that runtime: the context to start the fiber in instead of the runtime's
   * (the runtime's with the request's span as `Tracer.ParentSpan`, say), or `undefined` for the runtime's own. A fiber
   * started in another context costs a copy of the runtime's context; changing the context of a running fiber costs
   * two fiber-ref writes. Must not throw (a hook that throws is ignored: the fiber starts in the runtime's context).
   * An observer's hooks work together (what `begin` starts, `request` may be the one to end): replace or leave out
   * one of them and keep the others, and what they started may never end. `Observability.hooks` are such a set.
   */
  readonly begin?: <R>(arrived: Arrived, runtime: Runtime.Runtime<R>) => Context.Context<R> | undefined
  /**
   * Called once per answered request, inside `request`'s wrapper, when outcome, route, status, code, duration and key
   * id are known, with the request `request` was given (the same object: a hook may keep what it needs on it).
   * Answers fields to add to the request's log line (`traceId`, say), or none. Its failures are ignored.
   */
  readonly completed?: (record: Completed, arrived: Arrived) => Effect.Effect<Readonly<Record<string, string>>>
  /**
   * Called once instead of `completed` for a request its client abandoned (its handling was interrupted), with the
   * request `request` was given, whether or not the log writes the line: fields to add to the line that logs it
   * (`traceId`, say), or none. Must not throw.
   */
  readonly aborted?: (arrived: Arrived) => Readonly<Record<string, string>>
}
