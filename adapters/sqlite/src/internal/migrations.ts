/**
 * Applying the schema migrations with `@effect/sql`'s Migrator, inside one `BEGIN IMMEDIATE` transaction so that two
 * processes opening a fresh file at once cannot both migrate it: the second waits for the first and finds nothing to
 * do. The migrations are imported statically, so they run the same from `src/` and from `dist/`.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import initial from "../migrations/0001_initial.js"
import membershipsByUser from "../migrations/0002_memberships_by_user.js"
import rateLimitWindows from "../migrations/0003_rate_limit_windows.js"
import rateLimitWindowsPacked from "../migrations/0004_rate_limit_windows_packed.js"
import { immediate, storeError } from "./database.js"

const byName = {
  "0001_initial": initial,
  "0002_memberships_by_user": membershipsByUser,
  "0003_rate_limit_windows": rateLimitWindows,
  "0004_rate_limit_windows_packed": rateLimitWindowsPacked
}

/** The migrations, by `NNNN_name`. */
export const migrations = Migrator.fromRecord(byName)

/** The id of the last migration this build knows: a file below it lacks tables or columns this build uses. */
export const LATEST = Math.max(...Object.keys(byName).map((name) => Number(name.slice(0, 4))))

/** The table where the Migrator records what ran. */
export const MIGRATIONS_TABLE = "stint_migrations"

const run = Migrator.make({})({ loader: migrations, table: MIGRATIONS_TABLE })

/** Applies pending migrations; returns the ids and names of those that ran. */
export const migrate = (
  sql: SqlClient.SqlClient
): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, StoreError> =>
  immediate(sql)(run).pipe(
    Effect.provideService(SqlClient.SqlClient, sql),
    Effect.mapError((error) => error instanceof StoreError ? error : storeError("migrating")(error)),
    // The Migrator turns a failed migration into a defect; it is a storage failure like any other.
    Effect.catchAllDefect((defect) => Effect.fail(storeError("migrating")(defect)))
  )
