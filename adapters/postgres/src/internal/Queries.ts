/**
 * The single statements of the public side: each is one round trip. Reads take no lock; `createProject` and
 * `authenticate` are atomic on their own.
 */
import { LIFETIME_MILLIS } from "@stint/core/ApiKey"
import type { Policy } from "@stint/core/RateLimit"
import type { UserScope } from "@stint/core/Records"
import type { EntriesQuery, NewProject, ReadAlong } from "@stint/core/Store"
import type * as Statement from "@effect/sql/Statement"
import { type Compiled, compile, raw, sql } from "./Sql.js"
import * as Text from "./Text.js"
import { LATEST, TABLE } from "./Migrations.js"
import { LOCK_KEY_OF_K } from "./TimerStatements.js"

/** The columns of an entry joined with `p` (its project) and `c` (its client), named like `EntryRecord`'s fields. */
export const entryColumns: Statement.Fragment = sql`e.id, e.project_id AS "projectId", p.name AS "projectName",
  p.client_id AS "clientId", c.name AS "clientName", p.color, e.status, e.billable, e.note,
  e.started_at AS "startedAt", e.ended_at AS "endedAt", e.pay_rate_cents AS "payRateCents"`

/**
 * Authentication and the sliding window in one statement. `k` is the key with this digest and its user's membership
 * in the key's workspace (if any). Only when that key authenticates at `now` (not revoked, not expired, a member:
 * `ApiKey.refusal`) does `counted` touch the key's window: the row keeps the times of the key's accepted requests
 * inside the window; the request is accepted (its time appended, older times dropped) only while fewer than `limit`
 * remain. The row lock of `ON CONFLICT DO UPDATE` makes concurrent requests of one key, on any instance, take turns,
 * each re-evaluating the condition on the latest row. One row when the key exists (`accepted` says whether the
 * request was counted), none otherwise. The scopes come as one space-separated string (scopes are single words):
 * reading a `text[]` costs the driver far more, on every request. With `along`, the key's active entry comes as one
 * more column of the same statement (`activeEntry`, JSON): `GET /timer` is one statement.
 */
export const authenticate = (digest: string, now: number, policy: Policy, along?: ReadAlong.ActiveEntry | undefined): Compiled => ({
  text: along === undefined ? AUTHENTICATE : AUTHENTICATE_WITH_ACTIVE_ENTRY,
  values: [digest, now, policy.limit, LIFETIME_MILLIS, now - policy.windowMillis]
})

// Fixed texts (compiled once; the connection prepares each once): $1 digest, $2 now, $3 limit, $4 key lifetime,
// $5 the window's start (exclusive). The key and its count, as CTEs; then the columns of the answer.
const KEY_AND_COUNT = `WITH k AS (
    SELECT k.id, k.user_id, k.workspace_id, k.scopes, k.created_at, k.revoked_at, m.role, m.pay_rate_cents
    FROM api_keys k
    LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
    WHERE k.digest = $1::text
  ), counted AS (
    INSERT INTO rate_limit_windows AS w (key_id, accepted_at)
    SELECT k.id::text, ARRAY[$2::bigint] FROM k
    WHERE $3::bigint > 0 AND k.revoked_at IS NULL AND k.role IS NOT NULL AND $2::bigint < k.created_at + $4::bigint
    ON CONFLICT (key_id) DO UPDATE
      SET accepted_at = array_append(ARRAY(SELECT t FROM unnest(w.accepted_at) AS t WHERE t > $5::bigint), $2::bigint)
      WHERE (SELECT count(*) FROM unnest(w.accepted_at) AS t WHERE t > $5::bigint) < $3::bigint
    RETURNING true AS accepted
  )`

const KEY_COLUMNS = `SELECT k.id, k.user_id AS "userId", k.workspace_id AS "workspaceId",
    array_to_string(k.scopes, ' ') AS scopes, k.created_at AS "createdAt", k.revoked_at AS "revokedAt", k.role,
    k.pay_rate_cents AS "payRateCents", EXISTS (SELECT 1 FROM counted) AS accepted`

const AUTHENTICATE = `${KEY_AND_COUNT}
  ${KEY_COLUMNS}
  FROM k`

/**
 * `authenticate`, also taking the advisory lock of the found key's scope (`TimerStatements.lockKey`, computed by the
 * server from the key's row), for a timer transaction that authenticates in its first statement: the lock is held
 * until the transaction ends, and the transaction's read, the next statement, sees every commit made before it was
 * granted. No lock when no key has the digest. The window's row is locked first (the `accepted` column), then the
 * user's lock (the `locked` column after it), in the order of the two statements this one replaces.
 */
export const authenticateAndLock = (digest: string, now: number, policy: Policy): Compiled => ({
  text: AUTHENTICATE_AND_LOCK,
  values: [digest, now, policy.limit, LIFETIME_MILLIS, now - policy.windowMillis]
})

