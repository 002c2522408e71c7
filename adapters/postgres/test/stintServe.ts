/**
 * Real `stint serve` processes (the built `adapters/http/dist/bin.js`) on a PostgreSQL database, for the multi-instance
 * tests: started with `--port 0`, ready once they print `listening on http://HOST:PORT`, killed afterwards.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const bin = fileURLToPath(new URL("../../http/dist/bin.js", import.meta.url))

/**
 * Brings the `stint` command's `dist/` up to date (incremental; the lock is the one the HTTP package's own CLI tests
 * take, so parallel test files never build at once).
 */
export const build = (): void => {
  execFileSync("flock", ["/tmp/stint-http-build.lock", "npx", "tsc", "-b", "adapters/http/tsconfig.src.json"], {
    cwd: root,
    stdio: "inherit"
  })
}

/** A running instance. */
export interface Instance {
  readonly url: string
  readonly process: ChildProcess
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** Starts `stint serve --port 0 --database URL` and waits (at most 30 s) for its ready line. */
export const serve = (database: string): Promise<Instance> =>
  new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {}
    for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("STINT_")) env[name] = value
    const child = spawn(process.execPath, [bin, "serve", "--host", "127.0.0.1", "--port", "0", "--database", database], {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    const exited = new Promise<void>((done) => child.on("exit", () => done()))
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000)
      await exited
      clearTimeout(killer)
    }
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`stint serve printed no ready line within 30 s\nstdout:\n${stdout}\nstderr:\n${stderr}`))
    }, 30_000)
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
    })
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      // Keep only the start: the request log is drained, not kept.
      if (stdout.length < 10_000) stdout += chunk
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1]
      if (url !== undefined) {
        clearTimeout(timer)
        resolve({ url, process: child, stderr: () => stderr, stop })
      }
    })
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`stint serve exited (${code}) before it was ready\nstderr:\n${stderr}`))
    })
  })
