/**
 * `stint serve` keeps V8's old generation within 30% of its live heap (`internal/heapGrowth.ts`): without it, V8 lets
 * the old generation grow to up to four times the live heap, and a server whose live heap stays flat climbed from
 * about 130 MB to 210–240 MB RSS under load. Read from V8's own trace of the limits it sets after each full
 * collection (`--trace-gc-verbose`: "[HeapController] Limit: old size: … KB, new limit: … KB (FACTOR)").
 */
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import * as HeapGrowth from "../src/internal/heapGrowth.js"
import { fixture, ownerKey, writeJson } from "./CliFixture.js"
import { bin, build, serve, type Serving, stintJson, tempDir } from "./CliHarness.js"

const dir = tempDir()
beforeAll(build)
afterAll(dir.remove)

const running: Array<Serving> = []
afterEach(() => {
  for (const server of running.splice(0)) server.kill()
})

let counter = 0
/** A served, seeded database with V8's heap trace on stdout; the limits V8 set once serving, after enough load. */
const limitsUnderLoad = async (nodeFlags: ReadonlyArray<string>): Promise<ReadonlyArray<string>> => {
  const db = `sqlite:${join(dir.path, `heap-${++counter}.db`)}`
  await stintJson(["seed", writeJson(join(dir.path, `fixture-${counter}.json`), fixture), "--database", db])
  const server = await serve(["--port", "0", "--database", db], {
    env: { STINT_RATE_LIMIT: "1000000" },
    command: [process.execPath, ...nodeFlags, bin, "serve"]
  })
  running.push(server)
  const from = server.lines.length
  const limits = () => server.lines.slice(from).filter((line) => line.includes("[HeapController] Limit:"))
  // Requests until V8 has collected the old generation at least once while serving (a few hundred suffice).
  for (let batch = 0; limits().length === 0 && batch < 400; batch++) {
    await Promise.all(Array.from({ length: 25 }, () =>
      fetch(`${server.url}/api/v1/time-entries?limit=100`, { headers: { authorization: `Bearer ${ownerKey}` } })
        .then((response) => response.arrayBuffer())))
  }
  return limits()
}

describe("the old generation of a serving process", () => {
  it("may grow to 1.3 times the live heap before a full collection", async () => {
    expect(HeapGrowth.GROWTH_PERCENT).toBe(30)
    const limits = await limitsUnderLoad(["--trace-gc-verbose"])
    expect(limits.length).toBeGreaterThan(0)
    for (const line of limits) expect(line).toMatch(/\(1\.3\)$/)
  })

  it("grows as the operator chose when they set --heap-growing-percent themselves", async () => {
    const limits = await limitsUnderLoad(["--trace-gc-verbose", "--heap-growing-percent=50"])
    expect(limits.length).toBeGreaterThan(0)
    for (const line of limits) expect(line).toMatch(/\(1\.5\)$/)
  })
})

describe("HeapGrowth.flag", () => {
  it("is the bound unless the operator gave a growth on node's command line", () => {
    expect(HeapGrowth.flag([])).toBe("--heap-growing-percent=30")
    expect(HeapGrowth.flag(["--max-old-space-size=512"])).toBe("--heap-growing-percent=30")
    expect(HeapGrowth.flag(["--heap-growing-percent=80"])).toBeUndefined()
    expect(HeapGrowth.flag(["--heap_growing_percent", "10"])).toBeUndefined()
  })
})