const AUTHENTICATE_AND_LOCK = `${KEY_AND_COUNT}, locked AS (
    SELECT pg_advisory_xact_lock(${LOCK_KEY_OF_K}) FROM k
  )
  ${KEY_COLUMNS},
    (SELECT count(*) FROM locked) AS locked
  FROM k`

/**
 * An entry joined with `p` and `c` as one JSON object, named like `EntryRecord`'s fields (what `entryColumns` gives
 * as columns), for reads done along with authentication.
 */
const ENTRY_JSON = `json_build_object('id', e.id, 'projectId', e.project_id, 'projectName', p.name,
    'clientId', p.client_id, 'clientName', c.name, 'color', p.color, 'status', e.status, 'billable', e.billable,
    'note', e.note, 'startedAt', e.started_at, 'endedAt', e.ended_at, 'payRateCents', e.pay_rate_cents)`

/** Authentication, and the key's active entry (`findActiveEntry` for the key's scope) as `activeEntry` (or null). */
const AUTHENTICATE_WITH_ACTIVE_ENTRY = `${KEY_AND_COUNT}
  ${KEY_COLUMNS},
    (SELECT ${ENTRY_JSON}
      FROM time_entries e
      JOIN projects p ON p.id = e.project_id
      JOIN clients c ON c.id = p.client_id
      WHERE e.workspace_id = k.workspace_id AND e.user_id = k.user_id AND e.status = 'active') AS "activeEntry"
  FROM k`

/** The workspace's unarchived clients, each with whether the user is assigned to one of its unarchived projects. */
export const listClients = (scope: UserScope): Compiled =>
  compile(sql`SELECT c.id, c.name, c.color, EXISTS (
      SELECT 1 FROM projects p
      JOIN assignments a ON a.project_id = p.id AND a.user_id = ${scope.userId}
      WHERE p.client_id = c.id AND NOT p.archived
    ) AS "hasAssignedProject"
  FROM clients c
  WHERE c.workspace_id = ${scope.workspaceId} AND NOT c.archived`)

/** The client's projects (archived too) the user is assigned to, if the client is in the scope's workspace. */
export const listProjects = (scope: UserScope, clientId: string): Compiled =>
  compile(sql`SELECT p.id, p.workspace_id AS "workspaceId", p.client_id AS "clientId", p.name, p.color, p.archived,
    c.archived AS "clientArchived"
  FROM clients c
  JOIN projects p ON p.client_id = c.id
  JOIN assignments a ON a.project_id = p.id AND a.user_id = ${scope.userId}
  WHERE c.id = ${clientId} AND c.workspace_id = ${scope.workspaceId}`)

/**
 * Inserts the project and the creator's assignment only if the client is unarchived in the workspace, in one
 * statement. `FOR SHARE` makes a concurrent archiving of the client either come first (no project) or wait.
 */
export const createProject = (project: NewProject): Compiled =>
  compile(sql`WITH client AS (
    SELECT id, workspace_id FROM clients
    WHERE id = ${project.clientId} AND workspace_id = ${project.workspaceId} AND NOT archived
    FOR SHARE
  ), created AS (
    INSERT INTO projects (id, workspace_id, client_id, name, color, archived)
    SELECT ${project.id}::uuid, workspace_id, id, ${Text.encode(project.name)}::text, ${project.color}::text, false
    FROM client
    RETURNING id, workspace_id, client_id, name, color, archived
  ), assigned AS (
    INSERT INTO assignments (project_id, user_id, pay_rate_cents)
    SELECT id, ${project.creatorUserId}::uuid, ${project.creatorRateCents}::integer FROM created
  )
  SELECT id, workspace_id AS "workspaceId", client_id AS "clientId", name, color, archived,
    false AS "clientArchived"
  FROM created`)

// Compiled once: $1 workspace, $2 user.
const FIND_ACTIVE_ENTRY = compile(sql`SELECT ${entryColumns}
  FROM time_entries e
  JOIN projects p ON p.id = e.project_id
  JOIN clients c ON c.id = p.client_id
  WHERE e.workspace_id = ${""} AND e.user_id = ${""} AND e.status = 'active'`).text

/** The scope's active entry. */
export const findActiveEntry = (scope: UserScope): Compiled => ({
  text: FIND_ACTIVE_ENTRY,
  values: [scope.workspaceId, scope.userId]
})

// The columns of `entryColumns`, as plain text for the statements built by hand below.
const ENTRY_COLUMNS = compile(sql`SELECT ${entryColumns}`).text.slice("SELECT ".length)

