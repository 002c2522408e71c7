/**
 * The rate-limit windows packed in bytes: `rate_limit_windows_packed` keeps, per key, the times of its accepted
 * requests still inside the window as a BLOB, in ascending order, 8 bytes each, an unsigned big-endian integer of epoch
 * milliseconds (the core's `RateLimit.decidePacked`). A request then reads and writes its window without parsing or
 * writing a number per remembered time, as the JSON arrays of `rate_limit_windows` (migration 0003) took. The
 * remembered times move over, so the windows stay exact across the upgrade; anything in a row but an array's
 * non-negative integers (which is all any version of Stint wrote) is left out. The conversion needs SQLite 3.44 or
 * later (`unhex`, `ORDER BY` inside `group_concat`), which better-sqlite3 bundles.
 *
 * `rate_limit_windows` stays as it is: a server of an earlier version still running on the file (every `stint` command
 * applies pending migrations, so one may run on a file a server is serving) goes on counting there until it restarts,
 * rather than failing every request on a column it cannot read. Until then the two versions count in windows of their
 * own, so a key whose requests reach both may be accepted up to the limit in each.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Creates `rate_limit_windows_packed` and fills it from `rate_limit_windows`, converting each row's JSON array in SQL
 * (`printf` writes each time as 16 hex digits, `unhex` turns their concatenation into bytes).
 *
 * @since 0.1.0
 */
const migration: Effect.Effect<void, unknown, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) =>
    Effect.all([
      sql.unsafe(`CREATE TABLE rate_limit_windows_packed (
        key_id TEXT PRIMARY KEY NOT NULL,
        accepted_at BLOB NOT NULL
      ) STRICT`),
      sql.unsafe(`INSERT INTO rate_limit_windows_packed (key_id, accepted_at)
        SELECT w.key_id, unhex(group_concat(printf('%016x', t.value), '' ORDER BY t.value))
        FROM rate_limit_windows w, json_each(CASE WHEN json_valid(w.accepted_at) AND json_type(w.accepted_at) = 'array' THEN w.accepted_at END) t
        WHERE t.type = 'integer' AND t.value >= 0
        GROUP BY w.key_id`)
    ], { discard: true })
)

export default migration
