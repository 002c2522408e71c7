/**
 * The model-based check: random sequences of the seven operations and the admin events, each run from a fresh world,
 * with the real answer compared to the model's after every command. Failures print the seed, the replay path and the
 * shrunk command list, and how to replay them.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import type { Harness } from "../internal/Harness.js"
import { assertShrunk, SHRINK_MILLIS } from "../internal/Property.js"
import type { Model } from "../Model.js"
import * as Admin from "./AdminCommands.js"
import * as C from "./Commands.js"
import * as ModelWorld from "./ModelWorld.js"

/**
 * How long and how hard the model-based check runs.
 *
 * @since 0.1.0
 */
export interface RunOptions {
  readonly runs: number
  readonly maxCommands: number
  readonly seed?: number | undefined
  readonly path?: string | undefined
  /** Which commands of the replayed run to keep: fast-check's `replayPath` of a shrunk command list. */
  readonly replayPath?: string | undefined
  /** Milliseconds the whole property may take. */
  readonly timeout: number
}

/** Mostly the member's key (index 1, who has history and projects everywhere), sometimes any other. */
const keyIndex = fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 3, arbitrary: fc.nat({ max: 11 }) })
const idempotencyKey = fc.oneof(fc.constantFrom("k1", "k2", " k1 ", "k3"), fc.uuid())
const note = fc.constantFrom(undefined, "note", "😀".repeat(500), "")

/** Every command, weighted towards timers. */
export const commands: ReadonlyArray<fc.Arbitrary<C.Command>> = [
  keyIndex.map((k) => new C.ListClients(k)),
  fc.tuple(keyIndex, fc.nat(12), fc.boolean()).map(([k, c, u]) => new C.ListProjects(k, c, u)),
  fc.tuple(keyIndex, fc.nat(12), fc.constantFrom("New", "  spaced  ", "😀".repeat(200), "Ä"), fc.constantFrom(undefined, null, "#AbCdEf"))
    .map(([k, c, n, color]) => new C.CreateProject(k, c, n, color)),
  keyIndex.map((k) => new C.GetActiveTimer(k)),
  ...Array.from({ length: 3 }, () =>
    fc.tuple(keyIndex, fc.nat(12), idempotencyKey, fc.constantFrom(undefined, true, false), note)
      .map(([k, p, i, b, n]) => new C.StartTimer(k, p, i, b, n))),
  ...Array.from({ length: 2 }, () =>
    fc.tuple(keyIndex, fc.nat(30), idempotencyKey).map(([k, e, i]) => new C.StopTimer(k, e, i))),
  ...Array.from({ length: 2 }, () =>
    fc.tuple(
      keyIndex,
      fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 1, arbitrary: fc.constant(undefined) }),
      fc.option(fc.nat(12), { nil: undefined, freq: 3 })
    ).map(([k, l, p]) => new C.ListTimeEntries(k, l, p))),
  fc.tuple(fc.constantFrom("client" as const, "project" as const), fc.nat(12), fc.boolean())
    .map(([entity, i, archived]) => new Admin.SetArchived(entity, i, archived)),
  keyIndex.map((k) => new Admin.RemoveMembership(k)),
  keyIndex.map((k) => new Admin.RevokeKey(k)),
  fc.nat(30).map((e) => new Admin.VoidEntry(e)),
  fc.tuple(fc.nat(30), fc.oneof(fc.constantFrom(0, 1, 999, 1000, 3_600_000), fc.constant("toEnd" as const)))
    .map(([e, back]) => new Admin.MoveEntryStart(e, back)),
  fc.oneof(
    fc.constantFrom(1, 999, 1000, 59_999, 60_000, 3_600_000, 86_400_000),
    fc.integer({ min: 1, max: 3 * 3_600_000 })
  ).map((ms) => new Admin.AdvanceClock(ms))
]

const ran = (command: unknown): boolean =>
  typeof command === "object" && command !== null && "hasRan" in command && command.hasRan === true

/**
 * Registers the model-based check on the harness's stack.
 *
 * @since 0.1.0
 */
export const register = (h: Harness, options: RunOptions): void => {
  h.check(`matches the reference model after every command (${options.runs} runs of up to ${options.maxCommands})`, (stack) =>
    Effect.promise(async () => {
      let executed = 0
      const sequences = fc.commands([...commands], {
        maxCommands: options.maxCommands,
        size: "max",
        ...(options.replayPath === undefined ? {} : { replayPath: options.replayPath })
      })
      const property = fc.asyncProperty(sequences, async (cmds) => {
        const { fixture, model } = ModelWorld.make(await Effect.runPromise(stack.clock.now))
        await Effect.runPromise(Effect.orDie(stack.seed(fixture)))
        await fc.asyncModelRun(() => ({ model: model as Model, real: { stack } }), cmds)
        executed += [...cmds].filter(ran).length
      })
      const started = Date.now()
      try {
        await assertShrunk(property, {
          numRuns: options.runs,
          ...(options.seed === undefined ? {} : { seed: options.seed }),
          ...(options.path === undefined ? {} : { path: options.path })
        }, () => Math.min(SHRINK_MILLIS, Math.max(5_000, options.timeout - (Date.now() - started) - 10_000)))
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error)
        const seed = /seed: (-?\d+)/.exec(text)?.[1]
        const path = /path: "([^"]*)"/.exec(text)?.[1]
        // A shrunk command list is replayed with its seed, its path and which of its commands shrinking kept.
        const kept = /replayPath="([^"]*)"/.exec(text)?.[1]
        const replay = kept === undefined ? "" : ` STINT_CONFORMANCE_REPLAY_PATH=${kept}`
        throw new Error(
          `${text}\n\nReplay this failure with:\n  STINT_CONFORMANCE_SEED=${seed} STINT_CONFORMANCE_PATH=${path}${replay} npx vitest run <this test file>\n`,
          // The error the command failed with (an assertion's expected and actual values, for vitest to show).
          { cause: error instanceof Error ? error.cause : undefined }
        )
      }
      // Figures for long runs: how much was exercised.
      console.info(`[stint conformance] model: ${options.runs} runs, ${executed} commands executed, no failure`)
  }), options.timeout)
}
