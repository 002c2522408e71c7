/**
 * Applying migrations, safely from many instances at once: one transaction holding a dedicated advisory lock creates
 * the migrations table if needed and runs `@effect/sql`'s Migrator inside (its own transaction becomes a savepoint),
 * so DDL of concurrent starts never interleaves. Migrations are imported statically, so they load the same from
 * `src/` and from `dist/`. The shared cursor secret is created under the same lock.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Reactivity from "@effect/experimental/Reactivity"
import type { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type pg from "pg"
import { randomBytes } from "node:crypto"
import initial from "../migrations/0001_initial.js"
import { storeError } from "./Failure.js"

const byName = {
  "0001_initial": initial
}

/** The migrations, by id and name. */
export const migrations = Migrator.fromRecord(byName)

/** The id of the last migration this build knows: a database below it lacks tables or columns this build uses. */
export const LATEST = Math.max(...Object.keys(byName).map((name) => Number(name.slice(0, 4))))

/** The table recording applied migrations. */
export const TABLE = "stint_migrations"

/** An arbitrary fixed key for the migration lock (distinct from the per-user timer locks, which are hashes). */
const MIGRATION_LOCK = "7369074217352401234"

const SECRET = "cursor_secret"

const migrator = Migrator.make({})

/**
 * Applies pending migrations, and returns the cursor secret (created now if `createSecret` and none is stored yet).
 */
export const run = (
  pool: pg.Pool,
  options: { readonly createSecret: boolean }
): Effect.Effect<Option.Option<Uint8Array>, StoreError> =>
  Effect.scoped(Effect.gen(function*() {
    const sql = yield* PgClient.fromPool({ acquire: Effect.succeed(pool), applicationName: "stint" })
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}::bigint)`
      yield* sql`CREATE TABLE IF NOT EXISTS ${sql(TABLE)} (
        migration_id integer PRIMARY KEY,
        created_at timestamptz NOT NULL DEFAULT now(),
        name text NOT NULL
      )`
      yield* migrator({ loader: migrations, table: TABLE }).pipe(Effect.provideService(SqlClient.SqlClient, sql))
      if (!options.createSecret) return Option.none<Uint8Array>()
      yield* sql`INSERT INTO settings (name, value) VALUES (${SECRET}, ${randomBytes(32)}) ON CONFLICT (name) DO NOTHING`
      const rows = yield* sql<{ readonly value: Uint8Array }>`SELECT value FROM settings WHERE name = ${SECRET}`
      return Option.map(Option.fromNullable(rows[0]), (row) => new Uint8Array(row.value))
    }))
  })).pipe(
    Effect.provide(Reactivity.layer),
    Effect.catchAll((error) => Effect.fail(storeError("applying migrations", error))),
    Effect.catchAllDefect((defect) => Effect.fail(storeError("applying migrations", defect)))
  )
