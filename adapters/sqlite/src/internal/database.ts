/**
 * Opening the SQLite file with Stint's pragmas (see `connection.ts`), the `@effect/sql` write transaction that takes the write lock up front
 * (`BEGIN IMMEDIATE`), and the mapping of SQLite's failures to the core's `StoreError`.
 */
import type * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { StoreError } from "@stint/core/Errors"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Connection from "./connection.js"

/** How the database is opened. */
export interface Options {
  readonly filename: string
  readonly busyTimeoutMillis?: number | undefined
  readonly synchronous?: "FULL" | "NORMAL" | undefined
}

/** The default time a statement waits for another connection's lock before failing with `SQLITE_BUSY`. */
export const DEFAULT_BUSY_TIMEOUT_MILLIS = 5000

/** A `StoreError` naming what failed, keeping the cause for the log. */
export const storeError = (what: string) => (cause: unknown): StoreError =>
  new StoreError({
    message: `SQLite: ${what} failed${cause instanceof Error ? `: ${cause.message}` : ""}`,
    cause
  })

/** Runs `effect`, turning every failure it declares into a `StoreError` about `what`. */
export const orStoreError = (what: string) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, StoreError, R> => Effect.mapError(effect, storeError(what))

/**
 * Opens (and creates) the file: WAL journal, the busy timeout, foreign keys on, the `synchronous` level (default
 * `FULL`). The connection closes when the scope closes.
 */
export const open = (
  options: Options
): Effect.Effect<Connection.Connection, StoreError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const busyTimeout = options.busyTimeoutMillis ?? DEFAULT_BUSY_TIMEOUT_MILLIS
    if (!Number.isInteger(busyTimeout) || busyTimeout < 0) {
      return yield* new StoreError({ message: `SQLite: busyTimeoutMillis must be a non-negative integer` })
    }
    const synchronous = options.synchronous ?? "FULL"
    if (synchronous !== "FULL" && synchronous !== "NORMAL") {
      return yield* new StoreError({ message: `SQLite: synchronous must be "FULL" or "NORMAL"` })
    }
    return yield* Connection.open({ filename: options.filename, busyTimeoutMillis: busyTimeout, synchronous })
  })

/**
 * Runs `effect` in one write transaction that takes SQLite's write lock before its first statement
 * (`BEGIN IMMEDIATE`, waiting up to the busy timeout for other processes), on the client's one connection, which no
 * other fiber of this process can use until the transaction ends. Commits when `effect` succeeds and rolls back when
 * it fails, dies or is interrupted. Inside another such transaction it becomes a savepoint.
 */
export const immediate = (sql: SqlClient.SqlClient) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError, R> =>
  Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
    Option.match(outer, {
      onNone: () => Effect.scoped(topLevel(sql, effect)),
      onSome: ([conn, depth]) => savepoint(conn, depth + 1, effect)
    }))

const run = (conn: SqlConnection.Connection, statement: string) =>
  Effect.asVoid(conn.executeUnprepared(statement, [], undefined))

const topLevel = <A, E, R>(
  sql: SqlClient.SqlClient,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R | Scope.Scope> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      // `reserve` holds the client's connection for this scope: statements of other fibers wait for it.
      const conn = yield* restore(sql.reserve).pipe(orStoreError("reserving the connection"))
      yield* restore(run(conn, "BEGIN IMMEDIATE")).pipe(orStoreError("beginning a write transaction"))
      const exit = yield* Effect.exit(
        restore(Effect.provideService(effect, SqlClient.TransactionConnection, [conn, 0] as const))
      )
      if (Exit.isSuccess(exit)) {
        const committed = yield* Effect.exit(run(conn, "COMMIT"))
        if (Exit.isSuccess(committed)) return exit.value
        yield* rollback(conn, "ROLLBACK")
        return yield* Effect.failCause(Cause.map(committed.cause, storeError("committing")))
      }
      yield* rollback(conn, "ROLLBACK")
      return yield* exit
    })
  )

const savepoint = <A, E, R>(
  conn: SqlConnection.Connection,
  depth: number,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const name = `stint_${depth}`
      yield* run(conn, `SAVEPOINT ${name}`).pipe(orStoreError("opening a savepoint"))
      const exit = yield* Effect.exit(
        restore(Effect.provideService(effect, SqlClient.TransactionConnection, [conn, depth] as const))
      )
      if (Exit.isFailure(exit)) yield* rollback(conn, `ROLLBACK TO ${name}`)
      yield* run(conn, `RELEASE ${name}`).pipe(orStoreError("releasing a savepoint"))
      return yield* exit
    })
  )

// A failed rollback leaves nothing to undo that SQLite has not undone itself (it rolls back on a failed commit, and
// a connection without a transaction refuses ROLLBACK): log it and carry on with the original outcome.
const rollback = (conn: SqlConnection.Connection, statement: string) =>
  run(conn, statement).pipe(
    Effect.catchAll((error) => Effect.logWarning("SQLite: rollback failed", error))
  )
