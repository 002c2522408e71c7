/**
 * The heap settings of `stint serve` (`internal/heap.ts`), read from V8's own traces under load:
 * - it keeps the old generation within 50% of its live heap: without it, V8 lets the old generation grow to up to
 *   four times the live heap, and a server whose live heap stays flat climbed from about 130 MB to 210–240 MB RSS
 *   under load (`--trace-gc-verbose`: "[HeapController] Limit: old size: … KB, new limit: … KB (FACTOR)" after each
 *   full collection);
 * - it turns V8's allocation-site pretenuring off: with it, sites on the request path were moved to the old
 *   generation and a list request cost about a third more CPU (`--trace-pretenuring-statistics` prints "pretenuring:"
 *   lines at young collections while V8 gathers its feedback, and none once it is off).
 */
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import * as Heap from "../src/internal/heap.js"
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
/**
 * A served, seeded database with node's `flags` (V8's traces go to stdout), and requests until `enough` holds of the
 * lines logged once serving (a few hundred requests suffice) or 10,000 were sent; those lines.
 */
const linesUnderLoad = async (
  nodeFlags: ReadonlyArray<string>,
  enough: (lines: ReadonlyArray<string>) => boolean
): Promise<ReadonlyArray<string>> => {
  const db = `sqlite:${join(dir.path, `heap-${++counter}.db`)}`
  await stintJson(["seed", writeJson(join(dir.path, `fixture-${counter}.json`), fixture), "--database", db])
  const server = await serve(["--port", "0", "--database", db], {
    env: { STINT_RATE_LIMIT: "1000000" },
    command: [process.execPath, ...nodeFlags, bin, "serve"]
  })
  running.push(server)
  const from = server.lines.length
  for (let batch = 0; !enough(server.lines.slice(from)) && batch < 400; batch++) {
    await Promise.all(Array.from({ length: 25 }, () =>
      fetch(`${server.url}/api/v1/time-entries?limit=100`, { headers: { authorization: `Bearer ${ownerKey}` } })
        .then((response) => response.arrayBuffer())))
  }
  return server.lines.slice(from)
}

/**
 * The limits V8 set once serving, after load. `--gc-global` makes every collection a full one, so the first requests
 * already set a limit: left to itself, a server whose live heap stays flat may serve 10,000 requests without one full
 * collection (seen in CI), and the test would have nothing to read. The flag changes when V8 collects, not the factor
 * it sets after a full collection: without `--heap-growing-percent` the lines show V8's own (up to 4.0).
 */
const limitsUnderLoad = async (nodeFlags: ReadonlyArray<string>): Promise<ReadonlyArray<string>> => {
  const limits = (lines: ReadonlyArray<string>) => lines.filter((line) => line.includes("[HeapController] Limit:"))
  return limits(await linesUnderLoad(["--gc-global", ...nodeFlags], (lines) => limits(lines).length > 0))
}

/** V8's pretenuring lines once serving, over enough load for several young collections (10,000 requests). */
const pretenuringUnderLoad = async (nodeFlags: ReadonlyArray<string>): Promise<ReadonlyArray<string>> => {
  const pretenuring = (lines: ReadonlyArray<string>) => lines.filter((line) => line.includes("pretenuring:"))
  const flags = ["--trace-pretenuring-statistics", ...nodeFlags]
  return pretenuring(await linesUnderLoad(flags, (lines) => pretenuring(lines).length > 0))
}

describe("the old generation of a serving process", () => {
  it("may grow to 1.5 times the live heap before a full collection", async () => {
    expect(Heap.GROWTH_PERCENT).toBe(50)
    const limits = await limitsUnderLoad(["--trace-gc-verbose"])
    expect(limits.length).toBeGreaterThan(0)
    for (const line of limits) expect(line).toMatch(/\(1\.5\)$/)
  })

  it("grows as the operator chose when they set --heap-growing-percent themselves", async () => {
    const limits = await limitsUnderLoad(["--trace-gc-verbose", "--heap-growing-percent=80"])
    expect(limits.length).toBeGreaterThan(0)
    for (const line of limits) expect(line).toMatch(/\(1\.8\)$/)
  })
})

describe("pretenuring in a serving process", () => {
  it("is off: V8 gathers no pretenuring feedback while serving", async () => {
    expect(await pretenuringUnderLoad([])).toEqual([])
  })

  it("is on when the operator turned it on themselves, and then V8 does gather its feedback", async () => {
    expect((await pretenuringUnderLoad(["--allocation-site-pretenuring"])).length).toBeGreaterThan(0)
  })
})

describe("the flags a process sets", () => {
  it("bound the growth unless the operator gave a growth on node's command line", () => {
    expect(Heap.growthFlag([])).toBe("--heap-growing-percent=50")
    expect(Heap.growthFlag(["--max-old-space-size=512"])).toBe("--heap-growing-percent=50")
    expect(Heap.growthFlag(["--heap-growing-percent=80"])).toBeUndefined()
    expect(Heap.growthFlag(["--heap_growing_percent", "10"])).toBeUndefined()
  })

  it("turn pretenuring off unless the operator chose either way on node's command line", () => {
    expect(Heap.pretenuringFlag([])).toBe("--no-allocation-site-pretenuring")
    expect(Heap.pretenuringFlag(["--max-semi-space-size=8"])).toBe("--no-allocation-site-pretenuring")
    expect(Heap.pretenuringFlag(["--allocation-site-pretenuring"])).toBeUndefined()
    expect(Heap.pretenuringFlag(["--no-allocation_site_pretenuring"])).toBeUndefined()
    expect(Heap.pretenuringFlag(["--allocation-site-pretenuring-extra"])).toBe("--no-allocation-site-pretenuring")
  })
})
