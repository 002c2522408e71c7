/**
 * Reading time entries joined with their project and client: a user's active entry, one entry, and keyset pages of a
 * user's history in (`started_at` desc, `id` desc) order, served by the history indexes as an index range scan.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { StoreError } from "@stint/core/Errors"
import type { EntryRecord, UserScope } from "@stint/core/Records"
import type { EntriesQuery } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { orStoreError } from "./database.js"
import { decodeRows, EntryRecordRow } from "./rows.js"

/** The columns of an `EntryRecord`, from `time_entries e` joined with `projects p` and `clients c`. */
const columns = `e.id, e.project_id, p.name AS project_name, c.id AS client_id, c.name AS client_name, p.color,
  e.status, e.billable, e.note, e.started_at, e.ended_at, e.pay_rate_cents`

// CROSS JOIN keeps time_entries the outer loop, so the planner walks the history index and stops after LIMIT rows.
const from = `time_entries e
  CROSS JOIN projects p ON p.id = e.project_id
  CROSS JOIN clients c ON c.id = p.client_id`

const decodeEntries = decodeRows(EntryRecordRow, "time entries")

/**
 * The SQL text and parameters of a history page. The project filter selects the project index; the row-value
 * comparison continues strictly after the cursor's position inside the index range.
 */
export const listEntriesQuery = (
  scope: UserScope,
  query: EntriesQuery
): { readonly sql: string; readonly params: ReadonlyArray<string | number> } => {
  const params: Array<string | number> = [scope.workspaceId, scope.userId]
  let where = "e.workspace_id = ? AND e.user_id = ?"
  if (query.projectId !== null) {
    where += " AND e.project_id = ?"
    params.push(query.projectId)
  }
  if (query.after !== null) {
    where += " AND (e.started_at, e.id) < (?, ?)"
    params.push(query.after.startedAt, query.after.id)
  }
  params.push(query.limit)
  return {
    sql: `SELECT ${columns} FROM ${from} WHERE ${where} ORDER BY e.started_at DESC, e.id DESC LIMIT ?`,
    params
  }
}

/** Up to `limit` entries of the scope, newest first, strictly after `after`. */
export const listEntries = (sql: SqlClient.SqlClient) =>
(scope: UserScope, query: EntriesQuery): Effect.Effect<ReadonlyArray<EntryRecord>, StoreError> => {
  const { params, sql: text } = listEntriesQuery(scope, query)
  return sql.unsafe(text, params).pipe(orStoreError("listing time entries"), Effect.flatMap(decodeEntries))
}

/** The scope's active entry. */
export const findActive = (sql: SqlClient.SqlClient) =>
(scope: UserScope): Effect.Effect<Option.Option<EntryRecord>, StoreError> =>
  sql.unsafe(
    `SELECT ${columns} FROM ${from} WHERE e.workspace_id = ? AND e.user_id = ? AND e.status = 'active'`,
    [scope.workspaceId, scope.userId]
  ).pipe(
    orStoreError("reading the active entry"),
    Effect.flatMap(decodeEntries),
    Effect.map((rows) => Option.fromNullable(rows[0]))
  )

/** The entry with this id, if it belongs to the scope. */
export const findInScope = (sql: SqlClient.SqlClient) =>
(scope: UserScope, id: string): Effect.Effect<Option.Option<EntryRecord>, StoreError> =>
  sql.unsafe(
    `SELECT ${columns} FROM ${from} WHERE e.id = ? AND e.workspace_id = ? AND e.user_id = ?`,
    [id, scope.workspaceId, scope.userId]
  ).pipe(
    orStoreError("reading a time entry"),
    Effect.flatMap(decodeEntries),
    Effect.map((rows) => Option.fromNullable(rows[0]))
  )
