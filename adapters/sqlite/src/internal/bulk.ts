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
import { ORDER, statement, type Table, TABLES, type Value } from "./tables.js"

/** Rows per INSERT: 500 rows of 10 columns stay well under SQLite's limit of 32,766 bound parameters. */
export const ROWS_PER_STATEMENT = 500

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

/** Inserts a batch, parents before children. */
const insertBatch = (sql: SqlClient.SqlClient) => (dataset: Dataset): Effect.Effect<void, RecordConflict | StoreError> =>
  Effect.forEach(ORDER, (name) => insertAll(sql, TABLES[name] as Table<unknown>, dataset[name]), { discard: true })

/** `AdminStore.bulk`: `body` runs inside one write transaction, committed when it succeeds. */
export const bulk = (sql: SqlClient.SqlClient) =>
<A, E, R>(body: (tx: BulkTransaction) => Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError | RecordConflict, R> =>
  immediate(sql)(body({ lookup: lookup(sql), insert: insertBatch(sql) }))
