/**
 * The delay before a retry: exponential from `initialDelayMillis`, capped at `maxDelayMillis`, drawn at random
 * between half and all of that ("equal jitter"), so that clients failing together do not retry together.
 */

/** The delay before retry number `retry` (1 for the first retry), given a random number in [0, 1). */
export const delay = (retry: number, initialDelayMillis: number, maxDelayMillis: number, random: number): number => {
  const cap = Math.min(maxDelayMillis, initialDelayMillis * 2 ** (retry - 1))
  return cap / 2 + (cap / 2) * random
}
