/**
 * Exact earnings arithmetic. `payRateCents × durationSeconds / 3600` cents, rounded half-up to the cent and written in
 * dollars with exactly two decimals. Computed in BigInt: the largest inputs (2^31 − 1 each) multiply past 2^53.
 *
 * @since 0.1.0
 */

/**
 * Earnings in whole cents, rounded half-up: `floor((2·rate·seconds + 3600) / 7200)`. Both inputs are whole numbers
 * from 0 (the spec's Cents, a duration); anything else is a `RangeError`, not an amount: BigInt division truncates
 * towards zero, so a negative product would be rounded the wrong way, and a fraction has no exact product here.
 *
 * @since 0.1.0
 */
export const earningsCents = (payRateCents: number, durationSeconds: number): bigint => {
  if (!(Number.isInteger(payRateCents) && payRateCents >= 0 && Number.isInteger(durationSeconds) && durationSeconds >= 0)) {
    throw new RangeError(
      `earnings take a pay rate and a duration in whole numbers from 0, not ${payRateCents} cents for ${durationSeconds} s`
    )
  }
  const doubled = 2n * BigInt(payRateCents) * BigInt(durationSeconds)
  return (doubled + 3600n) / 7200n
}

/**
 * Writes a non-negative number of cents as dollars with exactly two decimals (`12345n` → `"123.45"`).
 *
 * @since 0.1.0
 */
export const formatCents = (cents: bigint): string => {
  const sign = cents < 0n ? "-" : ""
  const abs = cents < 0n ? -cents : cents
  return `${sign}${abs / 100n}.${(abs % 100n).toString().padStart(2, "0")}`
}

/**
 * The `earnings` field of a completed entry: `"0.00"` when not billable. A billable entry's rate and duration are
 * whole numbers from 0, as `earningsCents` takes them.
 *
 * @since 0.1.0
 */
export const earnings = (options: {
  readonly payRateCents: number
  readonly durationSeconds: number
  readonly billable: boolean
}): string => {
  if (!options.billable) return "0.00"
  const exact = exactEarnings(options.payRateCents, options.durationSeconds)
  return exact ?? formatCents(earningsCents(options.payRateCents, options.durationSeconds))
}

/**
 * `earnings` in plain numbers, when they are exact: `undefined` when `2·rate·seconds + 3600` may pass 2^53 − 1, or
 * when an input is not a safe whole number from 0 (the BigInt path takes the first and refuses the second). Below the
 * bound every step is an integer a double holds exactly: the product (rounding is monotonic, so a product past the
 * bound is never computed below it), the remainder, the difference and a division that leaves no remainder. A third
 * to a half of the BigInt path's time (a page of history computes twenty).
 */
const exactEarnings = (payRateCents: number, durationSeconds: number): string | undefined => {
  if (!(Number.isSafeInteger(payRateCents) && Number.isSafeInteger(durationSeconds))) return undefined
  if (payRateCents < 0 || durationSeconds < 0) return undefined
  const doubled = 2 * payRateCents * durationSeconds + 3600
  if (doubled > Number.MAX_SAFE_INTEGER) return undefined
  const cents = (doubled - (doubled % 7200)) / 7200
  const fraction = cents % 100
  return `${(cents - fraction) / 100}.${fraction < 10 ? "0" : ""}${fraction}`
}
