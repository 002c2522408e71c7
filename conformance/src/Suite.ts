/**
 * The conformance suite: one call in a vitest test file registers every check the stack's declared capabilities
 * allow; `run` performs the same checks programmatically and reports each one.
 *
 * ```ts
 * import { CoreStack, Suite } from "@stint/conformance"
 * Suite.suite("my adapter", CoreStack.make(myStoreLayer))
 * ```
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { describe } from "vitest"
import * as Laws from "./checks/Laws.js"
import * as Races from "./checks/Races.js"
import * as Storage from "./checks/Storage.js"
import * as StoreLaws from "./checks/StoreLaws.js"
import * as Access from "./examples/Access.js"
import * as Catalog from "./examples/Catalog.js"
import * as Fixtures from "./examples/Fixtures.js"
import * as History from "./examples/History.js"
import * as Idempotency from "./examples/Idempotency.js"
import * as Input from "./examples/Input.js"
import * as Timers from "./examples/Timers.js"
import { collectingHarness, type Harness, vitestHarness } from "./internal/Harness.js"
import * as ModelRun from "./model/ModelRun.js"
import type { Capabilities, Definition } from "./Stack.js"

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
  /**
   * Only the checks whose group is listed (`examples`, `timed`, `model`, `races`, `laws`, `store`, `storage`).
   * Default: all.
   */
  readonly only?: ReadonlyArray<Group> | undefined
}

/** @since 0.1.0 */
export type Group = "examples" | "timed" | "model" | "races" | "laws" | "store" | "storage"

const envNumber = (name: string, integer: (n: number) => boolean): number | undefined => {
  const value = process.env[name]
  if (value === undefined || value === "") return undefined
  const n = Number(value)
  // A mistyped value must not turn checks into runs of nothing that pass.
  if (!/^-?\d+$/.test(value) || !integer(n)) throw new Error(`${name} must be an integer, got "${value}"`)
  return n
}

const positiveRuns = (runs: number | undefined): number => {
  const n = runs ?? envNumber("STINT_CONFORMANCE_RUNS", (x) => x >= 1) ?? 12
  if (!Number.isInteger(n) || n < 1) throw new Error(`the number of runs must be a positive integer, got ${n}`)
  return n
}

/** The definition with its declaration enforced: a stack declaring `http` must report the headers of every answer. */
const enforced = (definition: Definition): Definition =>
  definition.capabilities.http
    ? {
      ...definition,
      make: Effect.map(definition.make, (stack) => ({
        ...stack,
        call: (operation, request) =>
          Effect.flatMap(stack.call(operation, request), (outcome) =>
            outcome.headers === undefined
              ? Effect.dieMessage(`the stack declares http but reported no headers for ${operation}`)
              : Effect.succeed(outcome))
      }))
    }
    : definition

/** Calls `group` for each group of checks that applies, with what it needs. */
const plan = (
  capabilities: Capabilities,
  options: SuiteOptions,
  group: (name: Group, register: (h: Harness) => void) => void
): void => {
  const wanted = (name: Group) => options.only === undefined || options.only.includes(name)
  if (wanted("examples") && options.skipExamples !== true) {
    group("examples", (h) => {
      Access.register(h)
      Catalog.register(h)
      Timers.register(h)
      Idempotency.register(h)
      History.register(h)
      Input.register(h)
      Fixtures.register(h)
    })
  }
  // Clock-dependent rules are checked exactly only where the kit holds the clock; elsewhere they are not registered
  // at all (never reported as passed). The model predicts every field, elapsed seconds included, so it too.
  if (capabilities.controlledClock && wanted("timed") && options.skipExamples !== true) {
    group("timed", (h) => {
      Access.registerTimed(h)
      Timers.registerTimed(h)
      Idempotency.registerTimed(h)
    })
  }
  const runs = positiveRuns(options.runs)
  if (capabilities.concurrent && wanted("races")) {
    group("races", (h) => Races.register(h, { rounds: Math.max(1, Math.ceil(runs / 12)) }))
  }
  if (wanted("laws")) group("laws", (h) => Laws.register(h, { runs: Math.max(10, runs * 2) }))
  // The port's own laws need the store itself, which only a stack that declares it exposes.
  if (capabilities.store === true && wanted("store")) {
    group("store", (h) => StoreLaws.register(h, { runs: Math.max(10, runs * 2) }))
  }
  // Writes past the adapter need a backdoor that makes them, which only a stack that declares it has.
  if (capabilities.storageWrites === true && wanted("storage")) group("storage", Storage.register)
  if (capabilities.controlledClock && wanted("model")) {
    group("model", (h) =>
      ModelRun.register(h, {
        runs,
        maxCommands: options.maxCommands ?? 40,
        seed: envNumber("STINT_CONFORMANCE_SEED", Number.isSafeInteger),
        path: process.env["STINT_CONFORMANCE_PATH"],
        replayPath: process.env["STINT_CONFORMANCE_REPLAY_PATH"],
        timeout: 60_000 + runs * 5_000
      }))
  }
}

/**
 * Registers the conformance checks for a stack under `describe(name)`.
 *
 * @since 0.1.0
 */
export const suite = (name: string, definition: Definition, options: SuiteOptions = {}): void => {
  describe(name, () => {
    // One stack for the whole suite: checks isolate themselves with fresh workspaces, users and keys.
    const h = vitestHarness(enforced(definition).make)
    plan(definition.capabilities, options, (group, register) => describe(group, () => register(h)))
  })
}

/**
 * The result of one check of `run`.
 *
 * @since 0.1.0
 */
export interface CheckResult {
  readonly group: Group
  readonly name: string
  readonly passed: boolean
  readonly error?: unknown
}

/**
 * Runs the checks on one fresh stack, outside vitest's test registration, and reports each. Used to show that the
 * kit catches broken adapters. It runs inside a vitest process only: the checks assert with vitest's `expect`.
 *
 * @since 0.1.0
 */
export const run = (definition: Definition, options: SuiteOptions = {}): Promise<ReadonlyArray<CheckResult>> =>
  Effect.runPromise(Effect.gen(function*() {
    const groups: Array<{ readonly group: Group; readonly harness: ReturnType<typeof collectingHarness> }> = []
    plan(definition.capabilities, options, (group, register) => {
      const harness = collectingHarness()
      register(harness)
      groups.push({ group, harness })
    })
    const scope = yield* Scope.make()
    const stack = yield* Scope.extend(enforced(definition).make, scope)
    const results: Array<CheckResult> = []
    for (const { group, harness } of groups) {
      for (const check of harness.checks) {
        const exit = yield* Effect.exit(check.body(stack))
        results.push(
          Exit.isSuccess(exit)
            ? { group, name: check.name, passed: true }
            : { group, name: check.name, passed: false, error: exit.cause }
        )
      }
    }
    yield* Scope.close(scope, Exit.void)
    return results
  }))
