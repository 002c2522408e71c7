/**
 * `@stint/postgres`: Stint's storage on PostgreSQL, shared by any number of instances.
 *
 * @since 0.1.0
 */

/**
 * The core's `Store` on PostgreSQL: `layer(options)` connects, migrates and provides it; `migrate(options)` only
 * applies migrations (`stint migrate`).
 *
 * @since 0.1.0
 */
export * as PgStore from "./PgStore.js"
