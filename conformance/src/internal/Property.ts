/**
 * fast-check properties over effects, as the laws and the model run them: every case is tried until the first failure,
 * which is then shrunk for a bounded time, and a failing effect rejects with the error it failed with (an assertion
 * keeps its expected and actual values, so vitest shows the difference).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "effect/FastCheck"

/**
 * Runs `effect`; on failure rejects with what it failed with when that is an `Error` (an assertion's `AssertionError`,
 * say), else with effect's own rendering of the cause. `Effect.runPromise` would wrap either in a `FiberFailure`,
 * which keeps the message but not an assertion's expected and actual values.
 */
export const runOrThrow = async <A>(effect: Effect.Effect<A, unknown>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  const error = Cause.squash(exit.cause)
  throw error instanceof Error ? error : new Error(Cause.pretty(exit.cause))
}

/** How long a failure is shrunk at most, by default. */
export const SHRINK_MILLIS = 30_000

/**
 * `fc.assert` in two steps. The search stops at the first failure without shrinking it (`endOnFailure`), and has no
 * time limit: a slow store must not pass by running fewer cases. Then that failure alone is replayed from its seed
 * and path and shrunk for at most `shrinkMillis` (each step against a real store costs a run of its own); the report
 * is fast-check's, with the smallest counterexample reached, its path, and the original error as its `cause`. A
 * failure that does not happen again on replay (a race) is reported as first found. `shrinkMillis` may be a function,
 * asked once the failure is found (to fit what is left of a test's timeout).
 */
export const assertShrunk = async <Ts extends [unknown, ...Array<unknown>]>(
  property: fc.IAsyncPropertyWithHooks<Ts>,
  parameters: fc.Parameters<Ts>,
  shrinkMillis: number | (() => number) = SHRINK_MILLIS
): Promise<void> => {
  const found = await fc.check(property, { ...parameters, endOnFailure: true })
  if (!found.failed) return
  if (found.counterexamplePath !== null) {
    // With a path, one run replays that case alone (and shrinks it when it fails again).
    await fc.assert(property, {
      ...parameters,
      numRuns: 1,
      seed: found.seed,
      path: found.counterexamplePath,
      endOnFailure: false,
      interruptAfterTimeLimit: typeof shrinkMillis === "number" ? shrinkMillis : shrinkMillis(),
      markInterruptAsFailure: true,
      errorWithCause: true
    })
  }
  throw new Error(`${fc.defaultReportMessage(found)}\n(it did not fail again when replayed: shown as first found)`, {
    cause: found.errorInstance
  })
}

/** Checks `body` for generated values of `arbitrary` (and the pinned `examples`); fails with fast-check's report. */
export const property = <A>(
  arbitrary: fc.Arbitrary<A>,
  runs: number,
  body: (value: A) => Effect.Effect<void, unknown>,
  examples: ReadonlyArray<A> = []
): Effect.Effect<void> =>
  Effect.promise(() =>
    assertShrunk(fc.asyncProperty(arbitrary, (value) => runOrThrow(body(value))), {
      numRuns: runs,
      examples: examples.map((example): [A] => [example])
    })
  )
