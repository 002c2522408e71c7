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
    /** The rows of `statement`, whose one parameter is `values` as a JSON array, decoded. */
    const rows = <A>(
      what: string,
      statement: string,
      values: ReadonlyArray<unknown>,
      decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, StoreError>
    ) => sql.unsafe(statement, [json(values)]).pipe(orStoreError(what), Effect.flatMap(decode))
    const existing = (statement: string, values: ReadonlyArray<unknown>) =>
      Effect.map(
        rows("looking up existing records", statement, values, decodeKeys),
        (found) => new Set(found.map((row) => row.k))
      )
    const known = (table: string, ids: ReadonlyArray<string>) =>
      Effect.map(existing(byId(table), ids), (found) => ids.filter((id) => found.has(id)))
    const workspaceIds = yield* known("workspaces", refs.workspaceIds)
    const userIds = yield* known("users", refs.userIds)
    const entryIds = yield* known("time_entries", refs.entryIds)
    const apiKeyIds = yield* known("api_keys", refs.apiKeyIds)

    const clientRows = yield* rows(
      "looking up clients",
      `SELECT id, workspace_id, name, color, archived FROM clients WHERE id IN (SELECT value FROM json_each(?))`,
      refs.clientIds,
      decodeClients
    )
    const clientById = new Map(clientRows.map((c) => [c.id, c]))
    const projectRows = yield* rows(
      "looking up projects",
      `SELECT id, workspace_id, client_id, name, color, archived FROM projects
        WHERE id IN (SELECT value FROM json_each(?))`,
      refs.projectIds,
      decodeProjects
    )
    const projectById = new Map(projectRows.map((p) => [p.id, p]))

    const digests = yield* rows(
      "looking up API key digests",
      `SELECT digest AS k FROM api_keys WHERE digest IN (SELECT value FROM json_each(?)) ORDER BY rowid`,
      refs.apiKeyDigests,
      decodeKeys
    )

    const memberships = yield* rows(
      "looking up memberships",
      `SELECT workspace_id, user_id, role, pay_rate_cents FROM memberships
        WHERE user_id IN (SELECT value FROM json_each(?))
        ORDER BY rowid`,
      refs.userIds,
      decodeMemberships
    )
    const active = yield* rows(
      "looking up active entries",
      `SELECT workspace_id, user_id FROM time_entries
        WHERE status = 'active' AND (workspace_id, user_id) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`,
      refs.userScopes.map((s) => [s.workspaceId, s.userId]),
      decodeScopes
    )
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

