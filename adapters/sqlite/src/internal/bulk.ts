/**
 * `AdminStore.bulk` on SQLite: one `BEGIN IMMEDIATE` transaction that the core fills batch by batch, each table's rows
 * going in as multi-row INSERTs of up to `ROWS_PER_STATEMENT` rows (the statement of a full group is prepared once and
 * reused from the client's cache). Lookups run on the same connection, so they see the batches inserted before.
 * A constraint failure is tracked down to its row (the rows of the failed statement are inserted again one by one),
 * so the `RecordConflict` names it as `AdminStore.insert` would.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { RecordConflict, StoreError } from "@stint/core/Errors"
import type { Dataset } from "@stint/core/Records"
import type { BulkTransaction } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import { immediate, storeError } from "./database.js"
import { insertRow } from "./insert.js"
import { lookup } from "./lookup.js"
import { flag } from "./rows.js"

/** Rows per INSERT: 500 rows of 10 columns stay well under SQLite's limit of 32,766 bound parameters. */
export const ROWS_PER_STATEMENT = 500

type Value = string | number | null

/** How one table's rows are written. */
interface Table<A> {
  readonly table: string
  readonly columns: ReadonlyArray<string>
  readonly entity: string
  readonly key: (row: A) => string
  readonly values: (row: A) => ReadonlyArray<Value>
}

const pairKey = (a: string, b: string) => `${a} ${b}`

const statementFor = (table: Table<never>, rows: number): string => {
  const tuple = `(${table.columns.map(() => "?").join(", ")})`
  return `INSERT INTO ${table.table} (${table.columns.join(", ")}) VALUES ${Array.from({ length: rows }, () => tuple).join(", ")}`
}

const statements = new Map<string, string>()

/** The INSERT of `rows` rows into `table` (texts are built once per shape). */
const statement = (table: Table<never>, rows: number): string => {
  const key = `${table.table} ${rows}`
  let text = statements.get(key)
  if (text === undefined) {
    text = statementFor(table, rows)
    statements.set(key, text)
  }
  return text
}

/** The SQLite result code family of a failure: constraint failures are tracked down to their row. */
const isConstraint = (error: SqlError): boolean => {
  const cause: unknown = error.cause
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" &&
    cause.code.startsWith("SQLITE_CONSTRAINT")
}

const insertAll = <A>(sql: SqlClient.SqlClient, table: Table<A>, rows: ReadonlyArray<A>) =>
  Effect.gen(function*() {
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      const group = rows.slice(start, start + ROWS_PER_STATEMENT)
      const params: Array<Value> = []
      for (const row of group) for (const value of table.values(row)) params.push(value)
      yield* sql.unsafe(statement(table as Table<never>, group.length), params).pipe(
        Effect.catchAll((error): Effect.Effect<void, RecordConflict | StoreError> =>
          isConstraint(error)
            ? Effect.forEach(group, (row) =>
              insertRow(sql, table.entity, table.key(row), statement(table as Table<never>, 1), table.values(row)), {
              discard: true
            })
            : Effect.fail(storeError(`inserting ${table.table}`)(error)))
      )
    }
  })

const TABLES = {
  workspaces: { table: "workspaces", columns: ["id", "name"], entity: "workspace", key: (w) => w.id, values: (w) => [w.id, w.name] },
  users: {
    table: "users",
    columns: ["id", "name", "email"],
    entity: "user",
    key: (u) => u.id,
    values: (u) => [u.id, u.name, u.email]
  },
  memberships: {
    table: "memberships",
    columns: ["workspace_id", "user_id", "role", "pay_rate_cents"],
    entity: "membership",
    key: (m) => pairKey(m.workspaceId, m.userId),
    values: (m) => [m.workspaceId, m.userId, m.role, m.payRateCents]
  },
  clients: {
    table: "clients",
    columns: ["id", "workspace_id", "name", "color", "archived"],
    entity: "client",
    key: (c) => c.id,
    values: (c) => [c.id, c.workspaceId, c.name, c.color, flag(c.archived)]
  },
  projects: {
    table: "projects",
    columns: ["id", "workspace_id", "client_id", "name", "color", "archived"],
    entity: "project",
    key: (p) => p.id,
    values: (p) => [p.id, p.workspaceId, p.clientId, p.name, p.color, flag(p.archived)]
  },
  assignments: {
    table: "assignments",
    columns: ["project_id", "user_id", "pay_rate_cents"],
    entity: "assignment",
    key: (a) => pairKey(a.projectId, a.userId),
    values: (a) => [a.projectId, a.userId, a.payRateCents]
  },
  apiKeys: {
    table: "api_keys",
    columns: ["id", "digest", "user_id", "workspace_id", "scopes", "created_at", "revoked_at"],
    entity: "apiKey",
    key: (k) => k.id,
    values: (k) => [k.id, k.digest, k.userId, k.workspaceId, JSON.stringify(k.scopes), k.createdAt, k.revokedAt]
  },
  timeEntries: {
    table: "time_entries",
    columns: [
      "id",
      "workspace_id",
      "user_id",
      "project_id",
      "status",
      "billable",
      "note",
      "started_at",
      "ended_at",
      "pay_rate_cents"
    ],
    entity: "timeEntry",
    key: (e) => e.id,
    values: (e) => [
      e.id,
      e.workspaceId,
      e.userId,
      e.projectId,
      e.status,
      flag(e.billable),
      e.note,
      e.startedAt,
      e.endedAt,
      e.payRateCents
    ]
  }
} satisfies { readonly [K in keyof Dataset]: Table<Dataset[K][number]> }

/** Inserts a batch, parents before children. */
const insertBatch = (sql: SqlClient.SqlClient) => (dataset: Dataset): Effect.Effect<void, RecordConflict | StoreError> =>
  Effect.gen(function*() {
    yield* insertAll(sql, TABLES.workspaces, dataset.workspaces)
    yield* insertAll(sql, TABLES.users, dataset.users)
    yield* insertAll(sql, TABLES.memberships, dataset.memberships)
    yield* insertAll(sql, TABLES.clients, dataset.clients)
    yield* insertAll(sql, TABLES.projects, dataset.projects)
    yield* insertAll(sql, TABLES.assignments, dataset.assignments)
    yield* insertAll(sql, TABLES.apiKeys, dataset.apiKeys)
    yield* insertAll(sql, TABLES.timeEntries, dataset.timeEntries)
  })

/** `AdminStore.bulk`: `body` runs inside one write transaction, committed when it succeeds. */
export const bulk = (sql: SqlClient.SqlClient) =>
<A, E, R>(body: (tx: BulkTransaction) => Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError | RecordConflict, R> =>
  immediate(sql)(body({ lookup: lookup(sql), insert: insertBatch(sql) }))
