/**
 * The composition root's choice of storage: a database address (`sqlite:PATH`, `postgres://…`) becomes a `Store`
 * whose migrations have been applied.
 *
 * @since 0.1.0
 */
import type { Errors, Store } from "@stint/core"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Adapters from "./internal/adapters.js"

/**
 * The address used when neither `--database` nor `STINT_DATABASE_URL` is given.
 *
 * @since 0.1.0
 */
export const DEFAULT_URL = "sqlite:./stint.db"

/**
 * An address that names no storage Stint supports.
 *
 * @since 0.1.0
 */
export class DatabaseUrlInvalid extends Schema.TaggedError<DatabaseUrlInvalid>()("DatabaseUrlInvalid", {
  url: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `invalid database address ${redact(this.url)}: ${this.reason}`
  }
}

/**
 * Where the data lives, parsed from an address.
 *
 * @since 0.1.0
 */
export type Target =
  | { readonly _tag: "Sqlite"; readonly filename: string }
  | { readonly _tag: "Postgres"; readonly url: string }

/**
 * Hides the password of a URL-shaped address (`postgres://user:secret@host` → `postgres://user:***@host`).
 *
 * @since 0.1.0
 */
export const redact = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*):[^@/]*@/i, "$1:***@")

/** An address's scheme (`sqlite`, `postgres`, …), as written. */
const SCHEME = /^([a-z][a-z0-9+.-]*):/i

/**
 * Parses an address: `sqlite:PATH` (also `sqlite://PATH`), `postgres://…` or `postgresql://…`.
 *
 * @since 0.1.0
 */
export const parse = (url: string): Either.Either<Target, DatabaseUrlInvalid> => {
  const trimmed = url.trim()
  const scheme = SCHEME.exec(trimmed)?.[1]?.toLowerCase()
  const invalid = (reason: string) => Either.left(new DatabaseUrlInvalid({ url, reason }))
  switch (scheme) {
    case "sqlite": {
      const rest = trimmed.slice("sqlite:".length)
      const filename = rest.startsWith("//") ? rest.slice(2) : rest
      return filename.length === 0
        ? invalid("sqlite: needs a file path, e.g. sqlite:./stint.db")
        : Either.right({ _tag: "Sqlite", filename })
    }
    case "postgres":
    case "postgresql": {
      if (!URL.canParse(trimmed)) return invalid("not a valid URL, e.g. postgres://user:pass@host:5432/db")
      return Either.right({ _tag: "Postgres", url: trimmed })
    }
    default:
      return invalid("use sqlite:PATH or postgres://user:pass@host:port/db")
  }
}

/**
 * The SQLite file an address names (`sqlite:./stint.db`, `sqlite://…`, the scheme in any case), or a path given alone
 * (no scheme); refused for a PostgreSQL address and for anything `parse` refuses. For programs that take `stint`'s
 * `--database` but serve SQLite only, such as the embed examples.
 *
 * @since 0.1.0
 */
export const sqliteFile = (address: string): Either.Either<string, DatabaseUrlInvalid> => {
  if (!SCHEME.test(address.trim())) return Either.right(address)
  const notSqlite = () => new DatabaseUrlInvalid({ url: address, reason: "a SQLite file is needed here, e.g. sqlite:./stint.db" })
  return Either.flatMap(parse(address), (target) =>
    target._tag === "Sqlite" ? Either.right(target.filename) : Either.left(notSqlite()))
}

/**
 * The address from `STINT_DATABASE_URL`, or `sqlite:./stint.db`.
 *
 * @since 0.1.0
 */
export const urlConfig: Config.Config<string> = Config.string("STINT_DATABASE_URL").pipe(
  Config.withDefault(DEFAULT_URL)
)

const positive = (name: string) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a positive integer`, validation: (n) => n > 0 }),
    Config.option
  )

/**
 * PostgreSQL pool tuning from the environment: `STINT_PG_POOL_SIZE` (connections per instance, default 10),
 * `STINT_PG_CONNECT_TIMEOUT_MS` and `STINT_PG_STATEMENT_TIMEOUT_MS` (default 5000 each).
 *
 * @since 0.1.0
 */
export const pgTuning = Effect.map(
  Config.all({
    poolSize: positive("STINT_PG_POOL_SIZE"),
    connectTimeoutMillis: positive("STINT_PG_CONNECT_TIMEOUT_MS"),
    statementTimeoutMillis: positive("STINT_PG_STATEMENT_TIMEOUT_MS")
  }),
  (tuning) => ({
    poolSize: Option.getOrUndefined(tuning.poolSize),
    connectTimeoutMillis: Option.getOrUndefined(tuning.connectTimeoutMillis),
    statementTimeoutMillis: Option.getOrUndefined(tuning.statementTimeoutMillis)
  })
)

/**
 * SQLite tuning from the environment: `STINT_SQLITE_SYNCHRONOUS` (`FULL`, the default: every commit survives a power
 * loss; or `NORMAL`: faster commits, the last ones before a power loss may be lost, the file never corrupt).
 *
 * @since 0.1.0
 */
export const sqliteTuning = Effect.map(
  Config.literal("FULL", "NORMAL")("STINT_SQLITE_SYNCHRONOUS").pipe(Config.option),
  (synchronous) => ({ synchronous: Option.getOrUndefined(synchronous) })
)

/**
 * The `Store` at an address, after applying its pending migrations. The database is closed when the layer's scope
 * closes. On PostgreSQL the layer also provides `PgStore.PoolStats`, which the metrics listener reads when present.
 *
 * @since 0.1.0
 */
export const layer = (
  url: string
): Layer.Layer<Store.Store, Errors.StoreError | DatabaseUrlInvalid | ConfigError.ConfigError> =>
  Layer.unwrapEffect(Effect.map(parse(url), (target) => {
    switch (target._tag) {
      // Each store applies pending migrations when its layer is built.
      case "Sqlite":
        return Layer.unwrapEffect(
          Effect.zipWith(
            Adapters.sqlite,
            sqliteTuning,
            ({ SqliteStore }, tuning) => SqliteStore.layer({ filename: target.filename, ...tuning })
          )
        )
      case "Postgres":
        // `PoolStats` rides along for the metrics listener (a `Layer` may provide more than its type says).
        return Layer.unwrapEffect(
          Effect.zipWith(
            Adapters.postgres,
            pgTuning,
            ({ PgStore }, tuning) => PgStore.layerWithPoolStats({ url: target.url, ...tuning })
          )
        )
    }
  }))

/**
 * The `Store` at the address of `STINT_DATABASE_URL` (default `sqlite:./stint.db`), migrated.
 *
 * @since 0.1.0
 */
export const layerConfig: Layer.Layer<Store.Store, Errors.StoreError | DatabaseUrlInvalid | ConfigError.ConfigError> =
  Layer.unwrapEffect(Effect.map(urlConfig, layer))

/**
 * Applies the pending migrations of the database at `url` and closes it (`stint migrate`): nothing else is set up.
 *
 * @since 0.1.0
 */
export const migrate = (
  url: string
): Effect.Effect<void, Errors.StoreError | DatabaseUrlInvalid | ConfigError.ConfigError> =>
  Effect.flatMap(parse(url), (target) => {
    switch (target._tag) {
      case "Sqlite":
        return Effect.flatMap(Adapters.sqlite, ({ SqliteStore }) => SqliteStore.migrate({ filename: target.filename }))
      case "Postgres":
        return Effect.flatMap(
          Effect.zip(Adapters.postgres, pgTuning),
          ([{ PgStore }, tuning]) => PgStore.migrate({ url: target.url, ...tuning })
        )
    }
  })
