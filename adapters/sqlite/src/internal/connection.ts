/**
 * The one better-sqlite3 connection of a store, shared by two ways of using it under one lock: an `@effect/sql`
 * client (migrations and the admin side) and direct prepared statements for every public operation. Statements are
 * prepared once per connection and reused. Statements outside a transaction wait while a transaction holds the
 * connection; a transaction holds it from `BEGIN IMMEDIATE` to `COMMIT`, so no other fiber's statement can land in it.
 */
import type * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import type { StoreError } from "@stint/core/Errors"
import Sqlite from "better-sqlite3"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Str from "effect/String"
import { storeError } from "./database.js"

/** A statement prepared once on the connection. */
export type Prepared = Sqlite.Statement<Array<unknown>, Record<string, unknown>>

/** The connection, its lock and its statement cache. */
export interface Connection {
  /** The `@effect/sql` client over this connection (for migrations and the admin side). */
  readonly sql: SqlClient.SqlClient
  /** The statement for `text`, prepared on first use and kept for the life of the connection. */
  readonly prepare: (text: string) => Prepared
  /** Runs `f` synchronously once no transaction holds the connection; a throw becomes a `StoreError` about `what`. */
  readonly run: <A>(what: string, f: () => A) => Effect.Effect<A, StoreError>
  /**
   * Runs `effect` in one write transaction (`BEGIN IMMEDIATE`, waiting up to the busy timeout for other processes)
   * holding the connection, then `commit()` and COMMIT when it succeeds, or ROLLBACK when anything fails, dies or is
   * interrupted. `commit` runs synchronously inside the transaction (its throw rolls back).
   */
  readonly transaction: <A, E, R>(
    what: string,
    effect: Effect.Effect<A, E, R>,
    commit?: (a: A) => void
  ) => Effect.Effect<A, E | StoreError, R>
  /**
   * `transaction` for a synchronous body: BEGIN IMMEDIATE, `f`, COMMIT in one step once no transaction holds the
   * connection (nothing can come between them, so the lock is taken only to wait for a transaction in progress),
   * ROLLBACK when `f` or the COMMIT throws; the throw becomes a `StoreError` about `what`.
   */
  readonly transactionSync: <A>(what: string, f: () => A) => Effect.Effect<A, StoreError>
  /** Whether a transaction is open on the connection (SQLite ends one by itself on some errors: a full disk, I/O). */
  readonly inTransaction: () => boolean
}

/**
 * The connection's lock: held from BEGIN to COMMIT. Unlike a `Semaphore` it costs nothing beyond a flag to take when
 * free (every request takes it at least once). It is taken only where interruption cannot come between taking it and
 * installing its release; a waiter is woken when it is released and tries again (so a waiter interrupted after its
 * wake-up takes nothing with it).
 */
interface Lock {
  readonly held: () => boolean
  /** Runs `effect` holding the lock. */
  readonly with: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Takes the lock until the scope closes. */
  readonly scoped: Effect.Effect<void, never, Scope.Scope>
}

export const makeLock = (): Lock => {
  let held = false
  const waiters = new Set<() => void>()
  const released = Effect.async<void>((resume) => {
    const wake = () => resume(Effect.void)
    waiters.add(wake)
    return Effect.sync(() => {
      waiters.delete(wake)
    })
  })
  const release = Effect.sync(() => {
    held = false
    if (waiters.size === 0) return
    const woken = [...waiters]
    waiters.clear()
    for (const wake of woken) wake()
  })
  /** Takes the lock (when free, synchronously) and then runs `then`; must run uninterruptibly, `restore` given. */
  const taking = <A, E, R>(
    restore: <X, Y, Z>(effect: Effect.Effect<X, Y, Z>) => Effect.Effect<X, Y, Z>,
    then: () => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E, R> => {
    const attempt: Effect.Effect<A, E, R> = Effect.suspend(() => {
      if (held) return Effect.zipRight(restore(released), attempt)
      held = true
      return then()
    })
    return attempt
  }
  return {
    held: () => held,
    with: (effect) =>
      Effect.uninterruptibleMask((restore) => taking(restore, () => Effect.ensuring(restore(effect), release))),
    scoped: Effect.uninterruptibleMask((restore) =>
      taking(restore, () => Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, release)))
    )
  }
}

/** The options of `open`. */
export interface OpenOptions {
  readonly filename: string
  readonly busyTimeoutMillis: number
  readonly synchronous: "FULL" | "NORMAL"
}

/** SQLite's "database is locked" (better-sqlite3 reports the primary or an extended code). */
const isBusy = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && /^SQLITE_BUSY/.test(String((cause as { readonly code?: unknown }).code))

const sqlError = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

/**
 * Opens the file (WAL, the busy timeout, foreign keys, the `synchronous` level) and closes it with the scope.
 */
