/**
 * The ids every traced request gets (`internal/randomIds.ts`): W3C Trace Context's form (lowercase hex, 32 and 16
 * digits), never all zeros (invalid there), each drawn once, across any number of pool refills.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as RandomIds from "../src/internal/randomIds.js"

describe("RandomIds", () => {
  it("draws ids in W3C form, none twice, across many refills of the pool", () => {
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

  it("skips an all-zero id, wherever it falls in the pool", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(FastCheck.constantFrom("trace" as const, "span" as const), { minLength: 1, maxLength: 20 }),
        FastCheck.nat({ max: 3 }),
        (draws, zeroPool) => {
          // Pools of 32 bytes (64 digits); pool number `zeroPool` is all zeros, the others all 0xab.
          let filled = 0
          const ids = RandomIds.make((pool) => {
            pool.fill(filled++ === zeroPool ? 0 : 0xab)
          }, 32)
          for (const draw of draws) {
            const id = draw === "trace" ? ids.traceId() : ids.spanId()
            expect(id).toMatch(draw === "trace" ? /^[0-9a-f]{32}$/ : /^[0-9a-f]{16}$/)
            expect(id).not.toMatch(/^0+$/)
          }
        }
      )
    )
  })
})
