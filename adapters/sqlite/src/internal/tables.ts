/**
 * How each table of a dataset is written: its columns, its primary key, the entity a conflict names, the row's key and
 * its values. One description serves `AdminStore.insert` (row by row, so a failure names its row) and
 * `AdminStore.bulk` (multi-row INSERTs of the same columns into staging tables made of them, one copy into the file's
 * own, and, when the copy is refused, the staged rows inserted into the file's again to name the row).
 */
import type { Dataset } from "@stint/core/Records"
import { flag } from "./rows.js"

export type Value = string | number | null

/** How one table's rows are written. */
export interface Table<A> {
  readonly table: string
  readonly columns: ReadonlyArray<string>
  /** The columns of its primary key, the first columns of `columns`: `key` joins their values (`pairKey`). */
  readonly primaryKey: ReadonlyArray<string>
  readonly entity: string
  readonly key: (row: A) => string
  readonly values: (row: A) => ReadonlyArray<Value>
}

/** The key of a row identified by two ids (memberships, assignments), as conflicts and lookups name it. */
export const pairKey = (a: string, b: string) => `${a} ${b}`

/** The key of a row given as its `values` (its primary key's values, joined as `key` joins them). */
export const keyOfValues = (table: Table<never>, values: ReadonlyArray<Value>): string =>
  table.primaryKey.length === 1 ? String(values[0]) : pairKey(String(values[0]), String(values[1]))

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
    key: (w) => w.id,
    values: (w) => [w.id, w.name]
  },
  users: {
    table: "users",
    columns: ["id", "name", "email"],
    primaryKey: ["id"],
    entity: "user",
    key: (u) => u.id,
    values: (u) => [u.id, u.name, u.email]
  },
  memberships: {
    table: "memberships",
    columns: ["workspace_id", "user_id", "role", "pay_rate_cents"],
    primaryKey: ["workspace_id", "user_id"],
    entity: "membership",
    key: (m) => pairKey(m.workspaceId, m.userId),
    values: (m) => [m.workspaceId, m.userId, m.role, m.payRateCents]
  },
  clients: {
    table: "clients",
    columns: ["id", "workspace_id", "name", "color", "archived"],
    primaryKey: ["id"],
    entity: "client",
    key: (c) => c.id,
    values: (c) => [c.id, c.workspaceId, c.name, c.color, flag(c.archived)]
  },
  projects: {
    table: "projects",
    columns: ["id", "workspace_id", "client_id", "name", "color", "archived"],
    primaryKey: ["id"],
    entity: "project",
    key: (p) => p.id,
    values: (p) => [p.id, p.workspaceId, p.clientId, p.name, p.color, flag(p.archived)]
  },
  assignments: {
    table: "assignments",
    columns: ["project_id", "user_id", "pay_rate_cents"],
    primaryKey: ["project_id", "user_id"],
    entity: "assignment",
    key: (a) => pairKey(a.projectId, a.userId),
    values: (a) => [a.projectId, a.userId, a.payRateCents]
  },
  apiKeys: {
    table: "api_keys",
    columns: ["id", "digest", "user_id", "workspace_id", "scopes", "created_at", "revoked_at"],
    primaryKey: ["id"],
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
    primaryKey: ["id"],
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
