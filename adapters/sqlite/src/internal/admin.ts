/**
 * The admin side of the port on SQLite: what a dataset refers to that already exists (in the memory store's order),
 * the dataset insert, archiving, removing memberships, revoking and listing keys, and finding an entry's scope.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { UserScope } from "@stint/core/Records"
import type { AdminStore } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { bulk } from "./bulk.js"
import { orStoreError } from "./database.js"
import { insertDataset } from "./insert.js"
import { lookup } from "./lookup.js"
import { ApiKeyInfoRow, decodeRows, IdRow, ScopeRow } from "./rows.js"

const decodeApiKeys = decodeRows(ApiKeyInfoRow, "API keys")
const decodeScopes = decodeRows(ScopeRow, "scopes")
const decodeIds = decodeRows(IdRow, "ids")

/** Whether a statement with `RETURNING id` changed a row. */
const changed = (what: string) => (statement: Effect.Effect<ReadonlyArray<unknown>, unknown>) =>
  statement.pipe(orStoreError(what), Effect.flatMap(decodeIds), Effect.map((rows) => rows.length > 0))

/** The admin side of the SQLite store. */
export const makeAdmin = (sql: SqlClient.SqlClient): AdminStore => ({
  hasWorkspaces: sql<{ readonly found: number }>`SELECT EXISTS (SELECT 1 FROM workspaces) AS found`.pipe(
    orStoreError("looking for a workspace"),
    Effect.map((rows) => rows[0]?.found === 1)
  ),

  lookup: lookup(sql),

  insert: insertDataset(sql),

  bulk: bulk(sql),

  setArchived: (entity, id, archived) =>
    changed(`archiving a ${entity}`)(
      sql.unsafe(`UPDATE ${entity === "client" ? "clients" : "projects"} SET archived = ? WHERE id = ? RETURNING id`, [
        archived ? 1 : 0,
        id
      ])
    ),

  removeMembership: (scope: UserScope) =>
    changed("removing a membership")(
      sql.unsafe(`DELETE FROM memberships WHERE workspace_id = ? AND user_id = ? RETURNING user_id AS id`, [
        scope.workspaceId,
        scope.userId
      ])
    ),

  revokeApiKey: (id, at) =>
    changed("revoking an API key")(
      sql.unsafe(`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING id`, [at, id])
    ),

  listApiKeys: (filter) =>
    sql.unsafe(
      `SELECT id, user_id, workspace_id, scopes, created_at, revoked_at FROM api_keys
        WHERE (? IS NULL OR workspace_id = ?) AND (? IS NULL OR user_id = ?)
        ORDER BY rowid`,
      [filter.workspaceId ?? null, filter.workspaceId ?? null, filter.userId ?? null, filter.userId ?? null]
    ).pipe(orStoreError("listing API keys"), Effect.flatMap(decodeApiKeys)),

  findEntryScope: (entryId) =>
    sql.unsafe(`SELECT workspace_id, user_id FROM time_entries WHERE id = ?`, [entryId]).pipe(
      orStoreError("finding an entry's scope"),
      Effect.flatMap(decodeScopes),
      Effect.map((rows) => Option.fromNullable(rows[0]))
    )
})
