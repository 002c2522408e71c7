/**
 * A clock that stands still until told to move, for stacks that declare `controlledClock`. Sleeping still takes real
 * time (so retries and timeouts inside adapters behave), but the time the core reads only changes on `advance`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"

/**
 * A manual clock and its controls.
 *
 * @since 0.1.0
 */
export interface ManualClock {
  readonly clock: Clock.Clock
  readonly now: Effect.Effect<number>
  readonly advance: (millis: number) => Effect.Effect<void>
}

/**
 * A manual clock starting at `start` (epoch ms; default: a fixed instant in 2026).
 *
 * @since 0.1.0
 */
export const make = (start: number = Date.UTC(2026, 10, 22, 9, 0, 0)): ManualClock => {
  let now = start
  const real = Clock.make()
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => now,
    currentTimeMillis: Effect.sync(() => now),
    unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
    sleep: (duration) => real.sleep(duration)
  }
  return {
    clock,
    now: Effect.sync(() => now),
    advance: (millis) =>
      Effect.sync(() => {
        now += millis
      })
  }
}
