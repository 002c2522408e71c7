/**
 * The README's quick start is a real file (`test/quickstart.ts`, shown byte for byte, at most 10 lines), and it works
 * as a new user runs it: against `stint serve --demo` (what `npm start` runs) with the printed key.
 */
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import * as Stint from "./support/Stint.js"

const root = new URL("../", import.meta.url)
const readme = readFileSync(new URL("README.md", root), "utf8")
const blocks = [...readme.matchAll(/<!-- file: (\S+) -->\n```ts\n([\s\S]*?)```\n/g)]

let demo: Awaited<ReturnType<typeof Stint.startDemo>>
beforeAll(async () => {
  Stint.build()
  demo = await Stint.startDemo()
})
afterAll(() => demo.close())

describe("README.md", () => {
  it("shows the quick start exactly as it is, in at most 10 lines", () => {
    expect(blocks.map(([, path]) => path)).toEqual(["test/quickstart.ts"])
    const [, path = "", code = ""] = blocks[0] ?? []
    expect(code).toBe(readFileSync(new URL(path, root), "utf8"))
    expect(code.trimEnd().split("\n").length).toBeLessThanOrEqual(10)
  })

  it("the quick start starts a timer on the demo project and lists the history", async () => {
    process.env.STINT_URL = demo.url
    process.env.STINT_API_KEY = demo.key
    const printed: Array<string> = []
    const log = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      printed.push(args.join(" "))
    })
    try {
      await import("./quickstart.js")
    } finally {
      log.mockRestore()
      delete process.env.STINT_URL
      delete process.env.STINT_API_KEY
    }
    expect(printed[0]).toMatch(/^tracking Demo project since \d{4}-\d\d-\d\dT[\d:.]+Z$/)
    expect(printed.slice(1)).toEqual([expect.stringMatching(/ Demo project active$/)])
    const response = await fetch(`${demo.url}/api/v1/timer`, { headers: { authorization: `Bearer ${demo.key}` } })
    const { timer } = await response.json() as { timer: { projectName: string; note: string } | null }
    expect(timer).toMatchObject({ projectName: "Demo project", note: "Trying Stint" })
  })
})
