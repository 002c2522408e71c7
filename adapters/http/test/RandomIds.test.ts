/**
 * The ids every traced request gets (`internal/randomIds.ts`): W3C Trace Context's form (lowercase hex, 32 and 16
 * digits), never all zeros (invalid there), each drawn once: the pools' text cut in order, across any number of
 * refills, an all-zero id skipped and nothing else.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as RandomIds from "../src/internal/randomIds.js"

describe("RandomIds", () => {
  it("draws ids in W3C form from the system's generator, none twice, across many refills of the pool", () => {
    const ids = RandomIds.make(undefined, 64)
    const seen = new Set<string>()
    for (let i = 0; i < 5_000; i++) {
      const traceId = ids.traceId()
      const spanId = ids.spanId()
      expect(traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(spanId).toMatch(/^[0-9a-f]{16}$/)
      seen.add(traceId)
      seen.add(spanId)
    }
    expect(seen.size).toBe(10_000)
  })

  it("cuts the pools' text in order: no digit used twice, none skipped but a pool's too-short end", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(FastCheck.constantFrom("trace" as const, "span" as const), { minLength: 1, maxLength: 30 }),
        FastCheck.integer({ min: 16, max: 40 }),
        (draws, bytes) => {
          // Pool n holds bytes n*bytes, n*bytes+1, … (mod 256, never a whole zero id): each pool's text is known.
          const texts: Array<string> = []
          const ids = RandomIds.make((pool) => {
            const start = texts.length * bytes
            for (let i = 0; i < pool.length; i++) pool[i] = (start + i) % 255 + 1
            texts.push(pool.toString("hex"))
          }, bytes)
          const drawn = draws.map((draw) => draw === "trace" ? ids.traceId() : ids.spanId())
          // The same cutting by hand: an id that does not fit in what is left of a pool starts the next one.
          let pool = -1
          let at = Infinity
          draws.forEach((draw, i) => {
            const digits = draw === "trace" ? 32 : 16
            if (at + digits > 2 * bytes) {
              pool++
              at = 0
            }
            expect(drawn[i]).toBe(texts[pool]?.slice(at, at + digits))
            at += digits
          })
        }
      )
    )
  })

  it("skips an all-zero id, wherever it falls in the pool, and keeps an id that only starts with zeros", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(FastCheck.constantFrom("trace" as const, "span" as const), { minLength: 1, maxLength: 20 }),
        FastCheck.nat({ max: 3 }),
        (draws, zeroPool) => {
          // Pools of 32 bytes (64 digits): pool number `zeroPool` all zeros, the others zeros but their last byte.
          let filled = 0
          const ids = RandomIds.make((pool) => {
            pool.fill(0)
            if (filled++ !== zeroPool) pool[pool.length - 1] = 1
          }, 32)
          for (const draw of draws) {
            const id = draw === "trace" ? ids.traceId() : ids.spanId()
            expect(id).toMatch(draw === "trace" ? /^[0-9a-f]{32}$/ : /^[0-9a-f]{16}$/)
            expect(id).not.toMatch(/^0+$/)
            // The only id a pool gives that is not all zeros: the one ending in its last byte.
            expect(id.endsWith("01")).toBe(true)
          }
        }
      )
    )
  })

  it("refuses a pool too small for a trace id", () => {
    expect(() => RandomIds.make(undefined, 15)).toThrow(RangeError)
  })
})
