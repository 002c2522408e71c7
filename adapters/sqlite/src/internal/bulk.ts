/**
 * `AdminStore.bulk` on SQLite: the load is staged outside the file, then copied into it in one short write transaction.
 *
 * SQLite has one writer per file, and every request that authenticates writes (its key's rate-limit window). A load
 * written straight into the file would hold the write lock for as long as the core takes to read, check and insert it
 * all (300,000 entries with random ids: about 7 s of a seed's 9): every request on the file, in any process, would
 * wait for it up to its busy timeout and then fail. So the batches go into staging tables first, in a private
 * temporary database attached to the connection as `stint_stage` (`ATTACH ''`: a file of SQLite's own in the temporary
 * directory, deleted when detached), each batch appended as multi-row INSERTs of up to `ROWS_PER_STATEMENT` rows, in
 * autocommit, taking no lock on the file. Only then does one `BEGIN IMMEDIATE` transaction copy every staging table
 * into the file's, parents before children, one `INSERT … SELECT` each: the write lock is held for the copy alone
 * (about 2.7 s for those 300,000 entries, on the machine this was built on).
 *
 * The staging tables have no key, index or constraint: a batch is appended at little cost, and every rule is checked
 * once, by the file's own constraints (primary keys, the unique digest, the one-active-entry index, foreign keys) as
 * the copy writes the rows. So the copy refuses a duplicate inside the load and what another writer stored meanwhile
 * alike. The refused table's staged rows are then inserted again, group by group and then row by row, so that the
 * `RecordConflict` names the row as `AdminStore.insert` would; the transaction rolls back and nothing of the load
 * remains.
 *
 * Lookups answer what the file holds, not the staged rows (the core keeps the ids of the rows it has staged), and read
 * it outside any transaction, each statement on its own snapshot: what the core derives from them (a user's default
 * rate from the membership) is what was stored when it looked, and the copy re-checks only what the file's constraints
 * enforce, as `AdminStore.insert` after a lookup does.
 *
 * One load at a time per connection (a semaphore): the staging database has one name, which can be attached only once.
 * A staging database left attached by a failed DETACH is detached before the next load. `bulk` cannot run inside
 * another transaction of this connection (`ATTACH` is refused there).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { RecordConflict, StoreError } from "@stint/core/Errors"
import type { Dataset } from "@stint/core/Records"
import type { BulkTransaction } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import { immediate, orStoreError, storeError } from "./database.js"
import { insertRow } from "./insert.js"
import { lookup } from "./lookup.js"
import { keyOf, ORDER, statement, type Table, TABLES, type Value } from "./tables.js"

/** Rows per INSERT: 500 rows of 10 columns stay well under SQLite's limit of 32,766 bound parameters. */
export const ROWS_PER_STATEMENT = 500

/** The schema the staging database is attached as. */
const STAGE = "stint_stage"

/** The SQLite result code family of a failure: constraint failures are tracked down to their row. */
const isConstraint = (error: SqlError): boolean => {
  const cause: unknown = error.cause
  return typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string" &&
    cause.code.startsWith("SQLITE_CONSTRAINT")
}

const tableOf = (name: keyof Dataset) => TABLES[name] as Table<never>

/**
 * The staging tables: the dataset's columns, untyped (they hold the values as bound: numbers as REAL, which the copy
 * into the file's STRICT tables turns back into integers without loss), with no key, index or constraint, so that a
 * batch is appended in order at little cost. Every rule is checked once, by the copy into the file's tables.
 */
const STAGE_SCHEMA: ReadonlyArray<string> = [
  `PRAGMA ${STAGE}.journal_mode = MEMORY`,
  `PRAGMA ${STAGE}.synchronous = OFF`,
  ...ORDER.map((name) => {
    const table = tableOf(name)
    return `CREATE TABLE ${STAGE}.${table.table} (${table.columns.join(", ")})`
  })
]

/**
 * Inserts `rows` (each a row's values) into `table` of `schema`, `ROWS_PER_STATEMENT` at a time; a group that breaks
 * a constraint is inserted again row by row, so that the failure names its row.
 */
const insertValues = (
  sql: SqlClient.SqlClient,
  table: Table<never>,
  schema: string,
  rows: ReadonlyArray<ReadonlyArray<Value>>
): Effect.Effect<void, RecordConflict | StoreError> =>
  Effect.gen(function*() {
    for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
      const group = rows.slice(start, start + ROWS_PER_STATEMENT)
      yield* sql.unsafe(statement(table, group.length, schema), group.flat()).pipe(
        Effect.catchAll((error): Effect.Effect<void, RecordConflict | StoreError> =>
          isConstraint(error)
            ? Effect.forEach(group, (values) =>
              insertRow(sql, table.entity, keyOf(table, values), statement(table, 1, schema), values), {
              discard: true
            })
            : Effect.fail(storeError(`inserting ${table.table}`)(error)))
      )
    }
  })

