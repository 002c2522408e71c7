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
import * as ModelRun from "./model/ModelRun.js"
import type { Definition } from "./Stack.js"

/**
 * Options of a suite run.
 *
 * @since 0.1.0
 */
export interface SuiteOptions {
  /** Leaves out the example checks (e.g. to run only the model-based part while debugging). Default false. */
  readonly skipExamples?: boolean | undefined
  /**
   * Runs of the model-based check. Default: `STINT_CONFORMANCE_RUNS` from the environment, else 12 (the quick mode
   * of `npm test`). Nightly or pre-release runs set `STINT_CONFORMANCE_RUNS=500` or more.
   */
  readonly runs?: number | undefined
  /** The longest command sequence of one run. Default 40. */
  readonly maxCommands?: number | undefined
}

const envNumber = (name: string): number | undefined => {
  const value = process.env[name]
  return value === undefined || value === "" ? undefined : Number(value)
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
    // The model predicts every field, elapsed seconds included, so it needs the kit's clock.
    if (capabilities.controlledClock) {
      const runs = options.runs ?? envNumber("STINT_CONFORMANCE_RUNS") ?? 12
      describe("model", () =>
        ModelRun.register(h, {
          runs,
          maxCommands: options.maxCommands ?? 40,
          seed: envNumber("STINT_CONFORMANCE_SEED"),
          path: process.env["STINT_CONFORMANCE_PATH"],
          timeout: 60_000 + runs * 5_000
        }))
    }
  })
}
