/**
 * A real Stint for the client's tests: the built `stint` binary serving a temporary SQLite file seeded with a fixture
 * (`stint seed`), and the binary's admin commands against the same file (a backdoor the client does not use).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root. */
export const root = fileURLToPath(new URL("../../../", import.meta.url))
const bin = join(root, "adapters/http/dist/bin.js")

/**
 * Brings the built packages up to date (`tsc -b` is incremental). The lock is the one the HTTP adapter's tests take,
 * so that no two test files build at once.
 */
export const build = (project = "adapters/http/tsconfig.src.json"): void => {
  execFileSync("flock", ["/tmp/stint-http-build.lock", "npx", "tsc", "-b", project], { cwd: root, stdio: "inherit" })
}

/** The environment of a child: this one without `STINT_*` variables, plus `env`. */
export const childEnv = (env: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const clean: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("STINT_")) clean[name] = value
  return { ...clean, ...env }
}

/** Runs a program to completion; rejects with its stderr when it fails. */
export const runFile = (
  file: string,
  args: ReadonlyArray<string>,
  env: Record<string, string> = {}
): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(file, args, { cwd: root, env: childEnv(env), timeout: 60_000 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`${args.join(" ")}: ${error.message}\n${stderr}`)))
  })

/** Waits for a line of a child's stdout that matches, collecting every line. */
export const readyLine = (child: ChildProcess, pattern: RegExp, timeoutMillis = 60_000) => {
  const lines: Array<string> = []
  let stderr = ""
  child.stderr?.setEncoding("utf8")
  child.stderr?.on("data", (chunk: string) => (stderr += chunk))
  const matched = new Promise<RegExpExecArray>((resolve, reject) => {
    let buffer = ""
    const timer = setTimeout(() => reject(new Error(`no ready line:\n${lines.join("\n")}\n${stderr}`)), timeoutMillis)
    child.stdout?.setEncoding("utf8")
    child.stdout?.on("data", (chunk: string) => {
      buffer += chunk
      const parts = buffer.split("\n")
      buffer = parts.pop() ?? ""
      for (const line of parts) {
        lines.push(line)
        const match = pattern.exec(line)
        if (match !== null) {
          clearTimeout(timer)
          resolve(match)
        }
      }
    })
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`exited (${code}) before the ready line:\n${lines.join("\n")}\n${stderr}`))
    })
  })
  return { lines, matched }
}

/** Stops a child with SIGTERM and waits for it. */
export const stop = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
  await exited
  clearTimeout(timer)
}

/** A running `stint serve`. */
export interface Stint {
  /** `http://127.0.0.1:PORT`. */
  readonly url: string
  readonly database: string
  /** A GET straight to the server with `key`, bypassing the client: its status and parsed body. */
  readonly get: <A>(key: string, path: string) => Promise<A>
  /** Runs `stint ARGS --database <this one>` and parses its JSON output. */
  readonly admin: (args: ReadonlyArray<string>) => Promise<unknown>
  readonly close: () => Promise<void>
}

/** Seeds `fixture` into a fresh SQLite file and serves it, with `env` (e.g. the rate limit). */
export const start = async (fixture: unknown, env: Record<string, string> = {}): Promise<Stint> => {
  const dir = mkdtempSync(join(tmpdir(), "stint-client-"))
  const database = `sqlite:${join(dir, "stint.db")}`
  const fixtureFile = join(dir, "fixture.json")
  writeFileSync(fixtureFile, JSON.stringify(fixture))
  await runFile(process.execPath, [bin, "seed", fixtureFile, "--database", database])
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", "--database", database], {
    cwd: root,
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"]
  })
  try {
    const [, url = ""] = await readyLine(child, /listening on (http:\/\/\S+)/).matched
    return {
      url,
      database,
      get: async <A>(key: string, path: string) => {
        const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } })
        if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`)
        return await response.json() as A
      },
      admin: async (args) => JSON.parse(await runFile(process.execPath, [bin, ...args, "--database", database])),
      close: async () => {
        await stop(child)
        rmSync(dir, { recursive: true, force: true })
      }
    }
  } catch (error) {
    child.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
    throw error
  }
}

/** A running `stint serve --demo` (what `npm start` runs) on a fresh SQLite file: its address and the printed key. */
export const startDemo = async (): Promise<{ readonly url: string; readonly key: string; readonly close: () => Promise<void> }> => {
  const dir = mkdtempSync(join(tmpdir(), "stint-client-demo-"))
  const child = spawn(process.execPath, [bin, "serve", "--demo", "--port", "0", "--database", `sqlite:${join(dir, "demo.db")}`], {
    cwd: root,
    env: childEnv(),
    stdio: ["ignore", "pipe", "pipe"]
  })
  const close = async () => {
    await stop(child)
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const { lines, matched } = readyLine(child, /listening on (http:\/\/\S+)/)
    const [, url = ""] = await matched
    const key = lines.flatMap((line) => /API key \(shown once, keep it\): (\S+)/.exec(line)?.[1] ?? []).at(0)
    if (key === undefined) throw new Error(`no demo key in:\n${lines.join("\n")}`)
    return { url, key, close }
  } catch (error) {
    await close()
    throw error
  }
}
