/**
 * Whether a database holds any workspace, for `stint serve --demo`. The core's `Store` port cannot answer this (its
 * admin `lookup` only checks ids it is given), so this one read-only query goes to the adapters' `workspaces` table
 * directly: the only place outside the adapters that knows a table name.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import { Errors } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"

/** The adapters' target, as `Database.parse` gives it. */
export type Target =
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: string }

const query = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<{ readonly found: unknown }>`SELECT EXISTS (SELECT 1 FROM workspaces) AS found`
).pipe(Effect.map(([row]) => row !== undefined && (row.found === true || row.found === 1 || row.found === 1n)))

/** Whether the (migrated) database of `target` holds at least one workspace. */
export const hasWorkspace = (target: Target): Effect.Effect<boolean, Errors.StoreError> => {
  const client: Layer.Layer<SqlClient.SqlClient, unknown> = target._tag === "Sqlite"
    ? SqliteClient.layer({ filename: target.filename })
    : PgClient.layer({ url: Redacted.make(target.url), maxConnections: 1 })
  return Effect.provide(query, client).pipe(
    Effect.mapError((cause) => new Errors.StoreError({ message: "could not count workspaces", cause }))
  )
}
