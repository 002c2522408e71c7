/**
 * Where the kit's checks go: registered as vitest tests sharing one stack per block (`vitestHarness`), or collected to
 * be run programmatically (`collectingHarness`, used by `Suite.run`).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, it } from "vitest"
import type { MakeStack, Stack } from "../Stack.js"
import { runOrThrow } from "./Property.js"

/** A check: a name and a body run against the stack. */
export interface Check {
  readonly name: string
  readonly body: (stack: Stack) => Effect.Effect<void, unknown>
  readonly timeout?: number | undefined
}

/** Receives the kit's checks. */
export interface Harness {
  readonly check: (name: string, body: (stack: Stack) => Effect.Effect<void, unknown>, timeout?: number) => void
}

/** Registers each check as a vitest test; one stack is built before the first and closed after the last. */
export const vitestHarness = (makeStack: MakeStack): Harness => {
  let scope: Scope.CloseableScope | undefined
  let current: Stack | undefined
  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    current = await Effect.runPromise(Scope.extend(makeStack, scope))
  })
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  return {
    check: (name, body, timeout) =>
      it(name, () => {
        if (current === undefined) throw new Error("the stack is not built yet")
        // The error itself, not effect's wrapper of it: vitest then shows an assertion's expected and actual values.
        return runOrThrow(body(current))
      }, timeout)
  }
}

/** Collects the checks instead of registering them. */
export const collectingHarness = (): Harness & { readonly checks: Array<Check> } => {
  const checks: Array<Check> = []
  return { checks, check: (name, body, timeout) => checks.push({ name, body, timeout }) }
}
