/**
 * Building statements: `@effect/sql`'s tagged template with the PostgreSQL compiler of `@effect/sql-pg`, used only to
 * compile text and parameters (`$1`, `$2`, …) that the adapter's own runner sends (`Database.ts`). The statements
 * are never run through `@effect/sql`'s connection.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"

/** A statement ready to send. */
export interface Compiled {
  readonly text: string
  readonly values: ReadonlyArray<unknown>
}

/** The template tag. Its statements are only ever compiled (running one directly is a defect). */
export const sql: Statement.Constructor = Statement.make(
  Effect.dieMessage("@stint/postgres: statements are compiled, never run by @effect/sql"),
  PgClient.makeCompiler(),
  [],
  undefined
)

/** Text and parameters of a statement. */
export const compile = (statement: Statement.Statement<unknown>): Compiled => {
  const [text, values] = statement.compile()
  return { text, values }
}

/** A plain statement without parameters. */
export const raw = (text: string): Compiled => ({ text, values: [] })
