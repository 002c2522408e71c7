/**
 * What a newcomer does: clone the repository (what is committed), `npm install`, then `npx stint --help`, the browser
 * test of `/docs` (the fresh clone finds its headless Chromium with nothing installed but the project), and
 * `npm start`, wait for the printed curl line, paste it. Slow (a full install with native builds), so it has a
 * generous timeout; it removes its clone and stops the server whatever happens. `STINT_PORT=0` keeps it off port 8787,
 * which another process may hold.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { lstatSync } from "node:fs"
import { afterAll, describe, expect, it } from "vitest"
import { collectLines, root, tempDir, waitForLine } from "./CliHarness.js"

const INSTALL_TIMEOUT = 20 * 60_000
const dir = tempDir()
const clone = `${dir.path}/stint`
let started: ChildProcess | undefined

/** Stops `npm start` and everything it started (it runs in its own process group). */
const stop = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  try {
    process.kill(-child.pid, "SIGTERM")
  } catch {
    return
  }
  const timer = setTimeout(() => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
    } catch {
      // Already gone.
    }
  }, 10_000)
  await exited
  clearTimeout(timer)
}

afterAll(async () => {
  if (started !== undefined) await stop(started)
  dir.remove()
}, 60_000)

/** The environment of a newcomer's shell: this one without Stint's variables or npm's per-script settings. */
const newcomerEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith("STINT_") && !name.startsWith("npm_") && !name.startsWith("VITEST")) env[name] = value
  }
  return { ...env, STINT_PORT: "0" }
}

/** Text without its terminal colours. */
const plain = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, "")

/** Runs a command to success and answers its stdout. */
const run = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  timeout: number,
  env: NodeJS.ProcessEnv = newcomerEnv()
) =>
  new Promise<string>((resolve, reject) => {
    execFile(command, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error === null
        ? resolve(stdout)
        : reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`)))
  })

describe("a newcomer", () => {
  it("clones, runs npm install, npx stint --help, the /docs browser test, npm start and the printed curl line", async () => {
    await run("git", ["clone", "--quiet", root, clone], dir.path, 120_000)
    await run("npm", ["install", "--no-audit", "--no-fund"], clone, INSTALL_TIMEOUT)

    // The bin is linked by npm install itself and runs the build that `prepare` made. `--yes=false` keeps npx from
    // fetching a registry package of that name when there is no local bin (it would, without a terminal to ask on).
    expect(lstatSync(`${clone}/node_modules/.bin/stint`).isSymbolicLink()).toBe(true)
    const help = plain(await run("npx", ["--yes=false", "stint", "--help"], clone, 120_000))
    expect(help).toMatch(/^stint \d+\.\d+\.\d+$/m)
    for (const command of ["serve", "migrate", "seed", "keys create"]) expect(help).toContain(`  - ${command} `)

    // The fresh clone's browser test finds a headless Chromium from its own node_modules (no system browser). It needs
    // no PostgreSQL: the run's server, when there is one, spares the clone's test run from starting its own.
    const database = process.env["STINT_TEST_DATABASE_URL"]
    const docs = await run(
      "npx",
      ["--yes=false", "vitest", "run", "adapters/http/test/Docs.test.ts"],
      clone,
      300_000,
      database === undefined ? newcomerEnv() : { ...newcomerEnv(), STINT_TEST_DATABASE_URL: database }
    )
    expect(plain(docs)).toMatch(/Tests +2 passed \(2\)/)

    const child = spawn("npm", ["start"], { cwd: clone, env: newcomerEnv(), detached: true, stdio: ["ignore", "pipe", "pipe"] })
    started = child
    const lines = collectLines(child)
    let stderr = ""
    child.stderr?.setEncoding("utf8")
    child.stderr?.on("data", (chunk: string) => {
      stderr += chunk
    })
    // The ready line comes last, after the demo's key and curl line.
    await waitForLine(child, lines, (line) => /listening on http:\/\/127\.0\.0\.1:[1-9]\d*$/.test(line), 120_000)
      .catch((error: unknown) => {
        throw new Error(`${String(error)}\nstderr:\n${stderr}`)
      })
    const curl = lines.find((line) => line.startsWith("curl ")) ?? ""
    expect(curl).toMatch(/^curl -s -H 'Authorization: Bearer stint_[A-Za-z0-9_-]{43}' http:\/\/127\.0\.0\.1:\d+\/api\/v1\/clients$/)

    const output = await new Promise<string>((resolve, reject) =>
      execFile("sh", ["-c", curl], { timeout: 20_000 }, (error, stdout) => error === null ? resolve(stdout) : reject(error))
    )
    const body = JSON.parse(output) as { clients: Array<{ name: string }>; canCreateProjects: boolean }
    expect(body.clients.map((client) => client.name)).toEqual(["Demo client"])
    expect(body.canCreateProjects).toBe(true)

    // Ctrl-C (SIGINT to the whole group, as a terminal sends it) stops everything: npm re-raises the signal on
    // itself, so its own exit is by SIGINT; the server stops without a word on stderr and frees its port.
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
    const group = child.pid ?? 0
    process.kill(-group, "SIGINT")
    await exited
    const alive = () => {
      try {
        process.kill(-group, 0)
        return true
      } catch {
        return false
      }
    }
    for (let waited = 0; alive() && waited < 15_000; waited += 100) await new Promise((r) => setTimeout(r, 100))
    expect(alive()).toBe(false)
    expect(stderr).not.toContain("stint:")
    await expect(fetch(new URL(curl.split(" ").at(-1) ?? "").origin + "/healthz")).rejects.toThrow()
  }, INSTALL_TIMEOUT + 5 * 60_000)
})
