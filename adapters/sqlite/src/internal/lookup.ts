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
 * every membership of the referenced users. It looks in the tables of each of `schemas` in turn (the file's own,
 * `main`, and a bulk load's staging tables after them), as if they were one.
 */
export const lookup = (sql: SqlClient.SqlClient, schemas: ReadonlyArray<string> = ["main"]) =>
(refs: DatasetRefs): Effect.Effect<ExistingRecords, StoreError> =>
  Effect.gen(function*() {
    /** The rows of `statement` (given the schema) in each schema, one after the other. */
    const inEach = <A>(
      what: string,
      statement: (schema: string) => string,
      values: ReadonlyArray<unknown>,
      decode: (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, StoreError>
    ): Effect.Effect<ReadonlyArray<A>, StoreError> =>
      Effect.map(
        Effect.forEach(schemas, (schema) =>
          sql.unsafe(statement(schema), [json(values)]).pipe(orStoreError(what), Effect.flatMap(decode))),
        (found) => found.length === 1 ? found[0] ?? [] : found.flat()
      )
    const existing = (statement: (schema: string) => string, values: ReadonlyArray<unknown>) =>
      Effect.map(
        inEach("looking up existing records", statement, values, decodeKeys),
        (rows) => new Set(rows.map((row) => row.k))
      )
    const known = (table: string, ids: ReadonlyArray<string>) =>
      Effect.map(existing((schema) => byId(`${schema}.${table}`), ids), (found) => ids.filter((id) => found.has(id)))
    const workspaceIds = yield* known("workspaces", refs.workspaceIds)
    const userIds = yield* known("users", refs.userIds)
    const entryIds = yield* known("time_entries", refs.entryIds)
    const apiKeyIds = yield* known("api_keys", refs.apiKeyIds)

    const clientRows = yield* inEach(
      "looking up clients",
      (schema) =>
        `SELECT id, workspace_id, name, color, archived FROM ${schema}.clients
          WHERE id IN (SELECT value FROM json_each(?))`,
      refs.clientIds,
      decodeClients
    )
    const clientById = new Map(clientRows.map((c) => [c.id, c]))
    const projectRows = yield* inEach(
      "looking up projects",
      (schema) =>
        `SELECT id, workspace_id, client_id, name, color, archived FROM ${schema}.projects
          WHERE id IN (SELECT value FROM json_each(?))`,
      refs.projectIds,
      decodeProjects
    )
    const projectById = new Map(projectRows.map((p) => [p.id, p]))

    const digests = yield* inEach(
      "looking up API key digests",
      (schema) =>
        `SELECT digest AS k FROM ${schema}.api_keys WHERE digest IN (SELECT value FROM json_each(?)) ORDER BY rowid`,
      refs.apiKeyDigests,
      decodeKeys
    )

    const memberships = yield* inEach(
      "looking up memberships",
      (schema) =>
        `SELECT workspace_id, user_id, role, pay_rate_cents FROM ${schema}.memberships
          WHERE user_id IN (SELECT value FROM json_each(?))
          ORDER BY rowid`,
      refs.userIds,
      decodeMemberships
    )
    const scopePairs = refs.userScopes.map((s) => [s.workspaceId, s.userId])
    const active = yield* inEach(
      "looking up active entries",
      (schema) =>
        `SELECT workspace_id, user_id FROM ${schema}.time_entries
          WHERE status = 'active' AND (workspace_id, user_id) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`,
      scopePairs,
      decodeScopes
    )
    const activeKeys = new Set(active.map((s) => pairKey(s.workspaceId, s.userId)))
    const assigned = yield* existing(
      (schema) => byPair(`${schema}.assignments`, "project_id", "user_id"),
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

