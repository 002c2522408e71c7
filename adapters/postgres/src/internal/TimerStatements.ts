/**
 * The statements of a timer transaction: the scope's lock, the one read after it, and the one write before COMMIT.
 */
import type { UserScope } from "@stint/core/Records"
import type { TimerChanges, TimerQuery } from "@stint/core/Store"
import type * as Statement from "@effect/sql/Statement"
import { createHash } from "node:crypto"
import { isId } from "./Ids.js"
import { type Compiled, compile, sql } from "./Sql.js"
import * as Text from "./Text.js"

/** How many expired idempotency records one write deletes at most. */
export const FORGET_BATCH = 100

/**
 * The advisory lock key of a user in a workspace: the first 64 bits of a SHA-256, the same on every instance.
 */
export const lockKey = (scope: UserScope): bigint =>
  createHash("sha256").update(`stint-timer-lock\n${scope.workspaceId}\n${scope.userId}`).digest().readBigInt64BE(0)

/**
 * Waits for, then holds until the transaction ends, the lock of the scope's user: every change of a user's timers,
 * on every instance, takes it first.
 */
export const lock = (scope: UserScope): Compiled => ({ text: LOCK, values: [String(lockKey(scope))] })

const LOCK = "SELECT pg_advisory_xact_lock($1::bigint)"

/** Several scopes' locks, taken in ascending key order so that two such statements never deadlock. */
export const lockAll = (scopes: ReadonlyArray<UserScope>): Compiled => {
  const keys = [...new Set(scopes.map((scope) => lockKey(scope)))].sort((a, b) => a < b ? -1 : a > b ? 1 : 0)
  return compile(sql`SELECT count(pg_advisory_xact_lock(k)) FROM unnest(${keys.map(String)}::bigint[]) AS k`)
}

const entryJson: Statement.Fragment = sql`json_build_object('id', e.id, 'projectId', e.project_id,
  'projectName', p.name, 'clientId', p.client_id, 'clientName', c.name, 'color', p.color, 'status', e.status,
  'billable', e.billable, 'note', e.note, 'startedAt', e.started_at, 'endedAt', e.ended_at,
  'payRateCents', e.pay_rate_cents)`

/**
 * Everything a timer step needs, in one statement (a new statement, so its snapshot includes every commit made before
 * the lock was granted): the idempotency record, the running entry, the entry and the project asked for. Each is a
 * JSON object or null (a part not asked for gets a NULL parameter, which matches no row); `entryColumns` names match
 * `Rows.entry`. One fixed text for every query, prepared once per connection.
 */
export const read = (scope: UserScope, query: TimerQuery): Compiled => ({
  text: READ,
  values: [
    scope.workspaceId,
    scope.userId,
    query.idempotencyKey === undefined ? null : Text.encode(query.idempotencyKey),
    query.entryId === undefined || !isId(query.entryId) ? null : query.entryId,
    query.projectId === undefined || !isId(query.projectId) ? null : query.projectId
  ]
})

// $1 workspace, $2 user, $3 idempotency key (escaped), $4 entry id, $5 project id; the last three may be NULL.
const READ = compile(sql`SELECT (
    SELECT json_build_object('key', r.idempotency_key, 'fingerprint', r.fingerprint, 'createdAt', r.created_at,
      'status', r.response_status, 'body', r.response_body)
    FROM idempotency_records r
    WHERE r.workspace_id = ${""}::uuid AND r.user_id = ${""}::uuid AND r.idempotency_key = ${""}::text) AS idempotency,
  (SELECT ${entryJson}
    FROM time_entries e JOIN projects p ON p.id = e.project_id JOIN clients c ON c.id = p.client_id
    WHERE e.workspace_id = $1::uuid AND e.user_id = $2::uuid AND e.status = 'active') AS running,
  (SELECT ${entryJson}
    FROM time_entries e JOIN projects p ON p.id = e.project_id JOIN clients c ON c.id = p.client_id
    WHERE e.id = ${""}::uuid AND e.workspace_id = $1::uuid AND e.user_id = $2::uuid) AS entry,
  (SELECT json_build_object('id', p.id, 'workspaceId', p.workspace_id, 'clientId', p.client_id, 'name', p.name,
      'color', p.color, 'archived', p.archived, 'clientName', c.name, 'clientArchived', c.archived,
      'assignedRateCents', a.pay_rate_cents)
    FROM projects p JOIN clients c ON c.id = p.client_id
    LEFT JOIN assignments a ON a.project_id = p.id AND a.user_id = $2::uuid
    WHERE p.id = ${""}::uuid AND p.workspace_id = $1::uuid) AS project`).text

