/**
 * Holds one stack for a block of vitest tests: built before the first, closed after the last, handed to each test.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll } from "vitest"
import type { MakeStack, Stack } from "../Stack.js"

/** A stack shared by the tests of one block. */
export interface Harness {
  /** The stack; only valid inside a test. */
  readonly stack: () => Stack
  /** Runs a test body against the stack. */
  readonly run: <A, E>(body: (stack: Stack) => Effect.Effect<A, E>) => Promise<A>
}

/** Registers the hooks that build and close one stack for the enclosing `describe`. */
export const harness = (makeStack: MakeStack): Harness => {
  let scope: Scope.CloseableScope | undefined
  let current: Stack | undefined
  beforeAll(async () => {
    scope = await Effect.runPromise(Scope.make())
    current = await Effect.runPromise(Scope.extend(makeStack, scope))
  })
  afterAll(async () => {
    if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
  })
  const stack = () => {
    if (current === undefined) throw new Error("the stack is not built yet")
    return current
  }
  return { stack, run: (body) => Effect.runPromise(body(stack())) }
}
