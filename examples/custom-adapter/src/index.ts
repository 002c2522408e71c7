/**
 * A third-party Stint storage adapter, checked by `@stint/conformance`.
 *
 * @since 0.1.0
 */

/** The core's `Store` port over `Map`s and an append-only JSON Lines journal. @since 0.1.0 */
export * as JsonFileStore from "./JsonFileStore.js"
