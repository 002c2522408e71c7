/**
 * The core's `Store` on PostgreSQL, for any number of Stint instances sharing one database: every promise of the
 * spec holds across instances because the database, not the process, serialises each user's timer changes
 * (an advisory lock per user and workspace, backed by a partial unique index), counts each key's requests (one
 * atomic statement), and keeps the cursor secret.
 *
 * @since 0.1.0
 */
import { StoreError } from "@stint/core/Errors"
import type { Policy } from "@stint/core/RateLimit"
import { type Authenticated, type EntriesQuery, Store } from "@stint/core/Store"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type pg from "pg"
import * as AdminStore from "./internal/AdminStore.js"
import { makePool, queryAll, queryWith, REPLAN_AFTER_MILLIS } from "./internal/Database.js"
import { retryTransient } from "./internal/Failure.js"
import { isId } from "./internal/Ids.js"
import * as Migrations from "./internal/Migrations.js"
import * as Queries from "./internal/Queries.js"
import * as Readiness from "./internal/Readiness.js"
import type { Compiled } from "./internal/Sql.js"
import * as Rows from "./internal/Rows.js"
import { authenticated, withAuthenticatedTimerTransaction, withTimerTransaction } from "./internal/TimerTransaction.js"

/**
 * How to reach the database and how patient to be with it.
 *
 * @since 0.1.0
 */
export interface Options {
  /** `postgres://user:pass@host:port/db` (also `postgresql://`); libpq-style query parameters such as `sslmode` apply. */
  readonly url: string
  /** Connections this instance keeps at most. Default 10. */
  readonly poolSize?: number | undefined
  /** How long connecting (or waiting for a free pooled connection) may take before a `StoreError`. Default 5000. */
  readonly connectTimeoutMillis?: number | undefined
  /**
   * How long one statement may run, lock waits included, before the server cancels it (`StoreError`); the client
   * gives up one second later if the server does not answer at all. Default 5000.
   */
  readonly statementTimeoutMillis?: number | undefined
  /**
   * How old a connection's cached query plans may get before its next use makes them again (`DISCARD PLANS`, one
   * round trip): a plan PostgreSQL settled on while a table was small is not kept as the table grows, whether or not
   * autovacuum refreshes the statistics. Default 10000.
   *
   * @since 0.1.0
   */
  readonly replanAfterMillis?: number | undefined
  /**
   * The secret that signs pagination cursors. Every instance must use the same one. When absent, a random secret is
   * stored in the database on first start and shared by every instance.
   */
  readonly cursorSecret?: Uint8Array | undefined
}

/** Connections per instance unless `poolSize` says otherwise. @since 0.1.0 */
export const DEFAULT_POOL_SIZE = 10
/** How long connecting may take unless `connectTimeoutMillis` says otherwise. @since 0.1.0 */
export const DEFAULT_CONNECT_TIMEOUT_MILLIS = 5_000
/** How long a statement may run unless `statementTimeoutMillis` says otherwise. @since 0.1.0 */
export const DEFAULT_STATEMENT_TIMEOUT_MILLIS = 5_000
/** How old a connection's plans may get unless `replanAfterMillis` says otherwise. @since 0.1.0 */
export const DEFAULT_REPLAN_AFTER_MILLIS = REPLAN_AFTER_MILLIS

const positive = (name: string, value: number | undefined, fallback: number) =>
  value === undefined
    ? Effect.succeed(fallback)
    : Number.isSafeInteger(value) && value > 0
    ? Effect.succeed(value)
    : Effect.fail(new StoreError({ message: `PostgreSQL: ${name} must be a positive integer, got ${value}` }))

const settings = (options: Options) =>
  Effect.gen(function*() {
    if (!/^postgres(ql)?:\/\//i.test(options.url) || !URL.canParse(options.url)) {
      return yield* new StoreError({ message: "PostgreSQL: the database address must be a postgres:// or postgresql:// URL" })
    }
    return {
      url: options.url,
      poolSize: yield* positive("poolSize", options.poolSize, DEFAULT_POOL_SIZE),
      connectTimeoutMillis: yield* positive("connectTimeoutMillis", options.connectTimeoutMillis, DEFAULT_CONNECT_TIMEOUT_MILLIS),
      statementTimeoutMillis: yield* positive(
        "statementTimeoutMillis",
        options.statementTimeoutMillis,
        DEFAULT_STATEMENT_TIMEOUT_MILLIS
      ),
      replanAfterMillis: yield* positive("replanAfterMillis", options.replanAfterMillis, DEFAULT_REPLAN_AFTER_MILLIS)
    }
  })

/**
 * Applies pending migrations and closes its connections: for `stint migrate`.
 *
 * @since 0.1.0
 */
export const migrate = (options: Options): Effect.Effect<void, StoreError> =>
  Effect.scoped(Effect.gen(function*() {
    const pool = yield* makePool(yield* settings(options), "migrations")
    yield* Migrations.run(pool, { createSecret: false })
  }))

/**
 * How the store's connection pool is used at one moment.
 *
 * @since 0.1.0
 */
export interface PoolUsage {
  /** Open connections (in use or idle). */
  readonly total: number
  readonly idle: number
  /** Queries waiting for a free connection. */
  readonly waiting: number
  /** The pool's size limit. */
  readonly max: number
}

