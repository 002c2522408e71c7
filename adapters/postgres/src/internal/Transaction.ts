/**
 * Transactions with the fewest round trips: BEGIN and the statements that open the transaction (a lock) travel with
 * its first read, and the writes travel with COMMIT. A transaction that reads once and writes once therefore costs two
 * round trips; one that only writes costs one. Any other outcome (the body failed or was interrupted, a statement
 * failed) ends in ROLLBACK before the connection goes back to the pool; if even that fails, the connection is
 * destroyed.
 */
import type { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type pg from "pg"
import { type Connection, type Row, withConnection } from "./Database.js"
import { type Compiled, raw } from "./Sql.js"

const BEGIN = raw("BEGIN")
const COMMIT = raw("COMMIT")
const ROLLBACK = raw("ROLLBACK")

/**
 * BEGIN and the opening statements. Those without parameters travel in BEGIN's own message (the simple protocol
 * takes several statements in one text): one statement fewer for the driver and the server to handle.
 */
const beginWith = (opening: ReadonlyArray<Compiled>): ReadonlyArray<Compiled> =>
  opening.length > 0 && opening.every((statement) => statement.values.length === 0)
    ? [raw(["BEGIN", ...opening.map((statement) => statement.text)].join("; "))]
    : [BEGIN, ...opening]

/** Sends statements inside the transaction and returns their rows (the first call also begins it). */
export type Send = (statements: ReadonlyArray<Compiled>) => Effect.Effect<ReadonlyArray<ReadonlyArray<Row>>, StoreError>

/** What a transaction's body ends with: its result, and the statements to send together with COMMIT. */
export interface Outcome<A> {
  readonly result: A
  readonly commitWith: ReadonlyArray<Compiled>
}

/**
 * Runs `body` in one transaction on one connection. `opening` is sent right after BEGIN, before anything else. When
 * `body` fails, the transaction is rolled back, or with `onFailure: "commit"` committed (the statements `body` sent
 * are kept, those it left for `commitWith` are not sent).
 */
export const run = <A, E, R>(
  pool: pg.Pool,
  what: string,
  opening: ReadonlyArray<Compiled>,
  body: (send: Send) => Effect.Effect<Outcome<A>, E, R>,
  onFailure: "rollback" | "commit" = "rollback"
): Effect.Effect<A, E | StoreError, R> =>
  withConnection(pool, (connection: Connection, markBroken) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        let begun = false
        const head = (): ReadonlyArray<Compiled> => {
          if (begun) return []
          begun = true
          return beginWith(opening)
        }
        const send: Send = (statements) =>
          Effect.suspend(() => {
            const first = head()
            return Effect.map(connection.send(what, [...first, ...statements]), (rows) => rows.slice(first.length))
          })
        const exit = yield* Effect.exit(restore(body(send)))
        if (Exit.isSuccess(exit)) {
          const { commitWith, result } = exit.value
          if (!begun && commitWith.length === 0) return result
          // If a statement of `commitWith` fails, the server turns the COMMIT behind it into a rollback.
          yield* connection.send(what, [...head(), ...commitWith, COMMIT])
          return result
        }
        if (begun) {
          // `commit`: what the statements sent so far did is kept (a failed transaction's COMMIT still rolls back).
          const rolledBack = yield* Effect.exit(connection.send(what, [onFailure === "commit" ? COMMIT : ROLLBACK]))
          if (Exit.isFailure(rolledBack)) markBroken(rolledBack.cause)
        }
        return yield* Effect.failCause(exit.cause)
      })
    ))
