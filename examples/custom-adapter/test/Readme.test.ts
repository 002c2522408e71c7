/**
 * The README's code blocks are real files: each block marked `<!-- file: PATH -->` must equal that file byte for byte,
 * so the quick start the README shows is the test `npm test` compiles and runs.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

const root = new URL("../", import.meta.url)
const readme = readFileSync(new URL("README.md", root), "utf8")
const blocks = [...readme.matchAll(/<!-- file: (\S+) -->\n```ts\n([\s\S]*?)```\n/g)]

describe("README.md", () => {
  it("shows the kit test as its quick start", () => {
    expect(blocks.map(([, path]) => path)).toContain("test/JsonFileStore.test.ts")
  })

  it.each(blocks.map(([, path, code]) => [path ?? "", code ?? ""]))("shows %s exactly as it is", (path, code) => {
    expect(code).toBe(readFileSync(new URL(path, root), "utf8"))
  })
})
