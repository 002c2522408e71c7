/**
 * How each table of a dataset is written: its columns, its primary key (which names a row in a conflict), the entity a
 * conflict names, and a row's values. One description serves `AdminStore.insert` (row by row, so a failure names its
 * row) and `AdminStore.bulk` (multi-row INSERTs of the same columns into staging tables made of them, one copy into the
 * file's own, and, when the copy is refused, the staged rows inserted into the file's again to name the row).
 */
import type { Dataset } from "@stint/core/Records"
import { flag } from "./rows.js"

export type Value = string | number | null

/** How one table's rows are written. */
export interface Table<A> {
  readonly table: string
  readonly columns: ReadonlyArray<string>
  /** The columns of its primary key: a row's key is their values, joined as `pairKey` joins two. */
  readonly primaryKey: ReadonlyArray<string>
  readonly entity: string
  readonly values: (row: A) => ReadonlyArray<Value>
}

/** The key of a row identified by two ids (memberships, assignments), as conflicts and lookups name it. */
export const pairKey = (a: string, b: string) => `${a} ${b}`

/** The key of a row given as its `values`, as conflicts name it: its primary key's values (`pairKey` for two). */
export const keyOf = (table: Table<never>, values: ReadonlyArray<Value>): string =>
  table.primaryKey.map((column) => String(values[table.columns.indexOf(column)])).join(" ")

const statementFor = (table: Table<never>, rows: number, schema: string): string => {
  const tuple = `(${table.columns.map(() => "?").join(", ")})`
  return `INSERT INTO ${schema}.${table.table} (${table.columns.join(", ")}) VALUES ${
    Array.from({ length: rows }, () => tuple).join(", ")
  }`
}

const statements = new Map<string, string>()

/** The INSERT of `rows` rows into `table` of `schema` (texts are built once per shape). */
export const statement = (table: Table<never>, rows: number, schema = "main"): string => {
  const key = `${schema}.${table.table} ${rows}`
  let text = statements.get(key)
  if (text === undefined) {
    text = statementFor(table, rows, schema)
    statements.set(key, text)
  }
  return text
}

/** Every table of a dataset. */
export const TABLES = {
  workspaces: {
    table: "workspaces",
    columns: ["id", "name"],
    primaryKey: ["id"],
    entity: "workspace",
    values: (w) => [w.id, w.name]
  },
  users: {
    table: "users",
    columns: ["id", "name", "email"],
    primaryKey: ["id"],
    entity: "user",
    values: (u) => [u.id, u.name, u.email]
  },
  memberships: {
    table: "memberships",
    columns: ["workspace_id", "user_id", "role", "pay_rate_cents"],
    primaryKey: ["workspace_id", "user_id"],
    entity: "membership",
    values: (m) => [m.workspaceId, m.userId, m.role, m.payRateCents]
  },
  clients: {
    table: "clients",
    columns: ["id", "workspace_id", "name", "color", "archived"],
    primaryKey: ["id"],
    entity: "client",
    values: (c) => [c.id, c.workspaceId, c.name, c.color, flag(c.archived)]
  },
  projects: {
    table: "projects",
    columns: ["id", "workspace_id", "client_id", "name", "color", "archived"],
    primaryKey: ["id"],
    entity: "project",
    values: (p) => [p.id, p.workspaceId, p.clientId, p.name, p.color, flag(p.archived)]
  },
  assignments: {
    table: "assignments",
    columns: ["project_id", "user_id", "pay_rate_cents"],
    primaryKey: ["project_id", "user_id"],
    entity: "assignment",
    values: (a) => [a.projectId, a.userId, a.payRateCents]
  },
  apiKeys: {
    table: "api_keys",
    columns: ["id", "digest", "user_id", "workspace_id", "scopes", "created_at", "revoked_at"],
    primaryKey: ["id"],
    entity: "apiKey",
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
    primaryKey: ["id"],
    entity: "timeEntry",
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

/** The order rows go in: parents before children. */
export const ORDER: ReadonlyArray<keyof Dataset> = [
  "workspaces",
  "users",
  "memberships",
  "clients",
  "projects",
  "assignments",
  "apiKeys",
  "timeEntries"
]
