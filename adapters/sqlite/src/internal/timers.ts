/**
 * The timer transaction: `body` runs inside one `BEGIN IMMEDIATE` transaction holding the connection, so every
 * mutation of timers in the file (from any process) is serialised on SQLite's write lock. `read` takes one snapshot;
 * `write` records the changes, which are applied when `body` succeeds (the last `write` wins, as in the memory store),
 * in the order finish, insert, move, idempotency record, pruning; any failure rolls everything back. Every statement
 * is prepared once on the connection.
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
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { authenticator } from "./access.js"
import type { Connection } from "./connection.js"
import { storeError } from "./database.js"
import { activeOf, inScope } from "./entries.js"
import * as Records from "./records.js"
import { flag } from "./rows.js"

const IDEMPOTENCY = `SELECT key, fingerprint, created_at AS createdAt, response_status AS responseStatus,
    response_body AS responseBody
  FROM idempotency_records WHERE workspace_id = ? AND user_id = ? AND key = ?`

const TARGET = `SELECT p.id, p.workspace_id AS workspaceId, p.client_id AS clientId, p.name, p.color, p.archived,
    c.name AS clientName, c.archived AS clientArchived, a.pay_rate_cents AS assignedRateCents
  FROM projects p
  JOIN clients c ON c.id = p.client_id
  LEFT JOIN assignments a ON a.project_id = p.id AND a.user_id = ?
  WHERE p.id = ? AND p.workspace_id = ?`

const FINISH = `UPDATE time_entries SET status = ?, ended_at = ? WHERE id = ?`

const INSERT = `INSERT INTO time_entries
  (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

const MOVE = `UPDATE time_entries SET started_at = ? WHERE id = ?`

const REMEMBER = `INSERT INTO idempotency_records
  (workspace_id, user_id, key, fingerprint, created_at, response_status, response_body)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (workspace_id, user_id, key) DO UPDATE SET
    fingerprint = excluded.fingerprint,
    created_at = excluded.created_at,
    response_status = excluded.response_status,
    response_body = excluded.response_body`

const FORGET = `DELETE FROM idempotency_records WHERE created_at < ?`

type Row = Record<string, unknown>

/** `Store.withTimerTransaction` and `Store.authenticateInTimerTransaction` on SQLite. */
export const timerTransactions = (connection: Connection) => {
  const authenticateNow = authenticator(connection)
  const idempotency = connection.prepare(IDEMPOTENCY)
  const target = connection.prepare(TARGET)
  const active = activeOf(connection)
  const entry = inScope(connection)
  const finish = connection.prepare(FINISH)
  const insert = connection.prepare(INSERT)
  const move = connection.prepare(MOVE)
  const remember = connection.prepare(REMEMBER)
  const forget = connection.prepare(FORGET)

  /** The snapshot, under the write lock. */
  const read = (scope: UserScope, query: TimerQuery): TimerSnapshot => {
    const record = query.idempotencyKey === undefined
      ? undefined
      : idempotency.get(scope.workspaceId, scope.userId, query.idempotencyKey) as Row | undefined
    const project = query.projectId === undefined
      ? undefined
      : target.get(scope.userId, query.projectId, scope.workspaceId) as Row | undefined
    return {
      idempotency: record === undefined ? Option.none() : Option.some(Records.idempotency(record)),
      running: active(scope),
      entry: query.entryId === undefined ? Option.none() : entry(scope, query.entryId),
      project: project === undefined ? Option.none() : Option.some(Records.target(project))
    }
  }

  /** Applies one set of changes inside the transaction; a violated constraint fails the whole transaction. */
  const apply = (scope: UserScope, changes: TimerChanges): void => {
    if (changes.finish !== undefined) finish.run(changes.finish.status, changes.finish.endedAt, changes.finish.id)
    const row = changes.insert
    if (row !== undefined) {
      insert.run(
        row.id,
        row.workspaceId,
        row.userId,
        row.projectId,
        row.status,
        flag(row.billable),
        row.note,
        row.startedAt,
        row.endedAt,
        row.payRateCents
      )
    }
    if (changes.moveStart !== undefined) move.run(changes.moveStart.startedAt, changes.moveStart.id)
    const record = changes.idempotency
    if (record !== undefined) {
      remember.run(
        scope.workspaceId,
        scope.userId,
        record.key,
        record.fingerprint,
        record.createdAt,
        record.response?.status ?? null,
        record.response?.body ?? null
      )
    }
    if (changes.forgetIdempotencyBefore !== undefined) forget.run(changes.forgetIdempotencyBefore)
  }

  /** A transaction's `read` and `write` for `scope`; `write` keeps the changes for the commit. */
  const transactionOf = (scope: UserScope) => {
    const state: { pending: TimerChanges | undefined } = { pending: undefined }
    const tx: TimerTransaction = {
      read: (query) => Effect.try({ try: () => read(scope, query), catch: storeError("reading the timer snapshot") }),
      write: (changes) =>
        Effect.sync(() => {
          state.pending = changes
        })
    }
    return { scope, tx, state }
  }

  const withTimerTransaction = <A, E, R>(
    scope: UserScope,
    body: (tx: TimerTransaction) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | StoreError, R> =>
    Effect.suspend(() => {
      const { state, tx } = transactionOf(scope)
      return connection.transaction("a timer transaction", body(tx), () => {
        if (state.pending !== undefined) apply(scope, state.pending)
      })
    })

  /**
   * `Store.authenticateInTimerTransaction`: the authentication and the timer step in one `BEGIN IMMEDIATE`
   * transaction, which holds the write lock and so every scope's lock. When `body` fails, the transaction still
   * commits, with the authentication's rate-limit count and nothing of `body` (its write waits for success).
   */
  const authenticateInTimerTransaction = <A, E, R>(
    authentication: TimerAuthentication,
    _expected: TimerQuery,
    body: (found: Option.Option<Authenticated>, tx: TimerTransaction) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | StoreError, R> =>
    Effect.suspend(() => {
      // The found key's transaction; its write is applied only when `body` succeeds.
      let open: ReturnType<typeof transactionOf> | undefined
      const step = Effect.flatMap(
        Effect.try({
          try: () => authenticateNow(authentication.digest, authentication.now, authentication.policy),
          catch: storeError("authenticating a key")
        }),
        (found) => {
          if (Option.isSome(found)) {
            open = transactionOf({ workspaceId: found.value.key.workspaceId, userId: found.value.key.userId })
          }
          return Effect.either(body(found, open?.tx ?? unusable))
        }
      )
      return Effect.flatMap(
        connection.transaction("a timer transaction", step, (outcome) => {
          if (Either.isRight(outcome) && open?.state.pending !== undefined) apply(open.scope, open.state.pending)
        }),
        Either.match({ onLeft: Effect.fail, onRight: Effect.succeed })
      )
    })

  return { withTimerTransaction, authenticateInTimerTransaction }
}

/** The transaction handed over when no key was found: the core never reads or writes with it. */
const unusable: TimerTransaction = {
  read: () => Effect.fail(new StoreError({ message: "SQLite: a timer read without an authenticated key" })),
  write: () => Effect.fail(new StoreError({ message: "SQLite: a timer write without an authenticated key" }))
}