/** Stages a batch, parents before children. */
const stageBatch = (sql: SqlClient.SqlClient) => (dataset: Dataset): Effect.Effect<void, RecordConflict | StoreError> =>
  Effect.forEach(ORDER, (name) => {
    const table = tableOf(name)
    const rows = dataset[name] as ReadonlyArray<never>
    return rows.length === 0 ? Effect.void : insertValues(sql, table, STAGE, rows.map(table.values))
  }, { discard: true })

/**
 * Copies one staging table into the file's in one statement. When the copy breaks a constraint (nothing of it
 * remains), its rows are read back in order, a group at a time, and inserted as multi-row INSERTs, a refused group
 * row by row, to name the row.
 */
const copy = (sql: SqlClient.SqlClient, table: Table<never>): Effect.Effect<void, RecordConflict | StoreError> => {
  const columns = table.columns.join(", ")
  return sql.unsafe(`INSERT INTO main.${table.table} (${columns}) SELECT ${columns} FROM ${STAGE}.${table.table} ORDER BY rowid`)
    .pipe(
      Effect.asVoid,
      Effect.catchAll((error): Effect.Effect<void, RecordConflict | StoreError> =>
        isConstraint(error) ? trackDown(sql, table) : Effect.fail(storeError(`copying ${table.table}`)(error))
      )
    )
}

/** `copy`'s failure named: the staged rows inserted again, group by group, until one is refused. */
const trackDown = (sql: SqlClient.SqlClient, table: Table<never>): Effect.Effect<void, RecordConflict | StoreError> =>
  Effect.gen(function*() {
    const read = `SELECT rowid, ${table.columns.join(", ")} FROM ${STAGE}.${table.table}
      WHERE rowid > ? ORDER BY rowid LIMIT ${ROWS_PER_STATEMENT}`
    let after = 0
    for (;;) {
      const rows = yield* sql.unsafe(read, [after]).values.pipe(orStoreError(`reading staged ${table.table}`))
      const last = rows[rows.length - 1]
      if (last === undefined) break
      after = Number(last[0])
      yield* insertValues(sql, table, "main", rows.map((row) => row.slice(1) as ReadonlyArray<Value>))
    }
    // Every row went in one by one, although the copy of them all was refused: should not happen; fail all the same.
    return yield* storeError(`copying ${table.table}`)(new Error("the copy broke a constraint that no single row breaks"))
  })

/**
 * `AdminStore.bulk`: `body` fills the staging tables; when it succeeds, they are copied into the file in one write
 * transaction. The staging database is detached (and deleted) whatever happens.
 */
export const bulk = (sql: SqlClient.SqlClient) => {
  const oneAtATime = Effect.unsafeMakeSemaphore(1)
  const detach = sql.unsafe(`DETACH DATABASE ${STAGE}`)
  const attached = Effect.gen(function*() {
    // A staging database left attached (its DETACH failed) is detached first: else every later load would fail.
    const leftover = yield* sql.unsafe(`SELECT 1 FROM pragma_database_list WHERE name = '${STAGE}'`).pipe(
      orStoreError("listing the attached databases")
    )
    if (leftover.length > 0) yield* detach.pipe(orStoreError("detaching a leftover staging database"))
    yield* Effect.acquireRelease(
      sql.unsafe(`ATTACH DATABASE '' AS ${STAGE}`).pipe(orStoreError("attaching the staging database")),
      () => Effect.ignoreLogged(detach)
    )
    yield* Effect.forEach(STAGE_SCHEMA, (text) => sql.unsafe(text), { discard: true }).pipe(
      orStoreError("creating the staging tables")
    )
  })
  const tx: BulkTransaction = { lookup: lookup(sql), insert: stageBatch(sql) }
  return <A, E, R>(body: (tx: BulkTransaction) => Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError | RecordConflict, R> =>
    oneAtATime.withPermits(1)(Effect.scoped(Effect.gen(function*() {
      yield* attached
      const result = yield* body(tx)
      yield* immediate(sql)(Effect.forEach(ORDER, (name) => copy(sql, tableOf(name)), { discard: true }))
      return result
    })))
}
