/**
 * Reading time entries joined with their project and client: a user's active entry, one entry, and keyset pages of a
 * user's history in (`started_at` desc, `id` desc) order, served by the history indexes as an index range scan. Each
 * shape of statement is prepared once on the connection.
 */
import type { StoreError } from "@stint/core/Errors"
import type { EntryRecord, UserScope } from "@stint/core/Records"
import type { Authenticated, EntriesQuery, ReadAlong } from "@stint/core/Store"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Connection, Prepared } from "./connection.js"
import * as Records from "./records.js"

/** The columns of an `EntryRecord`, from `time_entries e` joined with `projects p` and `clients c`. */
const columns = `e.id, e.project_id AS projectId, p.name AS projectName, c.id AS clientId, c.name AS clientName,
  p.color, e.status, e.billable, e.note, e.started_at AS startedAt, e.ended_at AS endedAt,
  e.pay_rate_cents AS payRateCents`

// CROSS JOIN keeps time_entries the outer loop, so the planner walks the history index and stops after LIMIT rows.
const from = `time_entries e
  CROSS JOIN projects p ON p.id = e.project_id
  CROSS JOIN clients c ON c.id = p.client_id`

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

const entries = (rows: ReadonlyArray<unknown>): ReadonlyArray<EntryRecord> =>
  rows.map((row) => Records.entry(row as Record<string, unknown>))

const firstEntry = (statement: Prepared, params: ReadonlyArray<unknown>): Option.Option<EntryRecord> => {
  const row = statement.get(...params) as Record<string, unknown> | undefined
  return row === undefined ? Option.none() : Option.some(Records.entry(row))
}

/**
 * Up to `limit` entries of the scope, newest first, strictly after `after`, synchronously (the caller holds the
 * connection).
 */
export const pageOf = (connection: Connection) => (scope: UserScope, query: EntriesQuery): ReadonlyArray<EntryRecord> => {
  const { params, sql } = listEntriesQuery(scope, query)
  return entries(connection.prepare(sql).all(...params))
}

/** Up to `limit` entries of the scope, newest first, strictly after `after`. */
export const listEntries = (connection: Connection) => {
  const page = pageOf(connection)
  return (scope: UserScope, query: EntriesQuery): Effect.Effect<ReadonlyArray<EntryRecord>, StoreError> =>
    connection.run("listing time entries", () => page(scope, query))
}

const ACTIVE = `SELECT ${columns} FROM ${from} WHERE e.workspace_id = ? AND e.user_id = ? AND e.status = 'active'`

/** The scope's active entry, synchronously (the caller holds the connection). */
export const activeOf = (connection: Connection) => {
  const statement = connection.prepare(ACTIVE)
  return (scope: UserScope): Option.Option<EntryRecord> => firstEntry(statement, [scope.workspaceId, scope.userId])
}

/**
 * The answer to a `Store.ReadAlong` for `scope`, synchronously (the caller holds the connection): the same statements
 * as `findActive` and `listEntries`, so the same answer.
 */
export const readAlong = (connection: Connection) => {
  const active = activeOf(connection)
  const page = pageOf(connection)
  return (scope: UserScope, along: ReadAlong): Pick<Authenticated, "activeEntry" | "entries"> =>
    along._tag === "ActiveEntry" ? { activeEntry: active(scope) } : { entries: page(scope, along.query) }
}

/** The scope's active entry. */
export const findActive = (connection: Connection) => {
  const active = activeOf(connection)
  return (scope: UserScope): Effect.Effect<Option.Option<EntryRecord>, StoreError> =>
    connection.run("reading the active entry", () => active(scope))
}

const IN_SCOPE = `SELECT ${columns} FROM ${from} WHERE e.id = ? AND e.workspace_id = ? AND e.user_id = ?`

/** The entry with this id if it belongs to the scope, synchronously (the caller holds the connection). */
export const inScope = (connection: Connection) => {
  const statement = connection.prepare(IN_SCOPE)
  return (scope: UserScope, id: string): Option.Option<EntryRecord> =>
    firstEntry(statement, [id, scope.workspaceId, scope.userId])
}
