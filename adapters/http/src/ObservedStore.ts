/**
 * A `Store` decorator that measures every port call (duration and failures), wraps each in a child span when tracing
 * is on, and counts the domain events the store decides: rate-limit rejections (from `authenticate`), and, from what each timer
 * transaction read and wrote, timer starts and stops, idempotent replays and conflicts. Independent of the transport:
 * whatever calls the store through it is observed. A store's `authenticateInTimerTransaction` is one call with one
 * span (`Store.authenticateInTimerTransaction`), counted like `authenticate` and `withTimerTransaction` together.
 *
 * @since 0.1.0
 */
import { ApiKey, Store } from "@stint/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as OtelSpan from "./internal/otelSpan.js"
import * as Metrics from "./Metrics.js"

/**
 * What to do around each call.
 *
 * @since 0.1.0
 */
export interface Options {
  /** Record durations, failures and domain events in `Metrics`. */
  readonly metrics: boolean
  /** Run each call in a child span named `Store.<method>` (a leaf). */
  readonly spans: boolean
}

const isStoreFailure = (cause: Cause.Cause<unknown>): boolean => {
  if (Cause.isInterruptedOnly(cause)) return false
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) return true
  const error = failure.value
  return typeof error === "object" && error !== null && "_tag" in error && error._tag === "StoreError"
}

/**
 * What a store call's span ends with: a store failure (or an interruption) as it is; the request's own refusal that
 * merely passes through the call (a `TIMER_NOT_FOUND` decided inside the timer transaction, say) as a success, so that
 * a span is an error exactly when `stint_store_call_failures_total` counts one.
 */
const spanCause = (cause: Cause.Cause<unknown>): Cause.Cause<unknown> | undefined =>
  isStoreFailure(cause) || Cause.isInterruptedOnly(cause) ? cause : undefined

const failureTag = (cause: Cause.Cause<unknown>): string | undefined => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) return undefined
  const error = failure.value
  return typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string"
    ? error._tag
    : undefined
}

const spanOptions = (method: string) => ({
  kind: "client" as const,
  captureStackTrace: false,
  attributes: { "stint.store.method": method }
})

/** The label arrays of each method, made once. */
const methodLabels = new Map<string, ReturnType<typeof Metrics.labels>>()
const labelsOf = (method: string) => {
  let found = methodLabels.get(method)
  if (found === undefined) {
    found = Metrics.labels(["method", method])
    methodLabels.set(method, found)
  }
  return found
}

type Labels = ReturnType<typeof Metrics.labels>

/**
 * Records one call's duration and, for a store failure, the failure. Called when the call ends; a call cut short by
 * its request's interruption (the client went away) never gets here, so it is not measured: how long it ran is not
 * how long the call takes. (A call that ends with an interruption of its own, a child fiber's say, is measured.)
 */
const record = (labels: Labels, started: number, cause: Cause.Cause<unknown> | undefined): number => {
  const elapsed = performance.now() - started
  Metrics.storeCallDuration.unsafeUpdate(elapsed / 1000, labels)
  if (cause !== undefined && isStoreFailure(cause)) Metrics.storeCallFailures.unsafeUpdate(1, labels)
  return elapsed
}

/**
 * What to do once a call has ended, beside measuring it (the domain events): not run when the call is interrupted,
 * as nothing it did is known then.
 */
interface After<A> {
  readonly success?: ((value: A) => void) | undefined
  readonly failure?: ((cause: Cause.Cause<unknown>) => void) | undefined
}

/**
 * `self`, then `ended` with its failure's cause (`undefined` for a success) and `after`: a plain success/failure
 * continuation, which does not run when the fiber is interrupted during `self`. `Effect.onExit` would also run then,
 * at the price of an uninterruptible region around every store call.
 */
const settled = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  ended: (cause: Cause.Cause<unknown> | undefined) => void,
  after: After<A> | undefined
): Effect.Effect<A, E, R> =>
  Effect.matchCauseEffect(self, {
    onFailure: (cause) => {
      ended(cause)
      after?.failure?.(cause)
      return Effect.failCause(cause)
    },
    onSuccess: (value) => {
      ended(undefined)
      after?.success?.(value)
      return Effect.succeed(value)
    }
  })

/** A call measured in the metrics only, starting now (to be called when the call starts: see `measured`). */
const measuredFromNow = <A, E, R>(labels: Labels, self: Effect.Effect<A, E, R>, after: After<A> | undefined) => {
  const started = performance.now()
  return settled(self, (cause) => record(labels, started, cause), after)
}

