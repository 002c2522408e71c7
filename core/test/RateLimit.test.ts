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

/**
 * The packed window against the list: on any sequence of requests, times going back as well as forth (processes whose
 * clocks disagree, a clock stepped back), and the limit changing on the way (an operator lowering it leaves windows
 * fuller than the new limit), `decidePacked` answers as `decide` does and remembers the same times.
 */
describe("RateLimit.decidePacked", () => {
  const steps = fc.record({
    windowMillis: fc.integer({ min: 1, max: 2000 }),
    moves: fc.array(fc.tuple(fc.integer({ min: -700, max: 600 }), fc.integer({ min: 0, max: 8 })), { maxLength: 200 })
  })

  it.prop("answers as decide does and remembers the same times, in ascending order", [steps], ([t]) => {
    let hits: ReadonlyArray<number> = []
    let window = RateLimit.pack([])
    let now = 5_000_000_000_000
    for (const [move, limit] of t.moves) {
      now += move
      const policy = { limit, windowMillis: t.windowMillis }
      const listed = RateLimit.decide(hits, now, policy)
      const packed = RateLimit.decidePacked(window, now, policy)
      expect(packed.accepted).toBe(listed.accepted)
      const remembered = RateLimit.unpack(packed.window)
      expect(remembered).toEqual([...listed.hits].sort((a, b) => a - b))
      // Unchanged means the same bytes: a store may skip the write.
      if (!packed.changed) expect(packed.window).toEqual(window)
      hits = listed.hits
      window = packed.window
    }
  }, { fastCheck: { numRuns: 500 } })

  it("stores each time as 8 big-endian bytes, and packs in ascending order", () => {
    const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
    expect(hex(RateLimit.pack([1_700_000_000_000]))).toBe("0000018bcfe56800")
    expect(hex(RateLimit.pack([2 ** 53 - 1, 0, 2 ** 32 + 5]))).toBe(
      "0000000000000000" + "0000000100000005" + "001fffffffffffff"
    )
    expect(RateLimit.unpack(RateLimit.pack([2 ** 53 - 1, 7]))).toEqual([7, 2 ** 53 - 1])
  })

  it("reads a window inside larger bytes, at any offset", () => {
    const bytes = new Uint8Array(3 + 16)
    bytes.set(RateLimit.pack([1_000, 2_000]), 3)
    const window = bytes.subarray(3)
    expect(RateLimit.unpack(window)).toEqual([1_000, 2_000])
    const decision = RateLimit.decidePacked(window, 2_500, { limit: 2, windowMillis: 1_000 })
    expect([decision.accepted, RateLimit.unpack(decision.window)]).toEqual([true, [2_000, 2_500]])
  })

  it("a full window at a large limit: refused without a change, then accepted once a time leaves", () => {
    const policy = { limit: 10_000, windowMillis: 60_000 }
    const times = Array.from({ length: 10_000 }, (_, i) => 1_000_000 + i)
    const full = RateLimit.pack(times)
    const refused = RateLimit.decidePacked(full, 1_000_000 + 59_999, policy)
    expect([refused.accepted, refused.changed, refused.window.length]).toEqual([false, false, full.length])
    const later = RateLimit.decidePacked(full, 1_000_000 + 60_000, policy)
    expect([later.accepted, later.changed]).toEqual([true, true])
    expect(RateLimit.unpack(later.window)).toEqual([...times.slice(1), 1_060_000])
  })

  it("refuses bytes that are not a whole number of times", () => {
    for (const length of [1, 7, 9, 15]) {
      expect(() => RateLimit.decidePacked(new Uint8Array(length), 0, RateLimit.defaultPolicy)).toThrow(RangeError)
      expect(() => RateLimit.unpack(new Uint8Array(length))).toThrow(RangeError)
    }
  })
})
