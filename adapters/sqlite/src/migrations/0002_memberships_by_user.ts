/**
 * An index of memberships by user: the admin lookup reads every membership of the users a dataset refers to.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Creates `memberships_by_user`.
 *
 * @since 0.1.0
 */
const migration: Effect.Effect<void, unknown, SqlClient.SqlClient> = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql.unsafe("CREATE INDEX memberships_by_user ON memberships (user_id)")
)

export default migration