/**
 * A read-only view of the store's pool, for metrics (`layerWithPoolStats` provides it).
 *
 * @since 0.1.0
 */
export class PoolStats extends Context.Tag("@stint/postgres/PgStore/PoolStats")<PoolStats, {
  readonly usage: () => PoolUsage
}>() {}

/**
 * Authentication with a page of the key's history read along (`Store.ReadAlong`): the authentication statement and
 * the page (its scope taken from the key's row) go out together, one round trip, one transaction. When only the page
 * fails, nothing of the two is kept: the key is authenticated again alone (the core then reads the page the usual
 * way), so its rate-limit count is taken exactly once.
 */
const authenticateWithPage = (
  pool: pg.Pool,
  digest: string,
  now: number,
  policy: Policy,
  page: EntriesQuery
): Effect.Effect<Option.Option<Authenticated>, StoreError> =>
  Effect.matchEffect(
    queryAll(pool, "authenticating a key", [Queries.authenticate(digest, now, policy), Queries.listEntriesByDigest(digest, page)]),
    {
      onFailure: (refused) =>
        refused.index === 1
          ? Effect.map(
            queryWith(pool, "authenticating a key", Queries.authenticate(digest, now, policy), (rows) =>
              Rows.each("authenticating a key", rows, authenticated)),
            (found) => Option.fromNullable(found[0])
          )
          : Effect.fail(refused.error),
      onSuccess: ([keyRows = [], pageRows = []]) =>
        Effect.flatMap(Rows.each("authenticating a key", keyRows, authenticated), ([found]) =>
          found === undefined
            ? Effect.succeed(Option.none())
            : Effect.map(Rows.each("listing entries", pageRows, Rows.entry), (entries) => Option.some({ ...found, entries })))
    }
  )

const open = (options: Options) =>
  Effect.gen(function*() {
    const poolSettings = yield* settings(options)
    const stored = yield* Effect.scoped(Effect.flatMap(
      makePool(poolSettings, "migrations"),
      (migrations) => Migrations.run(migrations, { createSecret: options.cursorSecret === undefined })
    ))
    const pool = yield* makePool(poolSettings)
    const secret = options.cursorSecret ?? Option.getOrUndefined(stored)
    if (secret === undefined) return yield* new StoreError({ message: "PostgreSQL: no cursor secret is stored" })

    const rows = <A>(what: string, statement: Compiled, f: (row: Rows.Row) => A) =>
      retryTransient(queryWith(pool, what, statement, (result) => Rows.each(what, result, f)))

    const store: Store["Type"] = {
      ping: Readiness.ping(pool, options.cursorSecret === undefined ? secret : null),

      authenticate: (digest, now, policy, along) =>
        along?._tag === "EntriesPage"
          ? along.query.projectId === null || isId(along.query.projectId)
            ? retryTransient(authenticateWithPage(pool, digest, now, policy, along.query))
            : store.authenticate(digest, now, policy)
          : Effect.map(
            rows("authenticating a key", Queries.authenticate(digest, now, policy, along), (row) =>
              along === undefined ? authenticated(row) : { ...authenticated(row), activeEntry: Rows.activeEntry(row) }),
            (found) => Option.fromNullable(found[0])
          ),

      cursorSecret: Effect.succeed(secret),

      listClients: (scope) => rows("listing clients", Queries.listClients(scope), Rows.client),

      listProjects: (scope, clientId) =>
        isId(clientId) ? rows("listing projects", Queries.listProjects(scope, clientId), Rows.project) : Effect.succeed([]),

      createProject: (project) =>
        isId(project.clientId)
          ? Effect.map(rows("creating a project", Queries.createProject(project), Rows.project), (created) =>
            Option.fromNullable(created[0]))
          : Effect.succeedNone,

      findActiveEntry: (scope) =>
        Effect.map(rows("finding the active entry", Queries.findActiveEntry(scope), Rows.entry), (found) =>
          Option.fromNullable(found[0])),

      listEntries: (scope, entries) =>
        entries.projectId !== null && !isId(entries.projectId)
          ? Effect.succeed([])
          : rows("listing entries", Queries.listEntries(scope, entries), Rows.entry),

      withTimerTransaction: withTimerTransaction(pool),
      authenticateInTimerTransaction: withAuthenticatedTimerTransaction(pool),

      admin: AdminStore.make(pool, poolSettings)
    }
    const stats: PoolStats["Type"] = {
      usage: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: poolSettings.poolSize
      })
    }
    return { store, stats }
  })

/**
 * Connects, applies pending migrations, and returns the store; its connections close with the scope.
 *
 * @since 0.1.0
 */
export const make = (options: Options): Effect.Effect<Store["Type"], StoreError, Scope.Scope> =>
  Effect.map(open(options), ({ store }) => store)

/**
 * The `Store` on PostgreSQL: connects, applies pending migrations, and ends its pool when the layer's scope closes.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<Store, StoreError> => Layer.scoped(Store, make(options))

/**
 * `layer`, also providing `PoolStats`.
 *
 * @since 0.1.0
 */
export const layerWithPoolStats = (options: Options): Layer.Layer<Store | PoolStats, StoreError> =>
  Layer.scopedContext(
    Effect.map(open(options), ({ stats, store }) => Context.make(Store, store).pipe(Context.add(PoolStats, stats)))
  )
