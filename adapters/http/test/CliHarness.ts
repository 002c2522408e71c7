/**
 * Runs the built `stint` binary as a child process: one-shot commands, and `serve` with its ready line, for the CLI
 * tests. Builds the package first when its `dist/` is missing or stale.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

/** The repository root. */
export const root = fileURLToPath(new URL("../../../", import.meta.url))
/** The executable under test. */
export const bin = join(root, "adapters/http/dist/bin.js")

/**
 * Brings `dist/` up to date (`tsc -b` is incremental: a no-op when nothing changed). A lock keeps concurrent test
 * files from building at the same time.
 */
export const build = (): void => {
  execFileSync("flock", ["/tmp/stint-http-build.lock", "npx", "tsc", "-b", "adapters/http/tsconfig.src.json"], {
    cwd: root,
    stdio: "inherit"
  })
}

/** A fresh temporary directory, removed by the returned function. */
export const tempDir = (): { readonly path: string; readonly remove: () => void } => {
  const path = mkdtempSync(join(tmpdir(), "stint-cli-"))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}

/** The environment of a child: the test's, without any `STINT_*` variable unless given. */
const childEnv = (env: Record<string, string> = {}): NodeJS.ProcessEnv => {
  const clean: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("STINT_")) clean[name] = value
  return { ...clean, ...env }
}

/** What a finished command did. */
export interface Result {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `stint ARGS` to completion. */
export const stint = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly cwd?: string } = {}
): Promise<Result> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: options.cwd ?? root, env: childEnv(options.env), timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resolve({ code, stdout, stderr })
      }
    )
  })

/** Runs `stint ARGS`, expecting success, and parses its stdout as JSON. */
export const stintJson = async (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly cwd?: string } = {}
): Promise<unknown> => {
  const result = await stint(args, options)
  if (result.code !== 0) throw new Error(`stint ${args.join(" ")} exited ${result.code}: ${result.stderr}`)
  return JSON.parse(result.stdout)
}

/** A running `stint serve`. */
export interface Serving {
  readonly process: ChildProcess
  /** `http://HOST:PORT` from the ready line. */
  readonly url: string
  /** Every stdout line so far. */
  readonly lines: Array<string>
  readonly stderr: () => string
  /** Resolves with the exit code (and signal) once the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
  /** Sends SIGKILL if still running (cleanup). */
  readonly kill: () => void
}

/** Waits until `predicate` holds for some stdout line of a child, or fails after `timeoutMillis`. */
export const waitForLine = (
  child: ChildProcess,
  lines: Array<string>,
  predicate: (line: string) => boolean,
  timeoutMillis: number
): Promise<string> =>
  new Promise((resolve, reject) => {
    const found = lines.find(predicate)
    if (found !== undefined) return resolve(found)
    const timer = setTimeout(() => {
      cleanup()
      reject(new Error(`no matching line within ${timeoutMillis} ms; got:\n${lines.join("\n")}`))
    }, timeoutMillis)
    const onLine = (line: string) => {
      if (predicate(line)) {
        cleanup()
        resolve(line)
      }
    }
    const onExit = (code: number | null) => {
      cleanup()
      reject(new Error(`process exited (${code}) before a matching line; got:\n${lines.join("\n")}`))
    }
    const cleanup = () => {
      clearTimeout(timer)
      child.off("line", onLine)
      child.off("exit", onExit)
    }
    child.on("line", onLine)
    child.on("exit", onExit)
  })

/** Collects a child's stdout as lines and re-emits each as a `line` event on the child. */
export const collectLines = (child: ChildProcess): Array<string> => {
  const lines: Array<string> = []
  let buffer = ""
  child.stdout?.setEncoding("utf8")
  child.stdout?.on("data", (chunk: string) => {
    buffer += chunk
    let newline = buffer.indexOf("\n")
    while (newline >= 0) {
      const line = buffer.slice(0, newline)
      buffer = buffer.slice(newline + 1)
      lines.push(line)
      child.emit("line", line)
      newline = buffer.indexOf("\n")
    }
  })
  return lines
}

/**
 * Starts `stint serve ARGS` and waits for its ready line. `command` replaces `node dist/bin.js serve` (e.g. with
 * `npm start --`, whose script runs `stint serve --demo`).
 */
export const serve = async (
  args: ReadonlyArray<string>,
  options: {
    readonly env?: Record<string, string>
    readonly cwd?: string
    readonly command?: readonly [string, ...Array<string>]
  } = {}
): Promise<Serving> => {
  const [file, ...prefix] = options.command ?? [process.execPath, bin, "serve"]
  const child = spawn(file, [...prefix, ...args], {
    cwd: options.cwd ?? root,
    env: childEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
    // A wrapping command (npm) runs the server as its child: give them a process group to kill together.
    detached: options.command !== undefined
  })
  const lines = collectLines(child)
  let stderr = ""
  child.stderr.setEncoding("utf8")
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal }))
  )
  const kill = () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    if (options.command !== undefined && child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
    else child.kill("SIGKILL")
  }
  try {
    const ready = await waitForLine(child, lines, (line) => line.includes("listening on http://"), 30_000)
    const url = /listening on (http:\/\/\S+)/.exec(ready)?.[1]
    if (url === undefined) throw new Error(`unexpected ready line: ${ready}`)
    return { process: child, url, lines, stderr: () => stderr, exited, kill }
  } catch (error) {
    kill()
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nstderr:\n${stderr}`)
  }
}