/**
 * `lockKey` as SQL, of the `workspace_id` and `user_id` columns of `k`: the first 64 bits of the SHA-256 of
 * `stint-timer-lock\n<workspace>\n<user>` as a signed bigint.
 */
export const LOCK_KEY_OF_K = `('x' || left(encode(sha256(convert_to(
    'stint-timer-lock' || chr(10) || k.workspace_id::text || chr(10) || k.user_id::text, 'UTF8')), 'hex'), 16))::bit(64)::bigint`

/**
 * `read` for the scope of the key with this digest (no row when there is none), sent after
 * `Queries.authenticateAndLock` (which took the scope's lock) in the same round trip.
 */
export const readByDigest = (digest: string, query: TimerQuery): Compiled => ({
  text: READ_BY_DIGEST,
  values: [digest, ...read({ workspaceId: "", userId: "" }, query).values.slice(2)]
})

// READ with the scope taken from the key's row: $1 digest, then READ's $3, $4 and $5 as $2, $3 and $4.
const READ_BY_DIGEST = `${
  READ.replace(/\$([1-5])(::\w+)?/g, (_, n: string, cast: string | undefined) =>
    n === "1" ? "ks.workspace_id" : n === "2" ? "ks.user_id" : `$${Number(n) - 1}${cast ?? ""}`)
}
  FROM (SELECT workspace_id, user_id FROM api_keys WHERE digest = $1::text) AS ks`

/**
 * One part of the write: a data-modifying CTE, present or not in a given write. Its text numbers its parameters from
 * `first` (`$first`, `$first+1`, …) in the order `values` lists them.
 */
interface Part {
  readonly values: (scope: UserScope, changes: TimerChanges) => ReadonlyArray<unknown> | undefined
  readonly text: (first: number, changes: TimerChanges) => string
}

const finished: Part = {
  values: ({ userId, workspaceId }, { finish }) =>
    finish !== undefined && isId(finish.id) ? [finish.status, finish.endedAt, finish.id, workspaceId, userId] : undefined,
  text: (n) => `finished AS (
      UPDATE time_entries SET status = $${n}::text, ended_at = $${n + 1}::bigint
      WHERE id = $${n + 2}::uuid AND workspace_id = $${n + 3}::uuid AND user_id = $${n + 4}::uuid
      RETURNING 1
    )`
}

const inserted: Part = {
  values: (_, { insert }) =>
    insert === undefined ? undefined : [
      insert.id,
      insert.workspaceId,
      insert.userId,
      insert.projectId,
      insert.status,
      insert.billable,
      Text.encodeNullable(insert.note),
      insert.startedAt,
      insert.endedAt,
      insert.payRateCents
    ],
  // A partial unique index is checked row by row: with a running entry to finish, the insert waits for it.
  text: (n, { finish }) => `inserted AS (
      INSERT INTO time_entries
        (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents)
      SELECT $${n}::uuid, $${n + 1}::uuid, $${n + 2}::uuid, $${n + 3}::uuid, $${n + 4}::text, $${n + 5}::boolean,
        $${n + 6}::text, $${n + 7}::bigint, $${n + 8}::bigint, $${n + 9}::integer
      ${finish !== undefined && isId(finish.id) ? "WHERE (SELECT count(*) FROM finished) >= 0" : ""}
      RETURNING 1
    )`
}

