/**
 * The client-side window on its own, with time under the test's control: the pure window never lets more than
 * `limit` requests be sent within `windowMillis` of another's answer, and never makes a call wait when there is room;
 * the Effect limiter queues calls in that rhythm and gives a place back when a waiting call is interrupted; backoff
 * delays stay within their bounds.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/TestClock"
import * as Backoff from "../src/internal/backoff.js"
import * as Limiter from "../src/internal/limiter.js"
import * as Window from "../src/internal/window.js"

/** A step of a run: time passes, then a request asks for a place or one in flight is answered. */
const step = fc.record({
  elapse: fc.integer({ min: 0, max: 1_500 }),
  action: fc.oneof(fc.constant("take" as const), fc.nat({ max: 50 }))
})

describe("the pure window", () => {
  it("never holds more than `limit` requests between sending and `windowMillis` after the answer", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.array(step, { maxLength: 200 }), (limit, steps) => {
      const windowMillis = 1_000
      let window = Window.empty
      let now = 0
      // Every request sent: when, and when it was answered (undefined while in flight).
      const sent: Array<{ at: number; answered: number | undefined }> = []
      for (const { action, elapse } of steps) {
        now += elapse
        const occupied = sent.filter((r) => r.answered === undefined || r.answered + windowMillis > now).length
        if (action === "take") {
          const decision = Window.take(window, now, limit)
          window = decision.window
          // Room means a place, and a place means room.
          expect(decision._tag === "Taken").toBe(occupied < limit)
          if (decision._tag === "Taken") sent.push({ at: now, answered: undefined })
          if (decision._tag === "WaitUntil") {
            // It waits exactly until the earliest answered request leaves the window.
            const ends = sent.flatMap((r) => r.answered === undefined ? [] : [r.answered + windowMillis])
            expect(decision.at).toBe(Math.min(...ends.filter((end) => end > now)))
          }
          // Waiting for an answer only when every place is held by a request in flight.
          if (decision._tag === "WaitForAnswer") {
            expect(sent.filter((r) => r.answered === undefined)).toHaveLength(limit)
          }
        } else {
          const inFlight = sent.filter((r) => r.answered === undefined)
          const answered = inFlight[action % Math.max(1, inFlight.length)]
          if (answered !== undefined) {
            answered.answered = now
            window = Window.answered(window, now, windowMillis)
          }
        }
        const holding = sent.filter((r) => r.answered === undefined || r.answered + windowMillis > now).length
        expect(holding).toBeLessThanOrEqual(limit)
      }
    }))
  })

  it("after a 429, waits until the earliest own request leaves the window, or a whole window", () => {
    const window = Window.answered(Window.answered(Window.empty, 100, 1_000), 300, 1_000)
    expect(Window.waitAfterRateLimited(window, 500, 1_000)).toBe(600)
    expect(Window.waitAfterRateLimited(window, 1_200, 1_000)).toBe(100)
    expect(Window.waitAfterRateLimited(window, 1_300, 1_000)).toBe(1_000)
  })
})

describe("the limiter", () => {
  it.effect("runs calls in the window's rhythm: 3 at once, the next when the first answers leave the window", () =>
    Effect.gen(function*() {
      const limiter = yield* Limiter.make(3, 1_000)
      const started: Array<number> = []
      const call = limiter.withPlace(Effect.gen(function*() {
        started.push(yield* TestClock.currentTimeMillis)
        yield* Effect.sleep("100 millis")
      }))
      const fiber = yield* Effect.fork(Effect.all(Array.from({ length: 7 }, () => call), { concurrency: "unbounded" }))
      yield* TestClock.adjust("5 seconds")
      yield* Fiber.join(fiber)
      expect(started).toEqual([0, 0, 0, 1_100, 1_100, 1_100, 2_200])
    }))

  it.effect("gives back nothing when a waiting call is interrupted, and the others still run", () =>
    Effect.gen(function*() {
      const limiter = yield* Limiter.make(1, 1_000)
      const started: Array<string> = []
      const call = (name: string) => limiter.withPlace(Effect.sync(() => started.push(name)))
      yield* call("first")
      const waiting = yield* Effect.fork(call("interrupted"))
      yield* TestClock.adjust("500 millis")
      yield* Fiber.interrupt(waiting)
      const next = yield* Effect.fork(call("next"))
      yield* TestClock.adjust("499 millis")
      expect(started).toEqual(["first"])
      yield* TestClock.adjust("1 millis")
      yield* Fiber.join(next)
      expect(started).toEqual(["first", "next"])
    }))

  it.effect("waits for an answer when every place is in flight", () =>
    Effect.gen(function*() {
      const limiter = yield* Limiter.make(1, 1_000)
      const started: Array<number> = []
      const call = limiter.withPlace(Effect.gen(function*() {
        started.push(yield* TestClock.currentTimeMillis)
        yield* Effect.sleep("2 seconds")
      }))
      const fiber = yield* Effect.fork(Effect.all([call, call], { concurrency: "unbounded" }))
      yield* TestClock.adjust("10 seconds")
      yield* Fiber.join(fiber)
      expect(started).toEqual([0, 3_000])
    }))
})

describe("backoff", () => {
  it("grows exponentially up to the cap, jittered between half and all of it", () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 20 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, random) => {
      const cap = Math.min(2_000, 200 * 2 ** (retry - 1))
      const delay = Backoff.delay(retry, 200, 2_000, random)
      expect(delay).toBeGreaterThanOrEqual(cap / 2)
      expect(delay).toBeLessThanOrEqual(cap)
    }))
  })
})
