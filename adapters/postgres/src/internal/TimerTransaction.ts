/**
 * `withTimerTransaction` on PostgreSQL: BEGIN, the user's advisory lock and the one read go out together; the body
 * decides; its one write goes out together with COMMIT (ROLLBACK when the body fails). Two round trips for a start or
 * a stop, whatever the outcome. A serialization failure or deadlock reruns the whole transaction, body included.
 * Written as `flatMap` chains rather than `Effect.gen`, like the core's timer operations (see `Operations`): they run on
 * every start and stop.
 */
import { StoreError } from "@stint/core/Errors"
import type { UserScope } from "@stint/core/Records"
import type {
  Authenticated,
  TimerAuthentication,
  TimerChanges,
  TimerQuery,
  TimerSnapshot,
  TimerTransaction
} from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type pg from "pg"
import { retryTransient } from "./Failure.js"
import * as Queries from "./Queries.js"
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
  retryTransient(Transaction.run(pool, "timer transaction", [TimerStatements.lock(scope)], (send) => {
    const held = holdingWrite((query) => Effect.flatMap(send([TimerStatements.read(scope, query)]), snapshot))
    return Effect.map(body(held.tx), (result) => held.outcome(result, scope))
  }))

/**
 * A transaction handle whose reads go through `read` and whose one write is held until COMMIT: `outcome` pairs the
 * body's result with the write's statement for the scope whose lock is held (none without a scope or a write).
 */
const holdingWrite = (read: TimerTransaction["read"]) => {
  let pending: TimerChanges | undefined
  const tx: TimerTransaction = {
    read,
    write: (changes) =>
      Effect.sync(() => {
        pending = changes
      })
  }
  const outcome = <A>(result: A, scope: UserScope | undefined): Transaction.Outcome<A> => {
    const write = scope === undefined || pending === undefined ? undefined : TimerStatements.write(scope, pending)
    return { result, commitWith: write === undefined ? [] : [write] }
  }
  return { tx, outcome }
}

const sameQuery = (a: TimerQuery, b: TimerQuery): boolean =>
  a.idempotencyKey === b.idempotencyKey && a.entryId === b.entryId && a.projectId === b.projectId

/** A row of `Queries.authenticate` (without a read along). */
export const authenticated = (row: Rows.Row): Authenticated => ({ key: Rows.key(row), accepted: row["accepted"] === true })

/**
 * `Store.authenticateInTimerTransaction`: BEGIN, the authentication statement (which also takes the lock of the found
 * key's scope) and the read of `expected` for that scope go out together, so a start or a stop costs two round trips
 * (the write goes with COMMIT) and one commit. When `body` fails, the transaction commits anyway: nothing of `body`
 * was written (its write waits for COMMIT), and the authentication's rate-limit count must stay.
 */
export const withAuthenticatedTimerTransaction = (pool: pg.Pool) =>
<A, E, R>(
  authentication: TimerAuthentication,
  expected: TimerQuery,
  body: (found: Option.Option<Authenticated>, tx: TimerTransaction) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R> =>
  retryTransient(Transaction.run(pool, "timer transaction", [], (send) => {
    const { digest, now, policy } = authentication
    return Effect.flatMap(
      send([Queries.authenticateAndLock(digest, now, policy), TimerStatements.readByDigest(digest, expected)]),
      ([keyRows = [], readRows = []]) =>
        Effect.flatMap(Rows.each("authenticating a key", keyRows, authenticated), ([first]) => {
          const found = Option.fromNullable(first)
          // The scope whose lock the transaction holds: the found key's.
          const scope = Option.map(found, ({ key }): UserScope => ({ workspaceId: key.workspaceId, userId: key.userId }))
          const held = holdingWrite((query) =>
            sameQuery(query, expected)
              ? snapshot([readRows])
              : Option.match(scope, {
                onNone: () => Effect.fail(new StoreError({ message: "a timer read without an authenticated key" })),
                onSome: (scope) => Effect.flatMap(send([TimerStatements.read(scope, query)]), snapshot)
              })
          )
          return Effect.map(body(found, held.tx), (result) => held.outcome(result, Option.getOrUndefined(scope)))
        })
    )
  }, "commit"))
