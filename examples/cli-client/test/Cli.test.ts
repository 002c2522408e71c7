/**
 * `stint-timer` as a new user runs it: the built command against `stint serve --demo` (what `npm start` serves) on a
 * fresh database, with the key the server printed: status, start, stop and history, and the one-line refusals.
 */
import { execFile, execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { once } from "node:events"
import { mkdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../../", import.meta.url))
// Made when the file's tests run, not when it is loaded: a run that filters them all out leaves nothing behind.
const dir = join(tmpdir(), `stint-timer-${randomUUID()}`)
beforeAll(() => mkdirSync(dir))
const server = { url: "", key: "", stop: async () => {} }

beforeAll(async () => {
  // The same lock as the other tests that build, so that no two builds overlap.
  for (const project of ["adapters/http/tsconfig.src.json", "examples/cli-client/tsconfig.src.json"]) {
    execFileSync("flock", ["/tmp/stint-http-build.lock", "npx", "tsc", "-b", project], { cwd: root, stdio: "inherit" })
  }
  const child = spawn(process.execPath, [
    join(root, "adapters/http/dist/bin.js"),
    "serve",
    "--demo",
    "--port",
    "0",
    "--database",
    `sqlite:${join(dir, "demo.db")}`
  ], { stdio: ["ignore", "pipe", "inherit"] })
  server.stop = async () => {
    if (child.exitCode !== null) return
    child.kill("SIGTERM")
    await once(child, "exit")
  }
  for await (const line of createInterface({ input: child.stdout })) {
    server.key = /API key \(shown once, keep it\): (\S+)/.exec(line)?.[1] ?? server.key
    server.url = /listening on (http:\/\/\S+)/.exec(line)?.[1] ?? ""
    if (server.url !== "") break
  }
  // The request log goes on; nobody reads it.
  child.stdout.resume()
  expect(server.key).toMatch(/^stint_/)
})

afterAll(async () => {
  await server.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs the built `stint-timer ARGS` with the demo's address and key (or `env`). */
const stintTimer = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [join(root, "examples/cli-client/dist/main.js"), ...args],
      { env: { PATH: process.env.PATH ?? "", STINT_URL: server.url, STINT_API_KEY: server.key, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr })
    )
  })

describe("stint-timer against npm start's demo server", () => {
  it("status, start, start again, stop, history", async () => {
    expect(await stintTimer(["status"])).toEqual({ code: 0, stdout: "No timer running.\n", stderr: "" })

    const started = await stintTimer(["start", "--note", "first"])
    expect(started.stdout).toMatch(/^Started Demo project \(Demo client\) at \S+Z\.\n$/)
    expect((await stintTimer(["status"])).stdout).toMatch(/^Running: Demo project \(Demo client\) for \d+s, since \S+Z\. Note: first\n$/)

    const again = await stintTimer(["start", "demo PROJECT", "--not-billable"])
    expect(again.stdout).toMatch(/^Started Demo project \(Demo client\) at \S+\.\nStopped the timer that was running \(\S+\)\.\n$/)
    expect((await stintTimer(["status"])).stdout).toContain(", not billable.")

    const stopped = await stintTimer(["stop"])
    expect(stopped).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Stopped Demo project \(Demo client\) after \d+s\.\n$/) })

    const history = await stintTimer(["history"])
    expect(history.code).toBe(0)
    const lines = history.stdout.trim().split("\n")
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}completed +\d+s {2}Demo project \(Demo client\) {2}\$0\.00$/)
    expect(lines[1]).toMatch(/completed +\d+s {2}Demo project \(Demo client\) {2}\$\d+\.\d\d {2}first$/)
    expect((await stintTimer(["history", "--limit", "1"])).stdout.trim().split("\n")).toEqual([lines[0]])
  })

  it("refuses in one line: nothing to stop, an unknown project, a wrong key", async () => {
    expect(await stintTimer(["stop"])).toEqual({ code: 1, stdout: "", stderr: "stint-timer: no timer running\n" })
    const unknown = await stintTimer(["start", "Nope"])
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringMatching(/^stint-timer: no project "Nope"; yours: Demo project/) })
    const wrongKey = await stintTimer(["status"], { STINT_API_KEY: "stint_notTheRightKey0000" })
    expect(wrongKey).toMatchObject({ code: 1, stderr: expect.stringMatching(/^stint-timer: INVALID_API_KEY: .+ \(request \S+\)\n$/) })
  })

  it("explains itself when the command line is not understood", async () => {
    for (const args of [[], ["frobnicate"], ["status", "now"], ["stop", "--note", "x"], ["history", "--limit", "0"]]) {
      const result = await stintTimer(args)
      expect(result.code).toBe(2)
      expect(result.stderr).toContain("Usage: stint-timer <command>")
    }
    expect((await stintTimer(["status"], { STINT_API_KEY: "" })).stderr).toMatch(/^stint-timer: set STINT_API_KEY/)
    expect(await stintTimer(["--help"])).toMatchObject({ code: 0, stdout: expect.stringContaining("Commands:") })
  })
})
