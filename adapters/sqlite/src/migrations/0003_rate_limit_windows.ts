/**
 * The rate limit as one row per API key instead of one row per accepted request: `rate_limit_windows` keeps, per key,
 * the times of its accepted requests still inside the window (a JSON array, at most the policy's limit). A request
 * then reads and writes one row. The remembered times move over, so the windows stay exact across the upgrade.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Creates `rate_limit_windows`, fills it from `rate_limit_hits`, and drops `rate_limit_hits`.
 *
 * @since 0.1.0
 */
const migration: Effect.Effect<void, unknown, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.all([
      sql.unsafe(`CREATE TABLE rate_limit_windows (
        key_id TEXT PRIMARY KEY NOT NULL,
        accepted_at TEXT NOT NULL
      ) STRICT`),
      sql.unsafe(`INSERT INTO rate_limit_windows (key_id, accepted_at)
        SELECT key_id, json_group_array(at) FROM (SELECT key_id, at FROM rate_limit_hits ORDER BY key_id, at)
        GROUP BY key_id`),
      sql.unsafe(`DROP TABLE rate_limit_hits`)
    ], { discard: true })
)

export default migration
