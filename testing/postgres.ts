/**
 * Databases for Postgres tests: each test file asks for its own uniquely named database on the run's server (see
 * `globalSetup.ts`), so files run in parallel without seeing each other's rows. Asking fails loudly when the run has
 * no server.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { inject } from "vitest"

/** A database of its own: its address and how to drop it. */
export interface FreshDatabase {
  readonly url: string
  readonly name: string
  readonly drop: () => Promise<void>
}

/**
 * The superuser address of the run's server (the database named in it is the admin database).
 */
export const serverUrl = (): string => {
  const server = inject("stintPostgres")
  if ("error" in server) {
    throw new Error(`Postgres tests need a PostgreSQL server and none could be had: ${server.error}`)
  }
  return server.url
}

/** The same server address with another database name. */
export const withDatabase = (url: string, name: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${name}`
  return parsed.toString()
}

/** Runs `f` with a connection to the server's admin database. */
export const withAdmin = async <A>(f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: serverUrl(), connectionTimeoutMillis: 10_000 })
  client.on("error", () => undefined)
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end().catch(() => undefined)
  }
}

/**
 * Creates an empty database with a unique name. `drop` removes it, closing any connections still open to it.
 */
export const freshDatabase = async (): Promise<FreshDatabase> => {
  const name = `stint_test_${randomBytes(8).toString("hex")}`
  await withAdmin(async (client) => {
    // Concurrent CREATE DATABASE from parallel files can find the template busy for a moment: try again.
    for (let attempt = 0;; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${name}`)
        return
      } catch (error) {
        const code = (error as { readonly code?: unknown }).code
        if (code !== "55006" || attempt >= 20) throw error
        await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200))
      }
    }
  })
  return {
    url: withDatabase(serverUrl(), name),
    name,
    drop: () => withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
  }
}

/**
 * A fresh database for the life of the enclosing scope.
 */
export const freshDatabaseScoped: Effect.Effect<FreshDatabase, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(freshDatabase),
  (database) => Effect.promise(database.drop)
)
