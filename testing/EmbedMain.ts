/**
 * The tests of the embed examples' `dist/main.js`, run as a team runs it: its command line (all three), a database it
 * cannot open, and shutdown (the two with a handler: it serves Stint and the team's route on a free port, and on
 * SIGTERM it stops, lets the request in flight finish, and disposes Stint, which closes the SQLite file).
 */
import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { expect } from "vitest"

const root = fileURLToPath(new URL("../", import.meta.url))

/** Builds `examples/<example>` (the same build, under the same lock, as the other tests that run built code). */
const built = (example: string): string => {
  execFileSync("flock", ["/tmp/stint-http-build.lock", "npx", "tsc", "-b", `examples/${example}/tsconfig.src.json`], {
    cwd: root,
    stdio: "inherit"
  })
  return join(root, "examples", example, "dist", "main.js")
}

/** Runs `main` with `args` in `cwd` to its exit: its code and what it wrote. */
const run = async (main: string, args: ReadonlyArray<string>, cwd: string) => {
  const child = spawn(process.execPath, [main, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] })
  let stdout = ""
  let stderr = ""
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const code = await new Promise<number | null>((resolve) => child.once("close", (exit) => resolve(exit)))
  return { code, stdout, stderr }
}

/** `dist/main.js` on a database it cannot open (given by its path alone): one line, exit 1, no stack trace. */
export const refusesADatabaseItCannotOpen = (example: string) => async (): Promise<void> => {
  const main = built(example)
  const dir = mkdtempSync(join(tmpdir(), `${example}-main-`))
  try {
    const { code, stderr } = await run(main, ["--database", join(dir, "missing", "stint.db"), "--port", "0"], dir)
    expect(code).toBe(1)
    expect(stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^cannot open the database: SQLite: opening .*missing/)])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * `dist/main.js` answers `--help` with its usage (exit 0); an option it does not take and a port that is not one with a
 * message and its usage (exit 2); a port in use with one line (exit 1), after closing the store it opened (`database`:
 * the options that name `stint.db` in its temporary working directory). Never a stack trace.
 */
export const answersItsCommandLine = (example: string, database: ReadonlyArray<string>) => async (): Promise<void> => {
  const main = built(example)
  const dir = mkdtempSync(join(tmpdir(), `${example}-main-`))
  const taken = createServer()
  try {
    // The usage names the script as it can be run from where it was: its path from there, else its full path.
    const help = await run(main, ["--help"], dir)
    expect([help.code, help.stdout, help.stderr]).toEqual([0, expect.stringMatching(/^usage: node \S+ .*--port N/), ""])
    const named = (stdout: string, path: string) => stdout.slice(0, `usage: node ${path} `.length)
    expect(named(help.stdout, main)).toBe(`usage: node ${main} `)
    const fromFolders: ReadonlyArray<readonly [string, string]> = [
      [root, join("examples", example, "dist", "main.js")],
      [join(root, "examples", example), join("dist", "main.js")]
    ]
    for (const [cwd, path] of fromFolders) {
      expect(named((await run(main, ["--help"], cwd)).stdout, path)).toBe(`usage: node ${path} `)
    }
    const unknown = await run(main, ["--colour"], dir)
    expect([unknown.code, unknown.stdout]).toEqual([2, ""])
    expect(unknown.stderr.trimEnd().split("\n")).toEqual([expect.stringContaining("'--colour'"), expect.stringMatching(/^usage: /)])
    for (const port of ["http", "70000", "-1", ""]) {
      const bad = await run(main, [`--port=${port}`], dir)
      expect([bad.code, bad.stderr.split("\n")[0]]).toEqual([2, `--port takes a port number from 0 to 65535, not ${JSON.stringify(port)}`])
    }
    // parseArgs' own words for a value that starts with a dash, then the usage; no stack trace.
    const dashed = await run(main, ["--port", "-1"], dir)
    expect([dashed.code, dashed.stdout]).toEqual([2, ""])
    expect(dashed.stderr).toMatch(/^Option '--port' argument is ambiguous\.(.|\n)*\nusage: [^\n]*\n$/)
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as { port: number }).port
    const inUse = await run(main, [...database, "--port", String(port)], dir)
    expect(inUse.code).toBe(1)
    expect(inUse.stderr.trimEnd().split("\n")).toEqual([expect.stringMatching(/^cannot (listen|start): .*EADDRINUSE/)])
    // The store it had opened is closed before the exit: the SQLite file is there, its WAL file is gone.
    expect([existsSync(join(dir, "stint.db")), existsSync(join(dir, "stint.db-wal"))]).toEqual([true, false])
  } finally {
    taken.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The test of `examples/<example>/dist/main.js` (built first). */
export const servesUntilSigterm = (example: string) => async (): Promise<void> => {
  const main = built(example)
  const dir = mkdtempSync(join(tmpdir(), `${example}-main-`))
  const database = join(dir, "stint.db")
  // The address as the READMEs give it, in `stint --database`'s form.
  const child = spawn(process.execPath, [main, "--database", `sqlite:${database}`, "--port", "0"], {
    stdio: ["ignore", "ignore", "pipe"]
  })
  try {
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    const url = await new Promise<string>((resolve, reject) => {
      let output = ""
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        output += chunk
        const found = /listening on (http:\/\/\S+)/.exec(output)
        if (found?.[1] !== undefined) resolve(found[1])
      })
      child.once("exit", () => reject(new Error(`exited before listening: ${output}`)))
    })
    const hello = await fetch(`${url}/hello`)
    expect(hello.status).toBe(200)
    expect(existsSync(`${database}-wal`)).toBe(true)
    // A request with a body still arriving when SIGTERM comes: it is answered before the store closes.
    const body = new TransformStream<Uint8Array, Uint8Array>()
    const writer = body.writable.getWriter()
    const inFlight = fetch(`${url}/time/api/v1/projects`, {
      method: "POST",
      headers: { authorization: "Bearer stint_unknown-key-of-the-test", "content-type": "application/json" },
      body: body.readable,
      duplex: "half"
    } as RequestInit)
    await writer.write(new TextEncoder().encode('{"name":'))
    await new Promise((resolve) => setTimeout(resolve, 200))
    child.kill("SIGTERM")
    await new Promise((resolve) => setTimeout(resolve, 200))
    await writer.write(new TextEncoder().encode('"late"}'))
    await writer.close()
    const answer = await inFlight
    expect([answer.status, ((await answer.json()) as { error: { code: string } }).error.code])
      .toEqual([401, "INVALID_API_KEY"])
    expect(await exited).toBe(0)
    expect(existsSync(`${database}-wal`)).toBe(false)
  } finally {
    child.kill("SIGKILL")
    rmSync(dir, { recursive: true, force: true })
  }
}