/**
 * The text of a history page of one shape (with or without a project filter, first or later page, the scope given or
 * taken from a key) and one limit: $1 workspace and $2 user (or $1 the key's digest), then the project and the
 * cursor's position (next two), when the shape has them. The limit is a literal (a whole number the core decoded, at
 * most a few hundred texts): with a `LIMIT $n`, PostgreSQL cannot cost the generic plan of the prepared statement and
 * plans the first page afresh on every execution; with a literal it switches to the generic plan (the same index range
 * scan) after the first few. The cursor's position comes through subqueries for the same reason: given its values, the
 * planner expected fewer rows past a deep cursor than past a shallow one, found each plan made for the values cheaper
 * than the generic one, and planned every later page afresh (`pg_prepared_statements`: 12 custom plans of 12, about
 * 0.4 ms of planning each); behind a subquery the values are unknown to every plan alike, and the statement settles on
 * its generic plan, the same range scan with the position as its index condition. Both came before every connection
 * forced generic plans (`SESSION_SETUP`) and stay: a pooler between the server and PostgreSQL that does not keep a
 * connection's session settings leaves its statements under the default `auto`, where the two still matter
 * (QueryPlan.test checks the page under `auto`).
 */
const pageText = (filtered: boolean, later: boolean, limit: number, byDigest: boolean): string => {
  const key = `${filtered ? 1 : 0}${later ? 1 : 0}${byDigest ? 1 : 0}${limit}`
  let text = pageTexts.get(key)
  if (text === undefined) {
    const project = byDigest ? 2 : 3
    const position = filtered ? project + 1 : project
    text = `SELECT ${ENTRY_COLUMNS}
  FROM (
    SELECT id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents FROM time_entries
    WHERE ${
      byDigest
        ? "(workspace_id, user_id) = (SELECT workspace_id, user_id FROM api_keys WHERE digest = $1::text)"
        : "workspace_id = $1::uuid AND user_id = $2::uuid"
    }
      ${filtered ? `AND project_id = $${project}::uuid` : ""}
      ${later ? `AND (started_at, id) < ((SELECT $${position}::bigint), (SELECT $${position + 1}::uuid))` : ""}
    ORDER BY started_at DESC, id DESC
    LIMIT ${limit}
  ) e
  JOIN projects p ON p.id = e.project_id
  JOIN clients c ON c.id = p.client_id
  ORDER BY e.started_at DESC, e.id DESC`
    // Only a misuse could make more shapes than this: past it, texts are built again each time.
    if (pageTexts.size < 1_000) pageTexts.set(key, text)
  }
  return text
}

const pageTexts = new Map<string, string>()

/**
 * One page of the scope's history in (`started_at` desc, `id` desc) order, strictly after `query.after`: a range
 * scan of `time_entries_history` (or `time_entries_project_history` with a project filter) that stops after `limit`
 * rows, then the names of those rows' projects and clients.
 */
export const listEntries = (scope: UserScope, query: EntriesQuery): Compiled =>
  page(query, false, [scope.workspaceId, scope.userId])

/**
 * `listEntries` for the scope of the key with this digest (no rows when there is none): read along with the
 * authentication (`Store.ReadAlong`), sent after it in the same round trip.
 */
export const listEntriesByDigest = (digest: string, query: EntriesQuery): Compiled => page(query, true, [digest])

const page = (query: EntriesQuery, byDigest: boolean, values: Array<unknown>): Compiled => {
  // A whole number from the core; anything else would only ever read nothing.
  const limit = Number.isSafeInteger(query.limit) && query.limit > 0 ? query.limit : 0
  if (query.projectId !== null) values.push(query.projectId)
  if (query.after !== null) values.push(query.after.startedAt, query.after.id)
  return { text: pageText(query.projectId !== null, query.after !== null, limit, byDigest), values }
}

/**
 * Readiness: how many of the migrations this build knows (ids 1 to `LATEST`) are recorded, and whether the stored
 * cursor secret is still `secret` (true when `secret` is null: the operator gave the secret, the database keeps none).
 * The table is named, not created: a database without it fails the statement, which is the answer. Sent after
 * `readyLockTimeout`, in its transaction.
 */
export const ping = (secret: Uint8Array | null): Compiled => ({ text: PING, values: [secret === null ? null : Buffer.from(secret)] })

const PING = `SELECT count(*) AS applied,
    $1::bytea IS NULL OR EXISTS (SELECT 1 FROM settings WHERE name = 'cursor_secret' AND value = $1::bytea) AS "sameSecret"
  FROM ${TABLE} WHERE migration_id BETWEEN 1 AND ${LATEST}`

/**
 * How long readiness waits for the migrations table's lock. Every instance's start takes it (the Migrator locks the
 * table exclusively, also when nothing is to be done), and a real migration may hold it for long: the committed schema
 * has not changed meanwhile, so a wait that runs out (`LOCK_NOT_AVAILABLE`) reads as ready.
 */
export const readyLockTimeout: Compiled = raw("SELECT set_config('lock_timeout', '250ms', true)")

/** SQLSTATE of a lock wait that ran out (`lock_timeout`). */
export const LOCK_NOT_AVAILABLE = "55P03"
