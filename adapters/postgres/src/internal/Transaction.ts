/**
 * Transactions with the fewest round trips: BEGIN and the statements that open the transaction (a lock) travel with
 * its first read, and the writes travel with COMMIT. A transaction that reads once and writes once therefore costs two
 * round trips; one that only writes costs one. Any other outcome (the body failed or was interrupted, a statement
 * failed) ends in ROLLBACK, or in COMMIT when asked, before the connection goes back to the pool; if even that fails,
 * the connection is destroyed. Each round trip ends with a Sync, so the server sees a session waiting inside a
 * transaction, and ends it if it waits too long.
 */
import type { StoreError } from "@stint/core/Errors"
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type pg from "pg"
import { type Connection, type Row, withConnection } from "./Database.js"
import { type Compiled, raw } from "./Sql.js"

const BEGIN = raw("BEGIN")
const COMMIT = raw("COMMIT")
const ROLLBACK = raw("ROLLBACK")

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
    Effect.uninterruptibleMask((restore) => {
      let begun = false
      const head = (): ReadonlyArray<Compiled> => {
        if (begun) return []
        begun = true
        return [BEGIN, ...opening]
      }
      const send: Send = (statements) =>
        Effect.suspend(() => {
          const first = head()
          return Effect.map(connection.send(what, [...first, ...statements]), (rows) => rows.slice(first.length))
        })
      /** Ends a transaction that failed, then fails with `cause`; if even that fails, the connection is destroyed. */
      const abandon = (end: Compiled, cause: Cause.Cause<E | StoreError>) =>
        Effect.flatMap(Effect.exit(connection.send(what, [end])), (ended) => {
          if (Exit.isFailure(ended)) markBroken()
          return Effect.failCause(cause)
        })
      return Effect.flatMap(Effect.exit(restore(body(send))), (exit): Effect.Effect<A, E | StoreError> => {
        if (Exit.isSuccess(exit)) {
          const { commitWith, result } = exit.value
          if (!begun && commitWith.length === 0) return Effect.succeed(result)
          // A statement that fails makes the server skip the rest, COMMIT included: the transaction must then be
          // rolled back before the connection is used again.
          return Effect.matchCauseEffect(connection.send(what, [...head(), ...commitWith, COMMIT]), {
            onSuccess: () => Effect.succeed(result),
            onFailure: (cause) => abandon(ROLLBACK, cause)
          })
        }
        if (!begun) return Effect.failCause(exit.cause)
        // `commit`: what the statements sent so far did is kept (a failed transaction's COMMIT still rolls back).
        return abandon(onFailure === "commit" ? COMMIT : ROLLBACK, exit.cause)
      })
    }))