/** A call measured in the metrics only. */
const measured = <A, E, R>(labels: Labels, self: Effect.Effect<A, E, R>, after: After<A> | undefined) =>
  Effect.suspend(() => measuredFromNow(labels, self, after))

/**
 * Wraps one call: its duration and failure in the metrics, its span. The span is a leaf: under `Tracing`'s tracer an
 * OpenTelemetry span made directly under the request's (`OtelSpan.Leaf`: no Effect span, no context copy), and none
 * at all when the request is not sampled (unless, without the unsampled stand-in, it runs inside a sampled span of
 * ours: `ObserverShape.unsampledParent`); under another tracer an Effect span made beside the fiber's current span,
 * not installed as it. Nothing inside a store call is traced (`Tracing` drops the SQL client's spans).
 *
 * Every call ends in a plain success/failure continuation (`settled`), not an `onExit`: when the request is
 * interrupted during the call, that continuation never runs, and the request span ends the leaf as it ends itself.
 * `after` (the domain events, counted only with metrics) runs when the call ends, not when it is interrupted.
 */
const observer = (options: Options) =>
<A, E, R>(
  method: string,
  self: Effect.Effect<A, E, R>,
  span = options.spans,
  after?: After<A>
): Effect.Effect<A, E, R> => {
  if (!options.metrics && !span) return self
  const labels = labelsOf(method)
  if (!span) return measured(labels, self, after)
  const name = `Store.${method}`
  // Runs when the call starts (in `withFiberRuntime`, already deferred): no `Effect.suspend` of its own.
  const untraced = () => options.metrics ? measuredFromNow(labels, self, after) : self
  return Effect.withFiberRuntime((fiber) => {
    const parent = fiber.currentSpan
    if (!(parent instanceof OtelSpan.Span)) {
      // Under `Tracing`'s tracer a store call is traced as a child of a sampled span only: a request that was not
      // sampled has no span of ours, only a stand-in that is not sampled (`Observability`) or, without the stand-in,
      // none of its own, and its store calls (in its fiber or any it forks) must not start traces of their own.
      if (OtelSpan.otelTracerOf(fiber.currentTracer) !== undefined) return untraced()
      return effectSpan(name, method, self, options.metrics ? labels : undefined, after)
    }
    if (!parent.sampled) return untraced()
    const started = performance.now()
    const leaf = new OtelSpan.Leaf(
      parent,
      name,
      "client",
      attributesOf(method),
      options.metrics ? (cause) => record(labels, started, cause) : undefined
    )
    return settled(self, (cause) => leaf.end(cause === undefined ? undefined : spanCause(cause)), after)
  })
}

const attributeCache = new Map<string, { readonly "stint.store.method": string }>()
const attributesOf = (method: string) => {
  let found = attributeCache.get(method)
  if (found === undefined) {
    found = { "stint.store.method": method }
    attributeCache.set(method, found)
  }
  return found
}

/** A store call's span under a tracer other than `Tracing`'s: an Effect span, ended with the measured duration. */
const effectSpan = <A, E, R>(
  name: string,
  method: string,
  self: Effect.Effect<A, E, R>,
  labels: Labels | undefined,
  after: After<A> | undefined
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.makeSpan(name, spanOptions(method)), (made) => {
    const started = performance.now()
    const observed = after === undefined ? self : settled(self, () => {}, after)
    return Effect.onExit(observed, (exit) =>
      Effect.sync(() => {
        const elapsed = labels === undefined
          ? performance.now() - started
          : record(labels, started, Exit.isFailure(exit) ? exit.cause : undefined)
        const startTime = made.status._tag === "Started" ? made.status.startTime : made.status.endTime
        made.end(
          startTime + BigInt(Math.round(elapsed * 1e6)),
          Exit.isFailure(exit) && spanCause(exit.cause) === undefined ? Exit.void : exit
        )
      }))
  })

type Shape = Store.Store["Type"]

/**
 * The decorated store.
 *
 * @since 0.1.0
 */
