/**
 * The timer transaction: `body` runs inside one `BEGIN IMMEDIATE` transaction, so every mutation of timers in the
 * file (from any process) is serialised on SQLite's write lock. `read` takes one snapshot; `write` records the
 * changes, which are applied when `body` succeeds (the last `write` wins, as in the memory store), in the order finish,
 * insert, move, idempotency record, pruning; any failure rolls everything back.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { StoreError } from "@stint/core/Errors"
import type { IdempotencyRecord } from "@stint/core/Idempotency"
import type { UserScope } from "@stint/core/Records"
import type { TimerChanges, TimerQuery, TimerSnapshot, TimerTransaction } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { immediate, orStoreError } from "./database.js"
import { findActive, findInScope } from "./entries.js"
import { decodeRows, flag, IdempotencyRow, TrackingTargetRow } from "./rows.js"

const decodeIdempotency = decodeRows(IdempotencyRow, "idempotency records")
const decodeTarget = decodeRows(TrackingTargetRow, "projects")

const first = <A>(rows: ReadonlyArray<A>): Option.Option<A> => Option.fromNullable(rows[0])

const readIdempotency = (sql: SqlClient.SqlClient, scope: UserScope, key: string) =>
  sql.unsafe(
    `SELECT key, fingerprint, created_at, response_status, response_body FROM idempotency_records
      WHERE workspace_id = ? AND user_id = ? AND key = ?`,
    [scope.workspaceId, scope.userId, key]
  ).pipe(
    orStoreError("reading an idempotency record"),
    Effect.flatMap(decodeIdempotency),
    Effect.map((rows) =>
      Option.map(first(rows), (row): IdempotencyRecord => ({
        key: row.key,
        fingerprint: row.fingerprint,
        createdAt: row.createdAt,
        response: row.responseStatus === null || row.responseBody === null
          ? null
          : { status: row.responseStatus, body: row.responseBody }
      }))
    )
  )

const readTarget = (sql: SqlClient.SqlClient, scope: UserScope, projectId: string) =>
  sql.unsafe(
    `SELECT p.id, p.workspace_id, p.client_id, p.name, p.color, p.archived, c.name AS client_name,
        c.archived AS client_archived, a.pay_rate_cents AS assigned_rate_cents
      FROM projects p
      JOIN clients c ON c.id = p.client_id
      LEFT JOIN assignments a ON a.project_id = p.id AND a.user_id = ?
      WHERE p.id = ? AND p.workspace_id = ?`,
    [scope.userId, projectId, scope.workspaceId]
  ).pipe(orStoreError("reading a project"), Effect.flatMap(decodeTarget), Effect.map(first))

/** The snapshot a timer transaction reads, under the write lock. */
const read = (
  sql: SqlClient.SqlClient,
  scope: UserScope,
  query: TimerQuery
): Effect.Effect<TimerSnapshot, StoreError> =>
  Effect.all({
    idempotency: query.idempotencyKey === undefined
      ? Effect.succeedNone
      : readIdempotency(sql, scope, query.idempotencyKey),
    running: findActive(sql)(scope),
    entry: query.entryId === undefined ? Effect.succeedNone : findInScope(sql)(scope, query.entryId),
    project: query.projectId === undefined ? Effect.succeedNone : readTarget(sql, scope, query.projectId)
  })

/** Applies one set of changes inside the transaction; a violated constraint fails the whole transaction. */
const apply = (sql: SqlClient.SqlClient, scope: UserScope, changes: TimerChanges): Effect.Effect<void, StoreError> =>
  Effect.gen(function*() {
    const { finish, idempotency, insert, moveStart } = changes
    if (finish !== undefined) {
      yield* sql.unsafe(`UPDATE time_entries SET status = ?, ended_at = ? WHERE id = ?`, [
        finish.status,
        finish.endedAt,
        finish.id
      ]).pipe(orStoreError("finishing a time entry"))
    }
    if (insert !== undefined) {
      yield* sql.unsafe(
        `INSERT INTO time_entries
          (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          insert.id,
          insert.workspaceId,
          insert.userId,
          insert.projectId,
          insert.status,
          flag(insert.billable),
          insert.note,
          insert.startedAt,
          insert.endedAt,
          insert.payRateCents
        ]
      ).pipe(orStoreError("inserting a time entry"))
    }
    if (moveStart !== undefined) {
      yield* sql.unsafe(`UPDATE time_entries SET started_at = ? WHERE id = ?`, [moveStart.startedAt, moveStart.id])
        .pipe(orStoreError("moving a time entry's start"))
    }
    if (idempotency !== undefined) {
      yield* sql.unsafe(
        `INSERT INTO idempotency_records
          (workspace_id, user_id, key, fingerprint, created_at, response_status, response_body)
          VALUES (?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT (workspace_id, user_id, key) DO UPDATE SET
            fingerprint = excluded.fingerprint,
            created_at = excluded.created_at,
            response_status = excluded.response_status,
            response_body = excluded.response_body`,
        [
          scope.workspaceId,
          scope.userId,
          idempotency.key,
          idempotency.fingerprint,
          idempotency.createdAt,
          idempotency.response?.status ?? null,
          idempotency.response?.body ?? null
        ]
      ).pipe(orStoreError("storing an idempotency record"))
    }
    if (changes.forgetIdempotencyBefore !== undefined) {
      yield* sql.unsafe(`DELETE FROM idempotency_records WHERE created_at < ?`, [changes.forgetIdempotencyBefore])
        .pipe(orStoreError("forgetting old idempotency records"))
    }
  })

/** `Store.withTimerTransaction` on SQLite. */
export const withTimerTransaction = (sql: SqlClient.SqlClient) =>
<A, E, R>(
  scope: UserScope,
  body: (tx: TimerTransaction) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | StoreError, R> =>
  immediate(sql)(Effect.gen(function*() {
    let pending: TimerChanges | undefined
    const tx: TimerTransaction = {
      read: (query) => read(sql, scope, query),
      write: (changes) =>
        Effect.sync(() => {
          pending = changes
        })
    }
    const result = yield* body(tx)
    if (pending !== undefined) yield* apply(sql, scope, pending)
    return result
  }))
