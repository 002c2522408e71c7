/**
 * The connection pool and the two ways the adapter talks to PostgreSQL: one statement on any pooled connection, or
 * several statements on one held connection, sent back to back without waiting (node-postgres pipelining) so that a
 * whole group costs one network round trip. Every failure is a `StoreError`; a connection whose state is unknown after
 * a failure is destroyed, never handed to the next caller.
 */
import type { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import pg from "pg"
import { breaksConnection, storeError } from "./Failure.js"
import type { Compiled } from "./Sql.js"

/** A result row as node-postgres returns it. */
export type Row = Readonly<Record<string, unknown>>

/** The settings of a pool. */
export interface PoolSettings {
  readonly url: string
  readonly poolSize: number
  readonly connectTimeoutMillis: number
  readonly statementTimeoutMillis: number
}

/** How much longer than the server's statement timeout the client waits before giving a connection up. */
const CLIENT_GRACE_MILLIS = 1_000

const INT8 = 20

/** `bigint` columns hold epoch milliseconds and counts, all far below 2^53: they are read as numbers. */
export const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 && format !== "binary"
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format ?? "text")) as pg.CustomTypesConfig["getTypeParser"]
}

/**
 * A pool on `settings.url`, ended when the scope closes. Connecting waits at most `connectTimeoutMillis`; for queries,
 * the server cancels any statement after `statementTimeoutMillis` (lock waits included) and the client gives up a
 * little later if the server stays silent; a session idle inside a transaction is ended by the server. The pool for
 * migrations holds one connection and no statement timeout.
 */
export const makePool = (
  settings: PoolSettings,
  purpose: "queries" | "migrations" = "queries"
): Effect.Effect<pg.Pool, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new pg.Pool({
        connectionString: settings.url,
        connectionTimeoutMillis: settings.connectTimeoutMillis,
        // Migrations may legitimately run long (and wait for another instance's): no statement timeout for them.
        ...(purpose === "queries"
          ? {
            max: settings.poolSize,
            statement_timeout: settings.statementTimeoutMillis,
            query_timeout: settings.statementTimeoutMillis + CLIENT_GRACE_MILLIS
          }
          : { max: 1 }),
        idle_in_transaction_session_timeout: Math.max(10_000, 2 * settings.statementTimeoutMillis),
        idleTimeoutMillis: 30_000,
        keepAlive: true,
        pipeline: true,
        application_name: "stint",
        types
      })
      // Errors of idle connections (the server restarted, a backend was terminated) only remove them from the pool.
      pool.on("error", () => undefined)
      return pool
    }),
    (pool) => Effect.promise(() => pool.end().catch(() => undefined)).pipe(Effect.timeoutOption(5_000))
  )

const names = new Map<string, string>()

/**
 * The name under which a statement with parameters is prepared on each connection (the first use on a connection
 * parses and plans it; later uses only bind and execute). Statements without parameters (BEGIN, COMMIT) go unnamed.
 */
const nameOf = (text: string): string => {
  let name = names.get(text)
  if (name === undefined) {
    name = `stint_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`
    // The adapter's statements come in a few dozen shapes; the bound only guards against misuse.
    if (names.size < 1_000) names.set(text, name)
  }
  return name
}

const NO_ROWS: ReadonlyArray<Row> = []

const queryOn = (
  client: pg.Pool | pg.PoolClient,
  statement: Compiled,
  callback: (error: Error | undefined, rows: ReadonlyArray<Row>) => void
) => {
  // node-postgres only reads `values` (it binds copies), so the statement's own array is passed as it is.
  const values = statement.values as Array<unknown>
  const config: pg.QueryConfig = statement.values.length > 0
    ? { text: statement.text, values, name: nameOf(statement.text) }
    : { text: statement.text }
  client.query(config, (error: Error | undefined, result) => callback(error ?? undefined, result?.rows ?? NO_ROWS))
}

/**
 * Runs one statement on a pooled connection: one round trip (plus connecting, when the pool has no idle connection).
 */
export const query = (pool: pg.Pool, what: string, statement: Compiled): Effect.Effect<ReadonlyArray<Row>, StoreError> =>
  queryWith(pool, what, statement, Effect.succeed)

/**
 * `query`, its rows handed to `read` as soon as they arrive: the answer is read in the same step that resumes the
 * caller, without a step of its own.
 */
