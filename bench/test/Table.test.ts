import { describe, expect, it } from "vitest"
import { medianInterval } from "../internal/Table.js"

/** 1, 2, …, n in a shuffled order: the interval's ends are then the ranks themselves. */
const ranks = (n: number): Array<number> => Array.from({ length: n }, (_, i) => ((i * 7) % n) + 1)

describe("medianInterval", () => {
  it("has no interval under 6 values: 2 · 2^-5 already exceeds 5%", () => {
    expect(medianInterval(ranks(5))).toBeUndefined()
    expect(medianInterval([])).toBeUndefined()
  })

  it("is the whole range at 6 values (coverage 1 - 2/64)", () => {
    expect(medianInterval(ranks(6))).toEqual([1, 6])
  })

  it("gives the ranks of the published tables of the sign test", () => {
    // The largest j with P(Bin(n, 1/2) < j) <= 2.5%: n = 10 → 2, n = 24 → 7, n = 40 → 14.
    expect(medianInterval(ranks(10))).toEqual([2, 9])
    expect(medianInterval(ranks(24))).toEqual([7, 18])
    expect(medianInterval(ranks(40))).toEqual([14, 27])
  })

  it("reads values, not positions", () => {
    expect(medianInterval([0.91, 0.8, 1.1, 0.95, 0.9, 0.99, 0.85, 1.02, 0.97, 0.93])).toEqual([0.85, 1.02])
  })
})
