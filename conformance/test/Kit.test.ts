/**
 * The kit's own promises about its declarations and options: a stack declaring `http` must report headers, and a
 * mistyped run count is refused rather than turning checks into runs of nothing.
 */
import { Check, CoreStack, Suite, World } from "@stint/conformance"
import { MemoryStore } from "@stint/core"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"

const saved = process.env["STINT_CONFORMANCE_RUNS"]
afterEach(() => {
  if (saved === undefined) delete process.env["STINT_CONFORMANCE_RUNS"]
  else process.env["STINT_CONFORMANCE_RUNS"] = saved
})

describe("the kit", () => {
  it("fails every check of a stack that declares http but reports no headers", async () => {
    const direct = CoreStack.make(MemoryStore.layerMemory)
    const results = await Suite.run({ ...direct, capabilities: { ...direct.capabilities, http: true } }, {
      only: ["examples"]
    })
    expect(results.length).toBeGreaterThan(40)
    expect(results.filter((r) => r.passed).map((r) => r.name)).toEqual([])
  }, 120_000)

  it("exports the helpers its checks use, for an adapter author's own checks", async () => {
    const started = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const stack = yield* CoreStack.make(MemoryStore.layerMemory).make
      const world = yield* World.seed(stack)
      const timer = yield* Check.startOk(stack, world.keys.member, world.projects.website, { note: "mine" })
      Check.expectError(
        yield* stack.call("stopTimer", Check.as(world.keys.member, { idempotencyKey: "k", path: { timerId: World.newId() } })),
        "TIMER_NOT_FOUND"
      )
      yield* Check.stopOk(stack, world.keys.member, timer.id)
      return { timer, entries: yield* Check.history(stack, world.keys.member) }
    })))
    expect(started.entries.map((entry) => [entry["id"], entry["note"], entry["status"]])).toEqual([
      [started.timer.id, "mine", "completed"]
    ])
  })

  it("refuses a run count that is not a positive integer", async () => {
    for (const value of ["abc", "0", "-3", "1.5"]) {
      process.env["STINT_CONFORMANCE_RUNS"] = value
      await expect(Suite.run(CoreStack.make(MemoryStore.layerMemory), { only: ["races"] })).rejects.toThrow(
        /STINT_CONFORMANCE_RUNS|positive integer/
      )
    }
    await expect(Suite.run(CoreStack.make(MemoryStore.layerMemory), { only: ["races"], runs: 0 })).rejects.toThrow()
  }, 120_000)
})
