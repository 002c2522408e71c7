/**
 * `AdminStore.insert`: a whole dataset in one write transaction. First the uniqueness checks the memory store makes,
 * in its order (so the same `RecordConflict` comes out), then the rows one by one, so that a constraint SQLite still
 * enforces (a duplicate inside the dataset, a digest taken, a missing parent) names the row that broke it.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { RecordConflict, type StoreError } from "@stint/core/Errors"
import type { Dataset, UserScope } from "@stint/core/Records"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { immediate, orStoreError, storeError } from "./database.js"
import { decodeRows, ScopeRow } from "./rows.js"
import { keyOf, ORDER, pairKey, statement, type Table, TABLES, type Value } from "./tables.js"

const decodeKeys = decodeRows(Schema.Struct({ k: Schema.String }), "ids")

/** The first of `keys` (in order) that the query `existing` finds among `values` (as JSON): a conflict on `entity`. */
const firstTaken = (
  sql: SqlClient.SqlClient,
  entity: string,
  keys: ReadonlyArray<string>,
  values: ReadonlyArray<unknown>,
  existing: string
): Effect.Effect<RecordConflict | undefined, StoreError> =>
  keys.length === 0 ? Effect.succeed(undefined) : sql.unsafe(existing, [JSON.stringify(values)]).pipe(
    orStoreError(`checking ${entity} ids`),
    Effect.flatMap(decodeKeys),
    Effect.map((rows) => {
      const taken = new Set(rows.map((row) => row.k))
      const id = keys.find((key) => taken.has(key))
      return id === undefined ? undefined : new RecordConflict({ entity, id, reason: "already exists" })
    })
  )

/** Finds which of a JSON array of ids exist in `table`. */
export const byId = (table: string) => `SELECT id AS k FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`

/** Finds which of a JSON array of `[a, b]` pairs exist in `table` (through its primary key), as `"a b"`. */
export const byPair = (table: string, a: string, b: string) =>
  `SELECT ${a} || ' ' || ${b} AS k FROM ${table}
    WHERE (${a}, ${b}) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`

const decodeScopes = decodeRows(ScopeRow, "active entries")

/** The memory store's checks, in its order: ids taken, then a second active entry for a user and workspace. */
const conflicts = (sql: SqlClient.SqlClient, dataset: Dataset): Effect.Effect<RecordConflict | undefined, StoreError> =>
  Effect.gen(function*() {
    const ids = (entity: string, table: string, keys: ReadonlyArray<string>) =>
      firstTaken(sql, entity, keys, keys, byId(table))
    const pairs = (
      entity: string,
      table: string,
      columns: readonly [string, string],
      values: ReadonlyArray<readonly [string, string]>
    ) => firstTaken(sql, entity, values.map(([x, y]) => pairKey(x, y)), values, byPair(table, ...columns))
    const checks: ReadonlyArray<Effect.Effect<RecordConflict | undefined, StoreError>> = [
      ids("workspace", "workspaces", dataset.workspaces.map((w) => w.id)),
      ids("user", "users", dataset.users.map((u) => u.id)),
      pairs(
        "membership",
        "memberships",
        ["workspace_id", "user_id"],
        dataset.memberships.map((m) => [m.workspaceId, m.userId])
      ),
      ids("client", "clients", dataset.clients.map((c) => c.id)),
      ids("project", "projects", dataset.projects.map((p) => p.id)),
      pairs(
        "assignment",
        "assignments",
        ["project_id", "user_id"],
        dataset.assignments.map((a) => [a.projectId, a.userId])
      ),
      ids("apiKey", "api_keys", dataset.apiKeys.map((k) => k.id)),
      ids("timeEntry", "time_entries", dataset.timeEntries.map((e) => e.id))
    ]
    for (const check of checks) {
      const conflict = yield* check
      if (conflict !== undefined) return conflict
    }
    const active = dataset.timeEntries.filter((e) => e.status === "active")
    if (active.length === 0) return undefined
    const running = yield* sql.unsafe(
      `SELECT workspace_id, user_id FROM time_entries
        WHERE status = 'active' AND (workspace_id, user_id) IN (SELECT value ->> 0, value ->> 1 FROM json_each(?))`,
      [JSON.stringify(active.map((e) => [e.workspaceId, e.userId]))]
    ).pipe(orStoreError("checking active entries"), Effect.flatMap(decodeScopes))
    const busy = new Set(running.map((s: UserScope) => pairKey(s.workspaceId, s.userId)))
    const second = active.find((e) => busy.has(pairKey(e.workspaceId, e.userId)))
    return second === undefined
      ? undefined
      : new RecordConflict({ entity: "timeEntry", id: second.id, reason: "second active entry" })
  })

/** The SQLite result code of a failed statement (`SQLITE_CONSTRAINT_UNIQUE`, …), when there is one. */
const sqliteCode = (error: SqlError): string | undefined => {
  const cause: unknown = error.cause
  if (typeof cause !== "object" || cause === null || !("code" in cause)) return undefined
  return typeof cause.code === "string" ? cause.code : undefined
}

/** Runs one insert; uniqueness and foreign-key violations become a `RecordConflict` on this row. */
export const insertRow = (
  sql: SqlClient.SqlClient,
  entity: string,
  id: string,
  statement: string,
  params: ReadonlyArray<Value>
): Effect.Effect<void, RecordConflict | StoreError> =>
  sql.unsafe(statement, params).pipe(
    Effect.asVoid,
    Effect.mapError((error) => {
      const code = sqliteCode(error)
      const message = error.cause instanceof Error ? error.cause.message : ""
      switch (code) {
        case "SQLITE_CONSTRAINT_PRIMARYKEY":
          return new RecordConflict({ entity, id, reason: "already exists" })
        case "SQLITE_CONSTRAINT_UNIQUE":
          return new RecordConflict({
            entity,
            id,
            reason: message.includes("api_keys.digest")
              ? "digest already exists"
              : entity === "timeEntry"
              ? "second active entry"
              : "already exists"
          })
        case "SQLITE_CONSTRAINT_FOREIGNKEY":
          return new RecordConflict({ entity, id, reason: "refers to a record that does not exist" })
        default:
          return storeError(`inserting a ${entity}`)(error)
      }
    })
  )

/** `AdminStore.insert`. */
export const insertDataset = (sql: SqlClient.SqlClient) =>
(dataset: Dataset): Effect.Effect<void, StoreError | RecordConflict> =>
  immediate(sql)(Effect.gen(function*() {
    const conflict = yield* conflicts(sql, dataset)
    if (conflict !== undefined) return yield* conflict
    for (const name of ORDER) {
      const table = TABLES[name] as Table<unknown>
      for (const r of dataset[name]) {
        const values = table.values(r)
        yield* insertRow(sql, table.entity, keyOf(table as Table<never>, values), statement(table as Table<never>, 1), values)
      }
    }
  }))
