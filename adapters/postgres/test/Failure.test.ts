/**
 * The retry of transient failures (serialization failures and deadlocks): every statement of the store goes through
 * it. A transient failure is retried at most `TRANSIENT_RETRIES` times with a growing pause; anything else fails at
 * once; a first attempt that succeeds runs once.
 */
import { describe, expect, it } from "@effect/vitest"
import { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import { retryTransient, TRANSIENT_RETRIES } from "../src/internal/Failure.js"

/** An error as node-postgres reports a server error with this SQLSTATE. */
const serverError = (code: string) =>
  new StoreError({ message: `PostgreSQL: failed (${code})`, cause: Object.assign(new Error(code), { code, severity: "ERROR" }) })

/** An effect that fails with `errors` in turn, then succeeds with the number of attempts; and its attempt times. */
const flaky = (errors: ReadonlyArray<StoreError>) => {
  const at: Array<number> = []
  const effect = Effect.suspend(() => {
    at.push(Date.now())
    const error = errors[at.length - 1]
    return error === undefined ? Effect.succeed(at.length) : Effect.fail(error)
  })
  return { effect, at }
}

describe("retryTransient", () => {
  it.live("runs a succeeding statement once", () =>
    Effect.gen(function*() {
      const { effect, at } = flaky([])
      expect(yield* retryTransient(effect)).toBe(1)
      expect(at).toHaveLength(1)
    }))

  it.live("retries serialization failures and deadlocks, with growing pauses, until the statement succeeds", () =>
    Effect.gen(function*() {
      const { effect, at } = flaky([serverError("40001"), serverError("40P01"), serverError("40001")])
      expect(yield* retryTransient(effect)).toBe(4)
      const pauses = at.slice(1).map((t, i) => t - (at[i] ?? t))
      // 10, 20 and 40 ms, each jittered to between 80% and 120% (timers may fire a little late, never early).
      expect(pauses[0]).toBeGreaterThanOrEqual(7)
      expect(pauses[1]).toBeGreaterThanOrEqual(15)
      expect(pauses[2]).toBeGreaterThanOrEqual(31)
    }))

  it.live(`gives up after ${TRANSIENT_RETRIES} retries with the last failure`, () =>
    Effect.gen(function*() {
      const errors = Array.from({ length: TRANSIENT_RETRIES + 2 }, () => serverError("40001"))
      const { effect, at } = flaky(errors)
      const result = yield* Effect.flip(retryTransient(effect))
      expect(result).toBe(errors[TRANSIENT_RETRIES])
      expect(at).toHaveLength(TRANSIENT_RETRIES + 1)
    }))

  it.live("fails at once on any other failure", () =>
    Effect.gen(function*() {
      const unique = serverError("23505")
      const { effect, at } = flaky([unique])
      expect(yield* Effect.flip(retryTransient(effect))).toBe(unique)
      expect(at).toHaveLength(1)
      const network = new StoreError({ message: "PostgreSQL: failed", cause: new Error("ECONNRESET") })
      const second = flaky([network])
      expect(yield* Effect.flip(retryTransient(second.effect))).toBe(network)
      expect(second.at).toHaveLength(1)
    }))
})