export const make = (store: Shape, options: Options): Shape => {
  if (!options.metrics && !options.spans) return store
  const observe = observer(options)
  const call = <Args extends ReadonlyArray<unknown>, A, E, R>(
    method: string,
    f: (...args: Args) => Effect.Effect<A, E, R>
  ) =>
  (...args: Args) => observe(method, f(...args))

  /**
   * What one timer transaction (either kind) read and wrote, for its metrics: its `tx` measured, and the domain events
   * counted once it ends.
   */
  const timerObservation = () => {
    // One attempt starts with a read; an adapter that retries a transaction runs `body` again.
    let sawRecord = false
    let wrote: Store.TimerChanges | undefined
    const observed = (tx: Store.TimerTransaction): Store.TimerTransaction => ({
      // Measured, not traced: the transaction's span covers them.
      read: (query) =>
        observe("timerTransaction.read", tx.read(query), false, {
          success: (snapshot) => {
            sawRecord = query.idempotencyKey !== undefined && Option.isSome(snapshot.idempotency)
            wrote = undefined
          }
        }),
      write: (changes) =>
        observe("timerTransaction.write", tx.write(changes), false, {
          success: () => {
            wrote = changes
          }
        })
    })
    /** The transaction's events, once it has committed (or failed with a conflict). */
    const counted = {
      success: () => {
        if (wrote !== undefined) {
          if (wrote.insert !== undefined) Metrics.timerStarts.unsafeUpdate(1, [])
          if (wrote.finish !== undefined) {
            Metrics.timerStops.unsafeUpdate(1, Metrics.labels(["status", wrote.finish.status]))
          }
        } else if (sawRecord) {
          Metrics.idempotentReplays.unsafeUpdate(1, [])
        }
      },
      failure: (cause: Cause.Cause<unknown>) => {
        if (failureTag(cause) === "IdempotencyConflict") Metrics.idempotencyConflicts.unsafeUpdate(1, [])
      }
    }
    return { observed, counted }
  }

  const withTimerTransaction: Shape["withTimerTransaction"] = (scope, body) => {
    const timer = timerObservation()
    return observe(
      "withTimerTransaction",
      store.withTimerTransaction(scope, (tx) => body(timer.observed(tx))),
      options.spans,
      options.metrics ? timer.counted : undefined
    )
  }

  /** Refused by the rate limit: a key that authenticates at `now` whose request was not accepted. */
  const rateLimited = (found: Option.Option<Store.Authenticated>, now: number): boolean =>
    Option.isSome(found) && !found.value.accepted && Option.isNone(ApiKey.refusal(found.value.key, now))

  const combined = store.authenticateInTimerTransaction
  const authenticateInTimerTransaction: Shape["authenticateInTimerTransaction"] = combined === undefined
    ? undefined
    : (authentication, expected, body) => {
      const timer = timerObservation()
      let refused = false
      const countRefusal = () => {
        if (refused) Metrics.rateLimitRejections.unsafeUpdate(1, [])
      }
      return observe(
        "authenticateInTimerTransaction",
        combined(authentication, expected, (found, tx) => {
          refused = rateLimited(found, authentication.now)
          return body(found, timer.observed(tx))
        }),
        options.spans,
        options.metrics
          ? {
            success: () => {
              countRefusal()
              timer.counted.success()
            },
            failure: (cause) => {
              countRefusal()
              timer.counted.failure(cause)
            }
          }
          : undefined
      )
    }

  const authenticate: Shape["authenticate"] = (digest, now, policy, along) =>
    observe(
      "authenticate",
      store.authenticate(digest, now, policy, along),
      options.spans,
      options.metrics
        ? {
          success: (found) => {
            if (rateLimited(found, now)) Metrics.rateLimitRejections.unsafeUpdate(1, [])
          }
        }
        : undefined
    )

  const admin = store.admin
  return {
    authenticate,
    // A constant once created: measuring it would only add noise.
    cursorSecret: store.cursorSecret,
    listClients: call("listClients", store.listClients),
    listProjects: call("listProjects", store.listProjects),
    createProject: call("createProject", store.createProject),
    findActiveEntry: call("findActiveEntry", store.findActiveEntry),
    listEntries: call("listEntries", store.listEntries),
    withTimerTransaction,
    ...(authenticateInTimerTransaction === undefined ? {} : { authenticateInTimerTransaction }),
    admin: {
      hasWorkspaces: observe("admin.hasWorkspaces", admin.hasWorkspaces),
      lookup: call("admin.lookup", admin.lookup),
      insert: call("admin.insert", admin.insert),
      setArchived: call("admin.setArchived", admin.setArchived),
      removeMembership: call("admin.removeMembership", admin.removeMembership),
      revokeApiKey: call("admin.revokeApiKey", admin.revokeApiKey),
      listApiKeys: call("admin.listApiKeys", admin.listApiKeys),
      findEntryScope: call("admin.findEntryScope", admin.findEntryScope),
      // Large loads (`stint seed`) are no request: passed through unmeasured.
      ...(admin.bulk === undefined ? {} : { bulk: admin.bulk })
    },
    ping: observe("ping", store.ping)
  }
}

/**
 * Replaces the `Store` in context by its decorated self (identity when both options are off).
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<Store.Store, never, Store.Store> =>
  Layer.effect(Store.Store, Effect.map(Store.Store, (store) => make(store, options)))
