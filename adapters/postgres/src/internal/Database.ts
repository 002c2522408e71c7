/**
 * The connection pool and the ways the adapter talks to PostgreSQL: statements in one round trip on any pooled
 * connection, or several round trips on one held connection (a transaction, `Transaction.ts`); each round trip is one
 * `Exchange`. Every failure is a `StoreError`; a connection whose state is unknown after a failure is destroyed, never
 * handed to the next caller.
 */
import type { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import pg from "pg"
import { type Answer, Exchange, type Failure, type Row, types } from "./Exchange.js"
import { breaksConnection, storeError } from "./Failure.js"
import type { Compiled } from "./Sql.js"

export { type Row, types } from "./Exchange.js"

/** The settings of a pool. */
export interface PoolSettings {
  readonly url: string
  readonly poolSize: number
  readonly connectTimeoutMillis: number
  readonly statementTimeoutMillis: number
  /** How old a connection's query plans may get before it makes them again (default: `REPLAN_AFTER_MILLIS`). */
  readonly replanAfterMillis: number
}

/**
 * How long a connection keeps its cached query plans. The adapter prepares its statements once per connection, and
 * PostgreSQL may settle on one generic plan for a statement after its first executions; that plan is kept until
 * something invalidates it (an ANALYZE of a table it reads, a schema change). A plan settled while a table was small (a
 * new deployment, a freshly seeded database: `idempotency_records` empty) can read the whole table, and stays when the
 * table grows unless statistics are refreshed: with autovacuum off, a start or stop on a connection that planned
 * with 0 idempotency records seq-scanned all of them, 23 ms a write at 150,000 records against 0.4 ms re-planned.
 * So a connection whose plans are older than this discards them (`DISCARD PLANS`, one round trip, the prepared
 * statements kept) before its next use, and plans again for the tables as they are: a stale plan lives seconds, not
 * the connection's life, whatever autovacuum does.
 */
export const REPLAN_AFTER_MILLIS = 10_000

/**
 * What every connection sets before its first statement, in one round trip, once per connection.
 *
 * No bitmap scans. Every statement of the adapter reads by a key or walks an index range in order, which bitmap scans
 * cannot do: a bitmap scan reads every matching row before it returns one, so one chosen on an underestimate reads and
 * sorts all of them. A history page read along with the authentication finds its user through the key (a subquery),
 * so the planner estimates the rows of an average user: for a user with far more entries than that, it read every
 * entry past the cursor with a bitmap scan and sorted them to keep 100 (measured: 20,000 entries among 65 users, the
 * page at 90% depth, 1.6 to 1.9 ms against 0.34 ms as the range scan that stops at the limit; in `npm run bench` the
 * deep page took 1.30 to 1.46 times the first page, 1.05 with this). With bitmap scans off the planner takes the
 * ordered range scan, whatever its estimate.
 *
 * Generic plans only. Each statement is prepared once per connection and planned once for any values (and again after
 * each `DISCARD PLANS`), instead of PostgreSQL's default of planning it for its values at first and for as long as
 * such plans look cheaper than the generic one. Every statement's plan is the same for any values: a lookup by key or
 * an index range (`test/QueryPlan.test.ts` checks the generic plans of the history pages). Measured against the
 * default on `../shared/bench`'s data, two warm servers alternating, `compare.sh` run in both orders: 1.22 and 1.00
 * times the requests a second on `getActiveTimer`, 1.19 and 1.05 on a start, 1.18 and 1.14 on a start then its stop,
 * 0.88 and 1.17 on a history page; and a fresh server's first 7 s of history pages 1,463 to 1,858 req/s against 735
 * to 880 (four starts each). The baseline of `../shared/bench` plans the same way.
 */
export const SESSION_SETUP = "SET enable_bitmapscan = off; SET plan_cache_mode = force_generic_plan"

/**
 * `url` with node-postgres told to read its `sslmode` as libpq (`psql`) does, `uselibpqcompat=true`: without it,
 * node-postgres takes `prefer`, `require` and `verify-ca` for `verify-full` (refusing a server whose certificate
 * `psql` would accept under `require`) and prints a many-line warning. An address that says `uselibpqcompat` is kept.
 */
export const libpqCompatible = (url: string): string => {
  const query = url.indexOf("?")
  if (query < 0) return url
  const params = new URLSearchParams(url.slice(query + 1))
  return params.has("sslmode") && !params.has("uselibpqcompat") ? `${url}&uselibpqcompat=true` : url
}

/** `url` with its `sslmode` set to `mode`. */
const withSslMode = (url: string, mode: string): string => {
  const query = url.indexOf("?")
  const params = new URLSearchParams(url.slice(query + 1))
  params.set("sslmode", mode)
  return `${url.slice(0, query)}?${params.toString()}`
}

/** Whether connecting to `url` works, and if not, the error. */
const tryConnect = async (url: string, connectTimeoutMillis: number): Promise<unknown> => {
  const client = new pg.Client({ connectionString: libpqCompatible(url), connectionTimeoutMillis: connectTimeoutMillis })
  client.on("error", () => undefined)
  try {
    await client.connect()
    return undefined
  } catch (error) {
    return error ?? new Error("connecting failed")
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** A server without SSL refusing an encrypted connection, as node-postgres reports it. */
const noSsl = (error: unknown): boolean => error instanceof Error && /does not support SSL/i.test(error.message)

/** A server refusing an unencrypted connection (`hostssl` only in `pg_hba.conf`): SQLSTATE 28000 or 28P01. */
const refusedPlain = (error: unknown): boolean =>
  typeof error === "object" && error !== null && ["28000", "28P01"].includes(String((error as { code?: unknown }).code))

/**
 * The address to connect with, `sslmode` as libpq reads it. node-postgres connects one way only, and reads `allow` as
 * `verify-full`; libpq's `prefer` (encrypt when the server can, else not) and `allow` (do not encrypt unless the
 * server insists) try one way, then the other. So for those two, one connection is tried when the pool is made, and
 * the address used from then on says `require` (encrypt, certificate not verified) or `disable`. Any other address,
 * and one whose first try fails for another reason (the server is down: the pool will say so), is used as it is.
 */
export const resolveSslMode = async (url: string, connectTimeoutMillis: number): Promise<string> => {
  const query = url.indexOf("?")
  if (query < 0) return url
  const params = new URLSearchParams(url.slice(query + 1))
  const mode = params.get("sslmode")
  if ((mode !== "prefer" && mode !== "allow") || params.has("uselibpqcompat")) return url
  const encrypted = withSslMode(url, "require")
  const plain = withSslMode(url, "disable")
  if (mode === "prefer") return noSsl(await tryConnect(encrypted, connectTimeoutMillis)) ? plain : encrypted
  return refusedPlain(await tryConnect(plain, connectTimeoutMillis)) ? encrypted : plain
}

/** How much longer than the server's statement timeout the client waits before giving a connection up. */
const CLIENT_GRACE_MILLIS = 1_000

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
    Effect.map(Effect.promise(() => resolveSslMode(settings.url, settings.connectTimeoutMillis)), (url) => {
      const pool = new pg.Pool({
        connectionString: libpqCompatible(url),
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
        application_name: "stint",
        types
      })
      // Errors of idle connections (the server restarted, a backend was terminated) only remove them from the pool.
      pool.on("error", () => undefined)
      replanAfter.set(pool, settings.replanAfterMillis)
      return pool
    }),
    (pool) => Effect.promise(() => pool.end().catch(() => undefined)).pipe(Effect.timeoutOption(5_000))
  )

/** Connections that reported an error while held: they go back to the pool only to be destroyed. */
const broken = new WeakSet<pg.PoolClient>()
const watched = new WeakSet<pg.PoolClient>()

/** Each pool's `replanAfterMillis`; when each connection's plans were last made afresh (its start, or a discard). */
const replanAfter = new WeakMap<pg.Pool, number>()
const plannedAt = new WeakMap<pg.PoolClient, number>()

/**
 * A connection that dies while held emits "error" (the pool listens only while it is idle): without a listener that
 * would crash the process. One listener per connection, for its whole life, marks it broken.
 */
const watch = (client: pg.PoolClient): pg.PoolClient => {
  if (!watched.has(client)) {
    watched.add(client)
    client.on("error", () => broken.add(client))
    plannedAt.set(client, Date.now())
  }
  return client
}

/**
 * Takes a connection from the pool (one round trip more when it has to open one and set it up, `SESSION_SETUP`, or
 * when its plans are due to be made again: the pool's `replanAfterMillis`).
 */
const connect = (pool: pg.Pool, use: (client: pg.PoolClient | undefined, error: unknown) => void): void => {
  pool.connect((error, taken) => {
    if (taken === undefined) return use(undefined, error)
    const fresh = !watched.has(taken)
    const client = watch(taken)
    const now = Date.now()
    let prelude = SESSION_SETUP
    if (!fresh) {
      // Every pool is made by `makePool`, which records its setting.
      const due = now - (plannedAt.get(client) ?? now) >= (replanAfter.get(pool) ?? 0)
      if (!due) return use(client, error)
      plannedAt.set(client, now)
      prelude = "DISCARD PLANS"
    }
    client.query(prelude, (failed: Error | null | undefined) => {
      if (failed === undefined || failed === null) return use(client, undefined)
      client.release(true)
      use(undefined, failed)
    })
  })
}

/** Gives a connection back to the pool, or destroys it if it broke or a failure left its state in doubt. */
const release = (client: pg.PoolClient, failure: Failure | undefined): void => {
  client.release(broken.has(client) || (failure !== undefined && breaksConnection(failure.error)))
}

/** Runs one exchange on a pooled connection, answering once the connection is back in the pool. */
const once = (pool: pg.Pool, statements: ReadonlyArray<Compiled>, answer: Answer): void =>
  connect(pool, (client, error) => {
    if (client === undefined) return answer({ error, index: undefined }, [])
    const exchange: Exchange = new Exchange(statements, (failure, rows) => {
      release(client, failure)
      answer(failure, rows)
    })
    client.query(exchange)
  })

/**
 * Runs one statement: one round trip (plus connecting, when the pool has no idle connection), its rows handed to
 * `read` in the step that resumes the caller.
 */
export const queryWith = <A>(
  pool: pg.Pool,
  what: string,
  statement: Compiled,
  read: (rows: ReadonlyArray<Row>) => Effect.Effect<A, StoreError>
): Effect.Effect<A, StoreError> =>
  Effect.async<A, StoreError>((resume) =>
    once(pool, [statement], (failure, rows) =>
      resume(failure === undefined ? read(rows[0] ?? []) : Effect.fail(storeError(what, failure.error)))
    )
  )

/** Runs one statement: one round trip. */
export const query = (pool: pg.Pool, what: string, statement: Compiled): Effect.Effect<ReadonlyArray<Row>, StoreError> =>
  queryWith(pool, what, statement, Effect.succeed)

/** A statement of `queryAll` that failed: its index, and the error. */
export interface Refused {
  readonly index: number | undefined
  readonly error: StoreError
}

/**
 * Runs statements together in one implicit transaction, one round trip: the rows of each, or the failure (with the
 * index of the statement the server refused, if one), after which nothing of them is kept.
 */
export const queryAll = (
  pool: pg.Pool,
  what: string,
  statements: ReadonlyArray<Compiled>
): Effect.Effect<ReadonlyArray<ReadonlyArray<Row>>, Refused> =>
  Effect.async<ReadonlyArray<ReadonlyArray<Row>>, Refused>((resume) =>
    once(pool, statements, (failure, rows) =>
      resume(
        failure === undefined
          ? Effect.succeed(rows)
          : Effect.fail({ index: failure.index, error: storeError(what, failure.error) })
      )
    )
  )

/** A connection held by one caller. */
export interface Connection {
  /**
   * Sends `statements` back to back and waits for every answer: one round trip. Fails with the first failure (the
   * server skips the statements after it; inside a transaction, the transaction can then only be ended). One round
   * trip at a time: the first one also takes the connection from the pool.
   */
  readonly send: (what: string, statements: ReadonlyArray<Compiled>) => Effect.Effect<ReadonlyArray<ReadonlyArray<Row>>, StoreError>
}

/**
 * Holds a connection for `use`, then returns it to the pool, or destroys it if it broke or `use` left it in an unknown
 * state (`use` must end any transaction it began, and call `markBroken` when it could not; see `Transaction.ts`). The
 * connection is taken from the pool by the first round trip, in the same step: a `use` that sends nothing takes none.
 * A round trip, once sent, runs to its answer uninterrupted.
 */
export const withConnection = <A, E, R>(
  pool: pg.Pool,
  use: (connection: Connection, markBroken: () => void) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R> =>
  Effect.acquireUseRelease(
    Effect.sync((): Held => ({ client: undefined, failure: undefined })),
    (held) => {
      const connection: Connection = {
        send: (what, statements) =>
          Effect.uninterruptible(Effect.async<ReadonlyArray<ReadonlyArray<Row>>, StoreError>((resume) => {
            // A connection in doubt (it timed out, or broke) takes nothing more: a ROLLBACK behind a statement that
            // timed out would only wait for its own timeout.
            if (held.failure !== undefined) return resume(Effect.fail(storeError(what, held.failure.error)))
            const exchange = new Exchange(statements, (failure, rows) => {
              if (failure !== undefined && breaksConnection(failure.error)) held.failure = failure
              resume(failure === undefined ? Effect.succeed(rows) : Effect.fail(storeError(what, failure.error)))
            })
            if (held.client !== undefined) return void held.client.query(exchange)
            connect(pool, (client, error) => {
              if (client === undefined) return resume(Effect.fail(storeError("connecting", error)))
              held.client = client
              client.query(exchange)
            })
          }))
      }
      return use(connection, () => {
        held.failure = { error: new Error("left in an unknown state"), index: undefined }
      })
    },
    (held) =>
      Effect.sync(() => {
        if (held.client !== undefined) release(held.client, held.failure)
      })
  )

/** The connection held (once the first round trip took one), and the failure that broke it, if one did. */
interface Held {
  client: pg.PoolClient | undefined
  failure: Failure | undefined
}
