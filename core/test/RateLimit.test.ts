/**
 * The sliding-window law over random request timelines: no window of W ms ever holds more than N accepted requests,
 * and a request is refused only when its own window is full.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { RateLimit } from "@stint/core"

const timeline = fc.record({
  limit: fc.integer({ min: 1, max: 8 }),
  windowMillis: fc.integer({ min: 1, max: 2000 }),
  gaps: fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 200 })
})

const run = (policy: RateLimit.Policy, gaps: ReadonlyArray<number>) => {
  let hits: ReadonlyArray<number> = []
  let now = 1_000_000
  const outcomes: Array<{ at: number; accepted: boolean }> = []
  for (const gap of gaps) {
    now += gap
    const decision = RateLimit.decide(hits, now, policy)
    hits = decision.hits
    outcomes.push({ at: now, accepted: decision.accepted })
  }
  return outcomes
}

describe("RateLimit", () => {
  it.prop("never accepts more than N in any window, and refuses only when the window is full", [timeline], ([t]) => {
    const policy = { limit: t.limit, windowMillis: t.windowMillis }
    const outcomes = run(policy, t.gaps)
    const accepted = outcomes.filter((o) => o.accepted).map((o) => o.at)
    for (const o of outcomes) {
      // Accepted requests in the window (o.at − W, o.at], this one included when accepted.
      const inWindow = accepted.filter((at) => at > o.at - policy.windowMillis && at <= o.at).length
      expect(inWindow).toBeLessThanOrEqual(policy.limit)
      if (!o.accepted) {
        // Refused: the window already held N earlier accepted requests.
        expect(inWindow).toBe(policy.limit)
      }
    }
  }, { fastCheck: { numRuns: 500 } })

  it("is a sliding window, not fixed buckets", () => {
    const policy = { limit: 2, windowMillis: 60_000 }
    // Two at 59.9 s, then at 60.1 s a fixed-minute bucket would accept two more; the sliding window refuses.
    const a = RateLimit.decide([], 59_900, policy)
    const b = RateLimit.decide(a.hits, 59_950, policy)
    const c = RateLimit.decide(b.hits, 60_100, policy)
    expect([a.accepted, b.accepted, c.accepted]).toEqual([true, true, false])
    // Exactly one window after the first request, it has left the window.
    const d = RateLimit.decide(c.hits, 119_900, policy)
    expect(d.accepted).toBe(true)
  })

  it("refused requests do not count", () => {
    const policy = { limit: 1, windowMillis: 1000 }
    const a = RateLimit.decide([], 0, policy)
    const b = RateLimit.decide(a.hits, 500, policy)
    const c = RateLimit.decide(b.hits, 1000, policy)
    expect([a.accepted, b.accepted, c.accepted]).toEqual([true, false, true])
  })

  it("defaults to the spec's 120 per 60 seconds", () => {
    expect(RateLimit.defaultPolicy).toEqual({ limit: 120, windowMillis: 60_000 })
  })
})
