/**
 * `AdminStore.lookup` on SQLite: which of the ids and pairs a dataset refers to already exist, in the memory store's
 * order. Inside a transaction it runs on the transaction's connection (the client's `TransactionConnection`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { StoreError } from "@stint/core/Errors"
import type { DatasetRefs, ExistingRecords } from "@stint/core/Records"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { orStoreError } from "./database.js"
import { byId, byPair } from "./insert.js"
import { ClientRow, decodeRows, MembershipRow, ProjectRow, ScopeRow } from "./rows.js"
import { pairKey } from "./tables.js"

const decodeKeys = decodeRows(Schema.Struct({ k: Schema.String }), "ids")
const decodeClients = decodeRows(ClientRow, "clients")
const decodeProjects = decodeRows(ProjectRow, "projects")
const decodeMemberships = decodeRows(MembershipRow, "memberships")
const decodeScopes = decodeRows(ScopeRow, "scopes")

const json = (values: ReadonlyArray<unknown>) => JSON.stringify(values)

/**
 * `AdminStore.lookup`: each list keeps the order (and repeats) of the refs, as the memory store's does; memberships are
 * every membership of the referenced users.
 */
export const lookup = (sql: SqlClient.SqlClient) => (refs: DatasetRefs): Effect.Effect<ExistingRecords, StoreError> =>
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

