/**
 * The admin side of the port on SQLite: what a dataset refers to that already exists (in the memory store's order),
 * the dataset insert, archiving, removing memberships, revoking and listing keys, and finding an entry's scope.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { StoreError } from "@stint/core/Errors"
import type { DatasetRefs, ExistingRecords, UserScope } from "@stint/core/Records"
import type { AdminStore } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { orStoreError } from "./database.js"
import { byId, byPair, insertDataset } from "./insert.js"
import {
  ApiKeyInfoRow,
  ClientRow,
  decodeRows,
  IdRow,
  MembershipRow,
  ProjectRow,
  ScopeRow
} from "./rows.js"

const pairKey = (a: string, b: string) => `${a} ${b}`

const decodeKeys = decodeRows(Schema.Struct({ k: Schema.String }), "ids")
const decodeClients = decodeRows(ClientRow, "clients")
const decodeProjects = decodeRows(ProjectRow, "projects")
const decodeMemberships = decodeRows(MembershipRow, "memberships")
const decodeApiKeys = decodeRows(ApiKeyInfoRow, "API keys")
const decodeScopes = decodeRows(ScopeRow, "scopes")
const decodeIds = decodeRows(IdRow, "ids")

const json = (values: ReadonlyArray<unknown>) => JSON.stringify(values)

/**
 * `AdminStore.lookup`: each list keeps the order (and repeats) of the refs, as the memory store's does; memberships are
 * every membership of the referenced users.
 */
const lookup = (sql: SqlClient.SqlClient) => (refs: DatasetRefs): Effect.Effect<ExistingRecords, StoreError> =>
  Effect.gen(function*() {
    const existing = (statement: string, values: ReadonlyArray<unknown>) =>
      sql.unsafe(statement, [json(values)]).pipe(
        orStoreError("looking up existing records"),
        Effect.flatMap(decodeKeys),
        Effect.map((rows) => new Set(rows.map((row) => row.k)))
      )
    const known = (table: string, ids: ReadonlyArray<string>) =>
      Effect.map(existing(byId(table), ids), (found) => ids.filter((id) => found.has(id)))
    const workspaceIds = yield* known("workspaces", refs.workspaceIds)
    const userIds = yield* known("users", refs.userIds)
    const entryIds = yield* known("time_entries", refs.entryIds)
    const apiKeyIds = yield* known("api_keys", refs.apiKeyIds)

    const clientRows = yield* sql.unsafe(
      `SELECT id, workspace_id, name, color, archived FROM clients WHERE id IN (SELECT value FROM json_each(?))`,
      [json(refs.clientIds)]
    ).pipe(orStoreError("looking up clients"), Effect.flatMap(decodeClients))
    const clientById = new Map(clientRows.map((c) => [c.id, c]))
    const projectRows = yield* sql.unsafe(
      `SELECT id, workspace_id, client_id, name, color, archived FROM projects
        WHERE id IN (SELECT value FROM json_each(?))`,
      [json(refs.projectIds)]
    ).pipe(orStoreError("looking up projects"), Effect.flatMap(decodeProjects))
    const projectById = new Map(projectRows.map((p) => [p.id, p]))

    const digests = yield* sql.unsafe(
      `SELECT digest AS k FROM api_keys WHERE digest IN (SELECT value FROM json_each(?)) ORDER BY rowid`,
      [json(refs.apiKeyDigests)]
    ).pipe(orStoreError("looking up API key digests"), Effect.flatMap(decodeKeys))

    const memberships = yield* sql.unsafe(
      `SELECT workspace_id, user_id, role, pay_rate_cents FROM memberships
        WHERE user_id IN (SELECT value FROM json_each(?))
        ORDER BY rowid`,
      [json(refs.userIds)]
    ).pipe(orStoreError("looking up memberships"), Effect.flatMap(decodeMemberships))
    const scopePairs = refs.userScopes.map((s) => [s.workspaceId, s.userId])
    const active = yield* sql.unsafe(
      `SELECT workspace_id, user_id FROM time_entries
        WHERE status = 'active' AND (workspace_id, user_id) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`,
      [json(scopePairs)]
    ).pipe(orStoreError("looking up active entries"), Effect.flatMap(decodeScopes))
    const activeKeys = new Set(active.map((s) => pairKey(s.workspaceId, s.userId)))
    const assigned = yield* existing(
      byPair("assignments", "project_id", "user_id"),
      refs.assignments.map((a) => [a.projectId, a.userId])
    )

    return {
      workspaceIds,
      userIds,
      clients: refs.clientIds.flatMap((id) => Option.toArray(Option.fromNullable(clientById.get(id)))),
      projects: refs.projectIds.flatMap((id) => Option.toArray(Option.fromNullable(projectById.get(id)))),
      entryIds,
      apiKeyIds,
      apiKeyDigests: digests.map((row) => row.k),
      memberships,
      activeEntries: refs.userScopes.filter((s) => activeKeys.has(pairKey(s.workspaceId, s.userId))),
      assignments: refs.assignments.filter((a) => assigned.has(pairKey(a.projectId, a.userId)))
    }
  })

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
