/**
 * The dependency rule: `core/src` imports only `effect` (and its own modules). No Node built-ins, no HTTP, no SQL.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const srcDir = fileURLToPath(new URL("../src", import.meta.url))

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

/** Every module specifier of `import … from "x"`, `export … from "x"`, `import("x")` and `require("x")`. */
export const specifiers = (code: string): Array<string> =>
  [...code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1] ?? "")

const allowed = (specifier: string) => specifier.startsWith("./") || specifier.startsWith("../") ||
  specifier === "effect" || specifier.startsWith("effect/")

describe("core dependency rule", () => {
  it("finds the imports it is meant to police", () => {
    expect(specifiers(`import * as fs from "node:fs"\nexport * from './x.js'\nconst m = await import("pg")`))
      .toEqual(["node:fs", "./x.js", "pg"])
    expect(allowed("node:crypto")).toBe(false)
    expect(allowed("@effect/sql")).toBe(false)
  })

  it("core/src imports nothing but effect", () => {
    const files = sources(srcDir)
    expect(files.length).toBeGreaterThan(10)
    const offending = files.flatMap((file) =>
      specifiers(readFileSync(file, "utf8")).filter((s) => !allowed(s)).map((s) => `${file}: ${s}`)
    )
    expect(offending).toEqual([])
  })
})
