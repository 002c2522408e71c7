/**
 * The default ids: UUIDv7, lowercase, the millisecond time in the first 48 bits (so ids sort by creation time), the
 * version and variant bits set, and 74 random bits that differ from id to id, also across the refills of the pool of
 * random bytes they are drawn from.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import { uuidV7 } from "../src/Ids.js"

const FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** The milliseconds in an id's first 48 bits. */
const millisOf = (id: string): number => parseInt(id.slice(0, 8) + id.slice(9, 13), 16)

describe("uuidV7", () => {
  it("writes any time of the 48-bit range in the first 48 bits, with the version and variant bits", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.integer({ min: 0, max: 2 ** 48 - 1 }), (millis) => {
        const id = uuidV7(millis)
        expect(id).toMatch(FORMAT)
        expect(millisOf(id)).toBe(millis)
      }),
      { numRuns: 2_000, examples: [[0], [1], [255], [256], [0xffffff], [0x1000000], [Date.now()], [2 ** 48 - 1]] }
    )
  })

  it("sorts ids of later milliseconds after earlier ones", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.integer({ min: 0, max: 2 ** 48 - 2 }),
        FastCheck.integer({ min: 1, max: 2 ** 20 }),
        (millis, later) => uuidV7(millis) < uuidV7(Math.min(2 ** 48 - 1, millis + later))
      )
    )
  })

  it("never repeats its random part, across many refills of its pool of random bytes", () => {
    const seen = new Set<string>()
    const count = 20_000
    for (let i = 0; i < count; i++) seen.add(uuidV7(1_700_000_000_000).slice(14))
    expect(seen.size).toBe(count)
  })
})
