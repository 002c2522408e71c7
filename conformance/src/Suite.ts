/**
 * The conformance suite: one call in a vitest test file registers every check the stack's capabilities allow.
 *
 * ```ts
 * import { Suite, CoreStack } from "@stint/conformance"
 * Suite.suite("my adapter", CoreStack.make(myStoreLayer))
 * ```
 *
 * @since 0.1.0
 */
import { describe } from "vitest"
import * as Access from "./examples/Access.js"
import * as Catalog from "./examples/Catalog.js"
import * as History from "./examples/History.js"
import * as Idempotency from "./examples/Idempotency.js"
import * as Input from "./examples/Input.js"
import * as Timers from "./examples/Timers.js"
import { harness } from "./internal/Harness.js"
import type { Definition } from "./Stack.js"

/**
 * Options of a suite run.
 *
 * @since 0.1.0
 */
export interface SuiteOptions {
  /** Leaves out the example checks (e.g. to run only the model-based part while debugging). Default false. */
  readonly skipExamples?: boolean | undefined
}

/**
 * Registers the conformance checks for a stack under `describe(name)`.
 *
 * @since 0.1.0
 */
export const suite = (name: string, definition: Definition, options: SuiteOptions = {}): void => {
  const { capabilities } = definition
  describe(name, () => {
    const h = harness(definition.make)
    if (options.skipExamples !== true) {
      describe("access", () => Access.register(h))
      describe("catalog", () => Catalog.register(h))
      describe("timers", () => Timers.register(h))
      describe("idempotency", () => Idempotency.register(h))
      describe("history", () => History.register(h))
      describe("input", () => Input.register(h))
      // Clock-dependent rules are checked exactly only where the kit holds the clock; elsewhere they are not
      // registered at all (never reported as passed).
      if (capabilities.controlledClock) {
        describe("timed", () => {
          Access.registerTimed(h)
          Timers.registerTimed(h)
          Idempotency.registerTimed(h)
        })
      }
    }
  })
}
