/**
 * Stint's embedded default storage: the core's `Store` port on one SQLite file (better-sqlite3), in WAL mode with a
 * busy timeout, foreign keys on and `synchronous = FULL` unless chosen otherwise, migrated by `@effect/sql`'s Migrator.
 * The public operations run statements prepared once per connection. Every write step runs in a `BEGIN IMMEDIATE`
 * transaction, so several processes sharing the file keep every promise of the port: one active entry per user and
 * workspace, one execution per idempotency key, one rate-limit window per key.
 *
 * @since 0.1.0
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import type { StoreError } from "@stint/core/Errors"
import { Store } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { authenticate, makeCursorSecret } from "./internal/access.js"
import { makeAdmin } from "./internal/admin.js"
import { createProject, listClients, listProjects } from "./internal/catalog.js"
import { open } from "./internal/database.js"
import { findActive, listEntries } from "./internal/entries.js"
import { migrate as runMigrations } from "./internal/migrations.js"
import { readiness } from "./internal/readiness.js"
import { timerTransactions } from "./internal/timers.js"

/**
 * Where the database lives and how long to wait for another process's lock.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The database file; created (with its tables) when missing. Its directory must exist. */
  readonly filename: string
  /**
   * How long a statement waits for another connection's write lock before failing with a `StoreError`
   * (SQLite's `busy_timeout`). Default: 5000 ms.
   */
  readonly busyTimeoutMillis?: number | undefined
  /**
   * SQLite's `synchronous` level in WAL mode. `FULL` (the default) syncs the WAL on every commit: a committed change
   * survives a power loss. `NORMAL` syncs only at checkpoints: faster commits, still never a corrupt file, but the
   * last commits before a power loss (not a process crash) may be lost. Stint keeps `FULL` unless told otherwise
   * (`stint serve` reads `STINT_SQLITE_SYNCHRONOUS`).
   */
  readonly synchronous?: "FULL" | "NORMAL" | undefined
}

const make = (options: Options): Effect.Effect<Store["Type"], StoreError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const connection = yield* open(options)
    const sql = connection.sql
    yield* runMigrations(sql)
    const timers = timerTransactions(connection)
    const store: Store["Type"] = {
      authenticate: authenticate(connection),
      cursorSecret: yield* makeCursorSecret(sql),
      listClients: listClients(sql),
      listProjects: listProjects(sql),
      createProject: createProject(sql),
      findActiveEntry: findActive(connection),
      listEntries: listEntries(connection),
      withTimerTransaction: timers.withTimerTransaction,
      authenticateInTimerTransaction: timers.authenticateInTimerTransaction,
      admin: makeAdmin(sql),
      ping: yield* readiness(connection, options.filename)
    }
    return store
  })

/**
 * The core's `Store` on the SQLite file `options.filename`: opens (and creates) it, sets WAL, the busy timeout and
 * foreign keys, applies pending migrations, and closes the file when the layer's scope closes.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<Store, StoreError> =>
  Layer.scoped(Store, make(options)).pipe(Layer.provide(Reactivity.layer))

/**
 * Applies pending migrations to the file and closes it (`stint migrate`). Running it again is a no-op.
 *
 * @since 0.1.0
 */
export const migrate = (options: Options): Effect.Effect<void, StoreError> =>
  Effect.scoped(Effect.flatMap(open(options), (connection) => runMigrations(connection.sql))).pipe(
    Effect.asVoid,
    Effect.provide(Reactivity.layer)
  )
