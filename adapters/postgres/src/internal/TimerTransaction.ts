/**
 * `withTimerTransaction` on PostgreSQL: BEGIN, the user's advisory lock and the one read go out together; the body
 * decides; its one write goes out together with COMMIT (ROLLBACK when the body fails). Two round trips for a start or
 * a stop, whatever the outcome. A serialization failure or deadlock reruns the whole transaction, body included.
 */
import type { StoreError } from "@stint/core/Errors"
import type { UserScope } from "@stint/core/Records"
import type { TimerChanges, TimerSnapshot, TimerTransaction } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type pg from "pg"
import { retryTransient } from "./Failure.js"
import * as Rows from "./Rows.js"
import * as TimerStatements from "./TimerStatements.js"
import * as Transaction from "./Transaction.js"

const snapshot = (rows: ReadonlyArray<ReadonlyArray<Rows.Row>>): Effect.Effect<TimerSnapshot, StoreError> =>
  Rows.read("the timer snapshot", () => {
    const row = rows[0]?.[0]
    if (row === undefined) throw new Error("no row")
    const part = <A>(name: string, f: (value: Rows.Row) => A): Option.Option<A> =>
      Option.map(Option.fromNullable(Rows.object(row, name)), f)
    return {
      idempotency: part("idempotency", Rows.idempotency),
      running: part("running", Rows.entry),
      entry: part("entry", Rows.entry),
      project: part("project", Rows.target)
    }
  })

/**
 * Runs `body` in a transaction holding the scope's lock.
 */
export const withTimerTransaction = (pool: pg.Pool) =>
<A, E, R>(
  scope: UserScope,
  body: (tx: TimerTransaction) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R> =>
  retryTransient(Transaction.run(pool, "timer transaction", [TimerStatements.lock(scope)], (send) =>
    Effect.gen(function*() {
      let pending: TimerChanges | undefined
      const tx: TimerTransaction = {
        read: (query) => Effect.flatMap(send([TimerStatements.read(scope, query)]), snapshot),
        write: (changes) =>
          Effect.sync(() => {
            pending = changes
          })
      }
      const result = yield* body(tx)
      const write = pending === undefined ? undefined : TimerStatements.write(scope, pending)
      return { result, commitWith: write === undefined ? [] : [write] }
    })))
