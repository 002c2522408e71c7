/**
 * The per-key rate limit as an exact sliding window: a request is accepted when fewer than `limit` requests of the key
 * were accepted in the window `(now − windowMillis, now]`. Only accepted requests are remembered, so the law holds:
 * no interval of `windowMillis` ever contains more than `limit` accepted requests.
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
