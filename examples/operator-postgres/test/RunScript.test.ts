/**
 * `run.sh --smoke` on a fresh database of the test server: two real `stint serve` processes (the built
 * `adapters/http/dist/bin.js`) seeded by `stint seed`, one timer seen across both, and nothing left running after.
 * A second run on the same database finds the fixture loaded and works as well.
 */
import { execFileSync, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import { type FreshDatabase, freshDatabase } from "../../../testing/postgres.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const script = fileURLToPath(new URL("../run.sh", import.meta.url))
const bin = fileURLToPath(new URL("../../../adapters/http/dist/bin.js", import.meta.url))

let database: FreshDatabase
beforeAll(async () => {
  // The same build, under the same lock, as the other tests that run the `stint` command.
  execFileSync("flock", ["/tmp/stint-http-build.lock", "npx", "tsc", "-b", "adapters/http/tsconfig.src.json"], {
    cwd: root,
    stdio: "inherit"
  })
  database = await freshDatabase()
}, 120_000)
afterAll(() => database?.drop())

/** Runs the script to its end, with none of the caller's STINT_ settings. */
const run = (...args: ReadonlyArray<string>): Promise<{ readonly code: number | null; readonly output: string }> =>
  new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = {}
    for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("STINT_")) env[name] = value
    Object.assign(env, { STINT_DATABASE_URL: database.url, STINT_PORTS: "0 0", STINT_BIN: bin })
    const child = spawn("bash", [script, ...args], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
    child.on("close", (code) => resolve({ code, output }))
  })

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

it("serves one timer from two instances on one database, and stops both", async () => {
  const first = await run("--smoke")
  expect(first.code, first.output).toBe(0)
  expect(first.output).toContain("fixture loaded: {workspaces:1,users:2,memberships:2,clients:1,projects:2,")
  expect(first.output).toMatch(/started on instance 0: (\S+)\nrunning on instance 1: \1\n/)
  expect(first.output).toContain("retried on instance 0: replayed, same bytes")
  const pids = [...first.output.matchAll(/\(pid (\d+)\)/g)].map(([, pid]) => Number(pid))
  expect(pids).toHaveLength(2)
  expect(pids.filter(isRunning)).toEqual([])

  const second = await run("--smoke")
  expect(second.code, second.output).toBe(0)
  expect(second.output).toContain("fixture already loaded")
  expect(second.output).toContain("smoke check passed")
}, 120_000)
