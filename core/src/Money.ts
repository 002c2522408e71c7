/**
 * Exact earnings arithmetic. `payRateCents × durationSeconds / 3600` cents, rounded half-up to the cent and written in
 * dollars with exactly two decimals. Computed in BigInt: the largest inputs (2^31 − 1 each) multiply past 2^53.
 *
 * @since 0.1.0
 */

/**
 * Earnings in whole cents, rounded half-up: `floor((2·rate·seconds + 3600) / 7200)`.
 *
 * @since 0.1.0
 */
export const earningsCents = (payRateCents: number, durationSeconds: number): bigint => {
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
 * The `earnings` field of a completed entry: `"0.00"` when not billable.
 *
 * @since 0.1.0
 */
export const earnings = (options: {
  readonly payRateCents: number
  readonly durationSeconds: number
  readonly billable: boolean
}): string => options.billable ? formatCents(earningsCents(options.payRateCents, options.durationSeconds)) : "0.00"