export const queryWith = <A>(
  pool: pg.Pool,
  what: string,
  statement: Compiled,
  read: (rows: ReadonlyArray<Row>) => Effect.Effect<A, StoreError>
): Effect.Effect<A, StoreError> =>
  Effect.async<A, StoreError>((resume) => {
    // pg-pool releases (and on any error destroys) the connection itself.
    queryOn(pool, statement, (error, rows) => resume(error === undefined ? read(rows) : Effect.fail(storeError(what, error))))
  })

/** A connection held by one caller. */
export interface Connection {
  /**
   * Sends `statements` back to back and waits for every answer: one round trip. Fails with the first failure (later
   * statements of a transaction then fail too, and a trailing COMMIT turns into a rollback).
   */
  readonly send: (what: string, statements: ReadonlyArray<Compiled>) => Effect.Effect<ReadonlyArray<ReadonlyArray<Row>>, StoreError>
  /**
   * `send`, each statement's own outcome answered: for statements outside a transaction, each of which commits or
   * fails on its own.
   */
  readonly sendEach: (
    what: string,
    statements: ReadonlyArray<Compiled>
  ) => Effect.Effect<ReadonlyArray<Either.Either<ReadonlyArray<Row>, StoreError>>>
}

/**
 * Holds a connection for `use`, then returns it to the pool, or destroys it if it broke or `use` left it in an unknown
 * state (`use` must end any transaction it began; see `Transaction.ts`).
 */
export const withConnection = <A, E, R>(
  pool: pg.Pool,
  use: (connection: Connection, markBroken: (error: unknown) => void) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R> =>
  Effect.acquireUseRelease(
    Effect.tryPromise({ try: () => pool.connect(), catch: (error) => storeError("connecting", error) }).pipe(
      Effect.map((client) => {
        const held = { client, broken: false, onError: (_: unknown) => {} }
        // A connection that dies while held emits "error"; without a listener that would crash the process.
        held.onError = () => {
          held.broken = true
        }
        client.on("error", held.onError)
        return held
      })
    ),
    (held) => {
      const markBroken = () => {
        held.broken = true
      }
      // node-postgres writes each statement's messages as soon as it is queued (one write to the socket per
      // statement); corked, the whole group leaves in one write, and the server reads it at once.
      const sendAll = (
        what: string,
        statements: ReadonlyArray<Compiled>,
        done: (results: ReadonlyArray<ReadonlyArray<Row>>, failures: ReadonlyArray<StoreError | undefined>) => void
      ) => {
        const results: Array<ReadonlyArray<Row>> = statements.map(() => NO_ROWS)
        const failures: Array<StoreError | undefined> = []
        let remaining = statements.length
        if (remaining === 0) return done(results, failures)
        const socket = statements.length > 1 ? (held.client as unknown as pg.Client).connection.stream : undefined
        socket?.cork()
        try {
          statements.forEach((statement, i) =>
            queryOn(held.client, statement, (error, rows) => {
              if (error !== undefined) {
                if (breaksConnection(error)) markBroken()
                failures[i] = storeError(what, error)
              } else {
                results[i] = rows
              }
              if (--remaining === 0) done(results, failures)
            })
          )
        } finally {
          socket?.uncork()
        }
      }
      const connection: Connection = {
        send: (what, statements) =>
          Effect.async<ReadonlyArray<ReadonlyArray<Row>>, StoreError>((resume) =>
            sendAll(what, statements, (results, failures) => {
              const failure = failures.find((failure) => failure !== undefined)
              resume(failure === undefined ? Effect.succeed(results) : Effect.fail(failure))
            })
          ),
        sendEach: (what, statements) =>
          Effect.async<ReadonlyArray<Either.Either<ReadonlyArray<Row>, StoreError>>>((resume) =>
            sendAll(what, statements, (results, failures) =>
              resume(Effect.succeed(results.map((rows, i) => {
                const failure = failures[i]
                return failure === undefined ? Either.right(rows) : Either.left(failure)
              }))))
          )
      }
      return use(connection, markBroken)
    },
    (held) =>
      Effect.sync(() => {
        held.client.off("error", held.onError)
        // `true` destroys the connection instead of pooling it.
        held.client.release(held.broken)
      })
  )
