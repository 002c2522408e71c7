/**
 * The storage adapters are optional dependencies of `@stint/http`, loaded when an address of their kind is first used:
 * importing the package loads neither database driver, a `sqlite:` address loads SQLite's alone, and an adapter that
 * is not installed is named in the failure.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PgStore } from "@stint/postgres"
import { Effect, Exit } from "effect"
import { beforeAll, describe, expect, it } from "vitest"
import * as Adapters from "../src/internal/adapters.js"
import { PoolStats } from "../src/internal/poolStats.js"
import { build, root } from "./CliHarness.js"

// The child processes import the built package.
beforeAll(build, 120_000)

/** The CommonJS drivers a child process has loaded after `script` (the drivers are CommonJS; their paths are telling). */
const driversLoadedAfter = (script: string): Array<string> => {
  const report = `
    const { createRequire } = await import("node:module")
    const loaded = Object.keys(createRequire(import.meta.url).cache)
    const drivers = ["pg", "better-sqlite3"].filter((name) => loaded.some((file) => file.includes("/node_modules/" + name + "/")))
    process.stdout.write(JSON.stringify(drivers))`
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", `${script}\n${report}`], {
    cwd: root,
    encoding: "utf8"
  })
  return JSON.parse(out) as Array<string>
}

describe("storage adapters, loaded when used", () => {
  it("importing @stint/http loads neither database driver", () => {
    expect(driversLoadedAfter(`await import("@stint/http")`)).toEqual([])
  })

  it("a sqlite: address loads SQLite's driver and not PostgreSQL's", () => {
    const dir = mkdtempSync(join(tmpdir(), "stint-adapters-"))
    try {
      const url = JSON.stringify(`sqlite:${join(dir, "a.db")}`)
      const script = `const { Database } = await import("@stint/http")
        const { Effect } = await import("effect")
        await Effect.runPromise(Database.migrate(${url}))`
      expect(driversLoadedAfter(script)).toEqual(["better-sqlite3"])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("the metrics listener looks the pool up under PgStore.PoolStats's own key", () => {
    expect(PoolStats.key).toBe(PgStore.PoolStats.key)
  })

  it("an adapter that is not installed is named, with the package to add", async () => {
    const missing = "@stint/not-installed"
    const exit = await Effect.runPromiseExit(Adapters.load(missing, "Imaginary", () => import(missing)))
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      expect(exit.cause.toString()).toContain(
        "Imaginary support is not installed: add the @stint/not-installed package (npm install @stint/not-installed)"
      )
    }
  })

  it("a missing module inside an installed adapter is not taken for the adapter missing", async () => {
    const inner = "@stint/not-installed-either"
    const exit = await Effect.runPromiseExit(Adapters.load("@stint/sqlite", "SQLite", () => import(inner)))
    expect(Exit.isFailure(exit) && exit.cause.toString()).toContain("loading @stint/sqlite failed")
    const caught = await import(inner).then(() => undefined, (cause: unknown) => cause)
    expect(Adapters.isNotInstalled(caught, inner)).toBe(true)
    expect(Adapters.isNotInstalled(caught, "@stint/sqlite")).toBe(false)
  })
})
