/**
 * `@stint/sqlite`: Stint's embedded default storage adapter, the core's `Store` port on a SQLite file.
 *
 * @since 0.1.0
 */

/**
 * The `Store` layer on a SQLite file (`SqliteStore.layer`) and the migration command (`SqliteStore.migrate`).
 *
 * @since 0.1.0
 */
export * as SqliteStore from "./SqliteStore.js"
