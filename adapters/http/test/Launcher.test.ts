/**
 * The `stint` bin that npm links: npm links a package's bins before `prepare` builds `dist/`, so the bin must be a
 * committed, executable file (`bin/stint.js`) that runs the built entry, and says what to do when there is none yet.
 * `Newcomer.test.ts` checks `npx stint --help` on a fresh clone after `npm install`.
 */
import { execFile, execFileSync } from "node:child_process"
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { build, root, tempDir } from "./CliHarness.js"

const manifest = JSON.parse(readFileSync(join(root, "adapters/http/package.json"), "utf8")) as {
  readonly version: string
  readonly bin: Record<string, string>
}
const target = manifest.bin["stint"] ?? ""
const launcher = join(root, "adapters/http", target)

const node = (file: string, args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile(process.execPath, [file, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : null, stdout, stderr })
    })
  })

const dir = tempDir()
beforeAll(build)
afterAll(dir.remove)

describe("the stint bin", () => {
  it("is a file the repository commits, executable, with a node shebang", () => {
    const tracked = execFileSync("git", ["ls-files", "--stage", "--", `adapters/http/${target}`], {
      cwd: root,
      encoding: "utf8"
    })
    // `<mode> <object> <stage>\t<path>`: present in the index (what a clone gets), mode 100755.
    expect(tracked).toMatch(/^100755 [0-9a-f]{40} 0\t/)
    expect(readFileSync(launcher, "utf8").startsWith("#!/usr/bin/env -S node ")).toBe(true)
  })

  it("run as a program, starts node with the young generation capped (its shebang's flag)", async () => {
    // A preload that reports node's own command-line flags, then the launcher executed directly, as npm's link is.
    const report = "data:text/javascript,process.stderr.write(JSON.stringify(process.execArgv))"
    const result = await new Promise<{ readonly stdout: string; readonly stderr: string }>((resolve, reject) => {
      execFile(launcher, ["--version"], { timeout: 60_000, env: { ...process.env, NODE_OPTIONS: `--import=${report}` } }, (error, stdout, stderr) => {
        if (error === null) resolve({ stdout, stderr })
        else reject(error)
      })
    })
    expect(result.stdout.trim()).toBe(manifest.version)
    expect(JSON.parse(result.stderr)).toEqual(["--max-semi-space-size=8"])
  })

  it("runs the built command", async () => {
    const result = await node(launcher, ["--version"])
    expect(result).toMatchObject({ code: 0, stderr: "" })
    expect(result.stdout.trim()).toBe(manifest.version)
  })

  it("without a build, says so and how to build, and exits 1", async () => {
    // A copy of the package's layout with the launcher and no dist/.
    const bin = join(dir.path, target)
    mkdirSync(join(bin, ".."), { recursive: true })
    writeFileSync(join(dir.path, "package.json"), JSON.stringify({ type: "module" }))
    copyFileSync(launcher, bin)
    const result = await node(bin, ["--help"])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain(`stint: the command is not built yet (${join(dir.path, "dist/bin.js")} is missing)`)
    expect(result.stderr).toContain("npm run build")
  })
})
