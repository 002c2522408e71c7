/**
 * The published packages' manifests against their code: every package a source file imports is declared (a missing one
 * works inside this workspace, where everything is hoisted, and breaks the package once installed on its own); every
 * declared dependency is imported; and the packages an application must hold once (Effect's runtime and its platform,
 * SQL and OpenTelemetry API packages, vitest for the kit) are peers, so that an embedder's own copy is the one used.
 * Two copies of `effect` in one application keep two sets of fiber references and two `Context` registries, and their
 * types do not match each other. Also: no `@since` names a version after the package's own.
 */
import { readdirSync, readFileSync } from "node:fs"
import { builtinModules } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../", import.meta.url))

const published = ["core", "adapters/sqlite", "adapters/postgres", "adapters/http", "client", "conformance"]

/** One copy per application: the embedder's. */
const SHARED = [
  "effect",
  "@effect/platform",
  "@effect/platform-node",
  "@effect/sql",
  "@effect/experimental",
  "@opentelemetry/api",
  "vitest"
]

interface Manifest {
  readonly name: string
  readonly version: string
  readonly dependencies?: Readonly<Record<string, string>>
  readonly optionalDependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
}

const manifest = (dir: string): Manifest => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as Manifest

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/** The package name of a bare import specifier (`@scope/name/sub` → `@scope/name`), or undefined. */
const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith(".") || specifier.startsWith("node:") || builtinModules.includes(specifier)) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]
}

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\b[^"']*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g

/** Static imports and re-exports that load their module at run time (not `import type` / `export type`). */
const STATIC_VALUE = /(?:^|\n)\s*(?:import|export)\s+(?!type\b)[^"']*?\bfrom\s*["']([^"']+)["']/g

/** Each package the sources of `dir` import by `pattern`, with the file that does. */
const importsOf = (dir: string, pattern: RegExp): Array<{ readonly file: string; readonly name: string }> =>
  sources(join(root, dir, "src")).flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(pattern)].flatMap((match) => {
      const name = packageOf(match[1] ?? match[2] ?? "")
      return name === undefined ? [] : [{ file: file.slice(root.length), name }]
    })
  )

/** Every package the sources of `dir` import (static, type-only and dynamic imports). */
const imported = (dir: string, self: string): Set<string> =>
  new Set(importsOf(dir, SPECIFIER).map(({ name }) => name).filter((name) => name !== self))

/** `a` before `b` as versions `x.y.z`. */
const before = (a: string, b: string): boolean => {
  const [x, y] = [a, b].map((v) => v.split(".").map(Number)) as [Array<number>, Array<number>]
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0)
  return false
}

describe.each(published)("%s", (dir) => {
  const pkg = manifest(dir)
  // Optional dependencies are installed by default, as dependencies are; a failed build of one does not fail the install.
  const dependencies = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]
  const peers = Object.keys(pkg.peerDependencies ?? {})
  const imports = imported(dir, pkg.name)

  it("declares every package its sources import", () => {
    expect([...imports].filter((name) => !dependencies.includes(name) && !peers.includes(name))).toEqual([])
  })

  it("imports every package it declares, or declares it for a declared package's peer", () => {
    const declared = [...dependencies, ...peers]
    // `@effect/cli` wants `@effect/printer` from its user, `@effect/sql` wants `@effect/platform`, and so on.
    const wanted = new Set(declared.flatMap((name) => Object.keys(manifest(`node_modules/${name}`).peerDependencies ?? {})))
    expect(declared.filter((name) => !imports.has(name) && !wanted.has(name))).toEqual([])
  })

  it("imports its optional dependencies only as types or dynamically (a static import would make them required)", () => {
    const optional = Object.keys(pkg.optionalDependencies ?? {})
    const required = importsOf(dir, STATIC_VALUE).filter(({ name }) => optional.includes(name))
    expect(required.map(({ file, name }) => `${file}: ${name}`)).toEqual([])
  })

  it("takes the packages an application holds once as peers", () => {
    expect(dependencies.filter((name) => SHARED.includes(name))).toEqual([])
  })

  it("names no version after its own in @since", () => {
    const later = sources(join(root, dir, "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(/@since (\d+\.\d+\.\d+)/g)]
        .filter((match) => before(pkg.version, match[1] as string))
        .map((match) => `${file.slice(root.length)}: @since ${match[1]}`)
    )
    expect(later).toEqual([])
  })
})
