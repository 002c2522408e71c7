/**
 * Earnings against a rational-arithmetic reference over the whole input range (the products exceed 2^53).
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { Money } from "@stint/core"

const INT32_MAX = 2147483647

/** Reference: the exact rational rate·seconds/3600 cents, rounded half-up, via numerator/denominator comparison. */
const reference = (rate: number, seconds: number): string => {
  const numerator = BigInt(rate) * BigInt(seconds)
  const whole = numerator / 3600n
  const remainder = numerator - whole * 3600n
  const cents = remainder * 2n >= 3600n ? whole + 1n : whole
  const text = cents.toString().padStart(3, "0")
  return `${text.slice(0, -2)}.${text.slice(-2)}`
}

const int32 = fc.integer({ min: 0, max: INT32_MAX })

describe("Money", () => {
  it.prop("matches the rational reference over the whole range", [int32, int32], ([rate, seconds]) => {
    expect(Money.earnings({ payRateCents: rate, durationSeconds: seconds, billable: true })).toBe(reference(rate, seconds))
  }, { fastCheck: { numRuns: 5000 } })

  it.prop("is exact where floats are not: near-half cents at large products", [fc.integer({ min: 1, max: 1_000_000 })], ([k]) => {
    // rate·seconds = 3600·k + 1800 is exactly half a cent above k cents: it must round up.
    const rate = 1800 + 3600 * k
    expect(Money.earnings({ payRateCents: rate, durationSeconds: 1, billable: true })).toBe(reference(rate, 1))
  })

  it.prop("matches it for everyday rates and durations (computed in plain numbers)", [
    fc.integer({ min: 0, max: 10_000_000 }),
    fc.integer({ min: 0, max: 10_000_000 })
  ], ([rate, seconds]) => {
    expect(Money.earnings({ payRateCents: rate, durationSeconds: seconds, billable: true })).toBe(reference(rate, seconds))
  }, { fastCheck: { numRuns: 5000 } })

  it.prop("matches it on both sides of 2^53, where the plain-number path hands over to BigInt", [
    fc.integer({ min: 1, max: INT32_MAX }),
    fc.integer({ min: -4000, max: 4000 })
  ], ([rate, offset]) => {
    // The largest duration whose 2·rate·seconds + 3600 is still a safe integer, moved by up to 4,000 seconds.
    const edge = Math.floor((Number.MAX_SAFE_INTEGER - 3600) / (2 * rate))
    const seconds = Math.min(INT32_MAX, Math.max(0, edge + offset))
    expect(Money.earnings({ payRateCents: rate, durationSeconds: seconds, billable: true })).toBe(reference(rate, seconds))
  }, { fastCheck: { numRuns: 5000 } })

  it("pins the spec's cases", () => {
    expect(Money.earnings({ payRateCents: 7500, durationSeconds: 5400, billable: true })).toBe("112.50")
    expect(Money.earnings({ payRateCents: 1, durationSeconds: 1800, billable: true })).toBe("0.01") // half-up
    expect(Money.earnings({ payRateCents: 1, durationSeconds: 1799, billable: true })).toBe("0.00")
    expect(Money.earnings({ payRateCents: 7500, durationSeconds: 5400, billable: false })).toBe("0.00")
    expect(Money.earnings({ payRateCents: 0, durationSeconds: 0, billable: true })).toBe("0.00")
    // (2^31-1)^2 / 3600 cents: far past 2^53.
    expect(Money.earnings({ payRateCents: INT32_MAX, durationSeconds: INT32_MAX, billable: true })).toBe(
      reference(INT32_MAX, INT32_MAX)
    )
    expect(reference(INT32_MAX, INT32_MAX)).toBe("12810238928145.61")
  })

  it("refuses a negative or fractional rate or duration instead of rounding it the wrong way", () => {
    // −10,000 cents an hour for an hour is −100.00, which BigInt's truncating division wrote as "-99.99".
    const refused: ReadonlyArray<readonly [number, number]> = [[-10_000, 3600], [10_000, -3600], [-1, -1], [1.5, 3600], [100, 0.5], [NaN, 1]]
    for (const [payRateCents, durationSeconds] of refused) {
      expect(() => Money.earnings({ payRateCents, durationSeconds, billable: true }), `${payRateCents} ${durationSeconds}`)
        .toThrow(RangeError)
      expect(() => Money.earningsCents(payRateCents, durationSeconds)).toThrow(RangeError)
    }
  })

  it.prop("always writes exactly two decimals matching the spec's decimal pattern", [int32, int32], ([rate, seconds]) => {
    expect(Money.earnings({ payRateCents: rate, durationSeconds: seconds, billable: true })).toMatch(
      /^(?:0|[1-9]\d*)\.\d{2}$/
    )
  })
})
