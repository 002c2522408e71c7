/**
 * The retry loop every request runs in: each try takes a place in the client-side window; a 429 waits for the window
 * and tries again (where `rateLimited` allows); an uncertain failure is retried with backoff and jitter while tries
 * allow (where `uncertain` allows). No retry of either kind starts after the deadline. Anything else, or the last
 * failure, is the call's failure.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Random from "effect/Random"
import type { Resolved } from "../Options.js"
import * as Backoff from "./backoff.js"
import type { Limiter } from "./limiter.js"
import { isUncertain } from "./transport.js"

/** What an operation may repeat. */
export interface Policy {
  /** Retry after no answer, a timeout or a 5xx (reads; timer mutations with their key). */
  readonly uncertain: boolean
  /** Wait and retry after a 429 (never a mutation without an idempotency key). */
  readonly rateLimited: boolean
}

export const run = <A, E extends { readonly _tag: string }>(
  config: Resolved,
  limiter: Limiter,
  policy: Policy,
  attempt: Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    let tries = 0
    let rateLimited = 0
    while (true) {
      const result = yield* Effect.either(limiter.withPlace(attempt))
      if (Either.isRight(result)) return result.right
      const error = result.left
      if (policy.rateLimited && error._tag === "ApiKeyRateLimited" && rateLimited < config.retry.rateLimitedRetries) {
        const wait = (yield* limiter.waitAfterRateLimited) + (yield* Random.next) * config.retry.initialDelayMillis
        const now = yield* Clock.currentTimeMillis
        // The deadline holds for a 429's wait too: a retry never starts later than it.
        if (now + wait - started <= config.retry.deadlineMillis) {
          rateLimited++
          yield* Effect.sleep(wait)
          continue
        }
        return yield* Effect.fail(error)
      }
      tries++
      if (policy.uncertain && isUncertain(error) && tries < config.retry.maxAttempts) {
        const { initialDelayMillis, maxDelayMillis } = config.retry
        const wait = Backoff.delay(tries, initialDelayMillis, maxDelayMillis, yield* Random.next)
        const now = yield* Clock.currentTimeMillis
        if (now + wait - started <= config.retry.deadlineMillis) {
          yield* Effect.sleep(wait)
          continue
        }
      }
      return yield* Effect.fail(error)
    }
  })