const moved: Part = {
  values: ({ userId, workspaceId }, { moveStart }) =>
    moveStart !== undefined && isId(moveStart.id) ? [moveStart.startedAt, moveStart.id, workspaceId, userId] : undefined,
  text: (n) => `moved AS (
      UPDATE time_entries SET started_at = $${n}::bigint
      WHERE id = $${n + 1}::uuid AND workspace_id = $${n + 2}::uuid AND user_id = $${n + 3}::uuid
      RETURNING 1
    )`
}

const remembered: Part = {
  values: ({ userId, workspaceId }, { idempotency: record }) =>
    record === undefined ? undefined : [
      workspaceId,
      userId,
      Text.encode(record.key),
      record.fingerprint,
      record.createdAt,
      record.response?.status ?? null,
      record.response === null ? null : Text.encode(record.response.body)
    ],
  text: (n) => `remembered AS (
    INSERT INTO idempotency_records
      (workspace_id, user_id, idempotency_key, fingerprint, created_at, response_status, response_body)
    VALUES ($${n}::uuid, $${n + 1}::uuid, $${n + 2}::text, $${n + 3}::text, $${n + 4}::bigint, $${n + 5}::integer,
      $${n + 6}::text)
    ON CONFLICT (workspace_id, user_id, idempotency_key) DO UPDATE SET
      fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at,
      response_status = EXCLUDED.response_status, response_body = EXCLUDED.response_body
    RETURNING 1
  )`
}

/**
 * Deletes a bounded batch of expired idempotency records of any scope, skipping rows another transaction holds (so
 * concurrent writers never wait on each other here) and the record this write stores.
 */
const forgotten: Part = {
  values: ({ userId, workspaceId }, { forgetIdempotencyBefore: before, idempotency: keep }) =>
    before === undefined
      ? undefined
      : keep === undefined
      ? [before]
      : [before, workspaceId, userId, Text.encode(keep.key)],
  text: (n, { idempotency: keep }) => `forgotten AS (
    DELETE FROM idempotency_records
    WHERE (workspace_id, user_id, idempotency_key) IN (
      SELECT workspace_id, user_id, idempotency_key FROM idempotency_records
      WHERE created_at < $${n}::bigint
        ${
    keep === undefined
      ? ""
      : `AND NOT (workspace_id = $${n + 1}::uuid AND user_id = $${n + 2}::uuid AND idempotency_key = $${n + 3}::text)`
  }
      ORDER BY created_at
      LIMIT ${FORGET_BATCH}
      FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )`
}

/** The parts in the order they appear in the statement. */
const PARTS: ReadonlyArray<Part> = [finished, inserted, moved, remembered, forgotten]

/** The text of each shape of write, by the parts present and the length of each part's values. */
const texts = new Map<string, string>()

/**
 * All the changes of one step in one statement, or `undefined` when there are none. The text depends only on which
 * parts are present (a few shapes, each built once); the values are collected for each write.
 *
 * A partial unique index is checked row by row, so the running entry must be finished before the new one is
 * inserted. Data-modifying CTEs run in no guaranteed order, except that a CTE reading another's output must wait for
 * it: the insert's `WHERE` reads the count of `finished`, which can only be known once the UPDATE has run to
 * completion.
 */
export const write = (scope: UserScope, changes: TimerChanges): Compiled | undefined => {
  const values: Array<unknown> = []
  let shape = ""
  for (const part of PARTS) {
    const own = part.values(scope, changes)
    shape += own === undefined ? "-" : `${own.length},`
    if (own !== undefined) for (const value of own) values.push(value)
  }
  if (values.length === 0) return undefined
  let text = texts.get(shape)
  if (text === undefined) {
    const parts: Array<string> = []
    let first = 1
    for (const part of PARTS) {
      const count = part.values(scope, changes)?.length
      if (count === undefined) continue
      parts.push(part.text(first, changes))
      first += count
    }
    text = `WITH ${parts.join(", ")} SELECT 1`
    texts.set(shape, text)
  }
  return { text, values }
}
