/**
 * A fast-check property over effects, as the laws run it: `runs` cases plus pinned `examples`, stopping at the first
 * failure.
 */
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"

/** Checks `body` for generated values of `arbitrary`; fails with fast-check's report of the first counterexample. */
export const property = <A>(
  arbitrary: fc.Arbitrary<A>,
  runs: number,
  body: (value: A) => Effect.Effect<void, unknown>,
  examples: ReadonlyArray<A> = []
): Effect.Effect<void> =>
  Effect.promise(() =>
    fc.assert(fc.asyncProperty(arbitrary, (value) => Effect.runPromise(body(value))), {
      numRuns: runs,
      endOnFailure: true,
      examples: examples.map((example) => [example])
    })
  )
