/**
 * The kit's own promises about its declarations and options: a stack declaring `http` must report headers, and a
 * mistyped run count is refused rather than turning checks into runs of nothing.
 */
import { CoreStack, Suite } from "@stint/conformance"
import { MemoryStore } from "@stint/core"
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