export const open = (
  options: OpenOptions
): Effect.Effect<Connection, StoreError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const db = yield* Effect.try({
      try: () => new Sqlite(options.filename),
      catch: storeError(`opening ${options.filename}`)
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => db.close()))
    yield* Effect.try({
      try: () => db.pragma(`busy_timeout = ${options.busyTimeoutMillis}`),
      catch: storeError(`setting up ${options.filename}`)
    })
    // Switching a new file to WAL needs its exclusive lock, and SQLite answers SQLITE_BUSY at once, without waiting in
    // the busy handler, when another process is switching it at the same moment: try again, for up to the timeout.
    const deadline = Date.now() + options.busyTimeoutMillis
    yield* Effect.retry(
      Effect.try({
        try: () => db.pragma("journal_mode = WAL"),
        catch: (cause) => cause
      }),
      {
        schedule: Schedule.spaced(Duration.millis(10)),
        while: (cause) => isBusy(cause) && Date.now() < deadline
      }
    ).pipe(Effect.mapError(storeError(`setting up ${options.filename}`)))
    yield* Effect.try({
      try: () => {
        db.pragma(`synchronous = ${options.synchronous}`)
        // Per connection, and only outside a transaction: set before anything else runs.
        db.pragma("foreign_keys = ON")
      },
      catch: storeError(`setting up ${options.filename}`)
    })

    const statements = new Map<string, Prepared>()
    const prepare = (text: string): Prepared => {
      let statement = statements.get(text)
      if (statement === undefined) {
        statement = db.prepare(text)
        statements.set(text, statement)
      }
      return statement
    }
    const begin = prepare("BEGIN IMMEDIATE")
    const commitStatement = prepare("COMMIT")

    const lock = makeLock()

    /**
     * Runs `step` (synchronous work that answers with an effect) once no transaction holds the connection: a
     * synchronous step cannot interleave with anything, it only has to wait while a transaction's body may suspend
     * between BEGIN and COMMIT. The check of the lock and `step` run in the same synchronous step, so no fiber can take
     * the lock between them.
     */
    const whenFree = <A>(step: () => Effect.Effect<A, StoreError>): Effect.Effect<A, StoreError> =>
      Effect.suspend(() => lock.held() ? lock.with(Effect.suspend(step)) : step())

    const run = <A>(what: string, f: () => A): Effect.Effect<A, StoreError> =>
      whenFree(() => {
        try {
          return Effect.succeed(f())
        } catch (cause) {
          return Effect.fail(storeError(what)(cause))
        }
      })

    /**
     * Rolls back at once, synchronously (SQLite may have rolled back already: a failed COMMIT, an I/O error; then
     * there is nothing left to undo), then logs a failed rollback.
     */
    const rollbackNow = (): Effect.Effect<void> => {
      try {
        if (db.inTransaction) db.exec("ROLLBACK")
        return Effect.void
      } catch (defect) {
        return Effect.logWarning("SQLite: rollback failed", defect)
      }
    }
    const rollback = Effect.suspend(rollbackNow)

    /** Rolls back before anything else can run (no fiber may be interrupted first), then fails with `error`. */
    const rolledBack = (error: StoreError): Effect.Effect<never, StoreError> =>
      Effect.zipRight(rollbackNow(), Effect.fail(error))

    const transactionSync = <A>(what: string, f: () => A): Effect.Effect<A, StoreError> =>
      whenFree(() => {
        try {
          begin.run()
        } catch (cause) {
          return Effect.fail(storeError(`beginning ${what}`)(cause))
        }
        let value: A
        try {
          value = f()
        } catch (cause) {
          return rolledBack(storeError(what)(cause))
        }
        try {
          commitStatement.run()
        } catch (cause) {
          return rolledBack(storeError(`committing ${what}`)(cause))
        }
        return Effect.succeed(value)
      })

    const transaction = <A, E, R>(
      what: string,
      effect: Effect.Effect<A, E, R>,
      commit?: (a: A) => void
    ): Effect.Effect<A, E | StoreError, R> =>
      lock.with(Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(
          Effect.try({ try: () => begin.run(), catch: storeError(`beginning ${what}`) }),
          () =>
            Effect.flatMap(Effect.exit(restore(effect)), (exit): Effect.Effect<A, E | StoreError> => {
              if (Exit.isFailure(exit)) return Effect.zipRight(rollback, exit)
              try {
                commit?.(exit.value)
                commitStatement.run()
                return Effect.succeed(exit.value)
              } catch (cause) {
                return Effect.zipRight(rollback, Effect.fail(storeError(`committing ${what}`)(cause)))
              }
            })
        )
      ))

    // The `@effect/sql` side: the same connection and statement cache, behind the same lock.
    const execute = (text: string, params: ReadonlyArray<unknown>, raw: boolean) =>
      Effect.try({
        try: () => {
          const statement = prepare(text)
          if (statement.reader) return statement.all(...params) as ReadonlyArray<unknown>
          const result = statement.run(...params)
          return raw ? (result as unknown as ReadonlyArray<unknown>) : []
        },
        catch: sqlError
      })
    const connection: SqlConnection.Connection = {
      execute: (text, params, transformRows) =>
        transformRows === undefined
          ? execute(text, params, false)
          : Effect.map(execute(text, params, false), (rows) => transformRows(rows as ReadonlyArray<object>)),
      executeRaw: (text, params) => execute(text, params, true),
      executeValues: (text, params) =>
        Effect.try({
          try: () => {
            const statement = db.prepare(text)
            if (!statement.reader) {
              statement.run(...params)
              return []
            }
            return statement.raw(true).all(...params) as ReadonlyArray<ReadonlyArray<unknown>>
          },
          catch: sqlError
        }),
      executeUnprepared: (text, params, transformRows) =>
        Effect.try({
          try: () => {
            const statement = db.prepare(text)
            const rows = statement.reader ? statement.all(...(params ?? [])) as ReadonlyArray<object> : []
            if (!statement.reader) statement.run(...(params ?? []))
            return transformRows === undefined ? rows : transformRows(rows)
          },
          catch: sqlError
        }),
      executeStream: () => Stream.die("SQLite: streaming is not supported")
    }
    const transformRows = Statement.defaultTransforms(Str.snakeToCamel).array
    const sql = yield* SqlClient.make({
      // Held until the statement has run (its scope), so that it never lands inside another fiber's open transaction.
      acquirer: Effect.as(lock.scoped, connection),
      transactionAcquirer: Effect.as(lock.scoped, connection),
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
      transformRows
    })
    return { sql, prepare, run, transaction, transactionSync, inTransaction: () => db.inTransaction }
  })
