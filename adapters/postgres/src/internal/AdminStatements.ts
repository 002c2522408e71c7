/**
 * The statements of the admin side: what already exists, whole datasets in, and the few updates operators need.
 */
import type { Dataset, DatasetRefs, UserScope } from "@stint/core/Records"
import type * as Statement from "@effect/sql/Statement"
import { isId } from "./Ids.js"
import { type Compiled, compile, sql } from "./Sql.js"
import * as Text from "./Text.js"

const ids = (values: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(values.filter(isId))]

const pairs = <A>(values: ReadonlyArray<A>, first: (a: A) => string, second: (a: A) => string) => {
  const kept = new Map<string, readonly [string, string]>()
  for (const value of values) {
    const a = first(value), b = second(value)
    if (isId(a) && isId(b)) kept.set(`${a} ${b}`, [a, b])
  }
  return { firsts: [...kept.values()].map(([a]) => a), seconds: [...kept.values()].map(([, b]) => b) }
}

/**
 * Which referenced ids and pairs exist, in one statement: each column is a JSON list.
 */
export const lookup = (refs: DatasetRefs): Compiled => {
  const scopes = pairs(refs.userScopes, (s) => s.workspaceId, (s) => s.userId)
  const assignments = pairs(refs.assignments, (a) => a.projectId, (a) => a.userId)
  return compile(sql`SELECT
  (SELECT coalesce(json_agg(id), '[]') FROM workspaces WHERE id = ANY(${ids(refs.workspaceIds)}::uuid[]))
    AS "workspaceIds",
  (SELECT coalesce(json_agg(id), '[]') FROM users WHERE id = ANY(${ids(refs.userIds)}::uuid[])) AS "userIds",
  (SELECT coalesce(json_agg(json_build_object('id', id, 'workspaceId', workspace_id, 'name', name, 'color', color,
      'archived', archived)), '[]')
    FROM clients WHERE id = ANY(${ids(refs.clientIds)}::uuid[])) AS clients,
  (SELECT coalesce(json_agg(json_build_object('id', id, 'workspaceId', workspace_id, 'clientId', client_id,
      'name', name, 'color', color, 'archived', archived)), '[]')
    FROM projects WHERE id = ANY(${ids(refs.projectIds)}::uuid[])) AS projects,
  (SELECT coalesce(json_agg(id), '[]') FROM time_entries WHERE id = ANY(${ids(refs.entryIds)}::uuid[]))
    AS "entryIds",
  (SELECT coalesce(json_agg(id), '[]') FROM api_keys WHERE id = ANY(${ids(refs.apiKeyIds)}::uuid[]))
    AS "apiKeyIds",
  (SELECT coalesce(json_agg(digest ORDER BY seq), '[]') FROM api_keys WHERE digest = ANY(${[...new Set(refs.apiKeyDigests)]}::text[]))
    AS "apiKeyDigests",
  (SELECT coalesce(json_agg(json_build_object('workspaceId', m.workspace_id, 'userId', m.user_id, 'role', m.role,
      'payRateCents', m.pay_rate_cents) ORDER BY m.seq), '[]')
    FROM memberships m WHERE m.user_id = ANY(${ids(refs.userIds)}::uuid[])) AS memberships,
  (SELECT coalesce(json_agg(json_build_object('workspaceId', e.workspace_id, 'userId', e.user_id)), '[]')
    FROM time_entries e
    JOIN unnest(${scopes.firsts}::uuid[], ${scopes.seconds}::uuid[]) AS s (workspace_id, user_id)
      ON e.workspace_id = s.workspace_id AND e.user_id = s.user_id
    WHERE e.status = 'active') AS "activeEntries",
  (SELECT coalesce(json_agg(json_build_object('projectId', a.project_id, 'userId', a.user_id)), '[]')
    FROM assignments a
    JOIN unnest(${assignments.firsts}::uuid[], ${assignments.seconds}::uuid[]) AS s (project_id, user_id)
      ON a.project_id = s.project_id AND a.user_id = s.user_id) AS assignments`)
}

/** Whether `refs` asks only which time entries exist (a bulk load's later batches, all of whose parents are known). */
export const onlyEntries = (refs: DatasetRefs): boolean =>
  refs.workspaceIds.length === 0 && refs.userIds.length === 0 && refs.clientIds.length === 0 &&
  refs.projectIds.length === 0 && refs.apiKeyIds.length === 0 && refs.apiKeyDigests.length === 0 &&
  refs.userScopes.length === 0 && refs.assignments.length === 0

/**
 * `lookup` of refs that name only time entries (see `onlyEntries`): the same columns, the others empty, without
 * planning the eight subqueries that would find nothing.
 */
export const lookupEntries = (refs: DatasetRefs): Compiled =>
  compile(sql`SELECT '[]'::json AS "workspaceIds", '[]'::json AS "userIds", '[]'::json AS clients,
  '[]'::json AS projects,
  (SELECT coalesce(json_agg(id), '[]') FROM time_entries WHERE id = ANY(${ids(refs.entryIds)}::uuid[])) AS "entryIds",
  '[]'::json AS "apiKeyIds", '[]'::json AS "apiKeyDigests", '[]'::json AS memberships, '[]'::json AS "activeEntries",
  '[]'::json AS assignments`)

const rows = (list: ReadonlyArray<Record<string, unknown>>): string => JSON.stringify(list)

const insertInto = (table: Statement.Fragment, columns: Statement.Fragment, types: Statement.Fragment, list: ReadonlyArray<Record<string, unknown>>) =>
  compile(sql`INSERT INTO ${table} (${columns}) SELECT ${columns} FROM json_to_recordset(${rows(list)}::json) AS r (${types})`)

/**
 * One INSERT per non-empty table, parents before children (foreign keys are checked per statement). Strings are
 * escaped (`Text.ts`); every row of a table travels as one JSON parameter.
 */
export const insert = (dataset: Dataset): ReadonlyArray<Compiled> => {
  const statements: Array<Compiled> = []
  const add = (
    list: ReadonlyArray<Record<string, unknown>>,
    table: Statement.Fragment,
    columns: Statement.Fragment,
    types: Statement.Fragment
  ) => {
    if (list.length > 0) statements.push(insertInto(table, columns, types, list))
  }
  add(
    dataset.workspaces.map((w) => ({ id: w.id, name: Text.encode(w.name) })),
    sql`workspaces`,
    sql`id, name`,
    sql`id uuid, name text`
  )
  add(
    dataset.users.map((u) => ({ id: u.id, name: Text.encode(u.name), email: Text.encode(u.email) })),
    sql`users`,
    sql`id, name, email`,
    sql`id uuid, name text, email text`
  )
  add(
    dataset.memberships.map((m) => ({
      workspace_id: m.workspaceId,
      user_id: m.userId,
      role: m.role,
      pay_rate_cents: m.payRateCents
    })),
    sql`memberships`,
    sql`workspace_id, user_id, role, pay_rate_cents`,
    sql`workspace_id uuid, user_id uuid, role text, pay_rate_cents integer`
  )
  add(
    dataset.clients.map((c) => ({
      id: c.id,
      workspace_id: c.workspaceId,
      name: Text.encode(c.name),
      color: c.color,
      archived: c.archived
    })),
    sql`clients`,
    sql`id, workspace_id, name, color, archived`,
    sql`id uuid, workspace_id uuid, name text, color text, archived boolean`
  )
  add(
    dataset.projects.map((p) => ({
      id: p.id,
      workspace_id: p.workspaceId,
      client_id: p.clientId,
      name: Text.encode(p.name),
      color: p.color,
      archived: p.archived
    })),
    sql`projects`,
    sql`id, workspace_id, client_id, name, color, archived`,
    sql`id uuid, workspace_id uuid, client_id uuid, name text, color text, archived boolean`
  )
  add(
    dataset.assignments.map((a) => ({ project_id: a.projectId, user_id: a.userId, pay_rate_cents: a.payRateCents })),
    sql`assignments`,
    sql`project_id, user_id, pay_rate_cents`,
    sql`project_id uuid, user_id uuid, pay_rate_cents integer`
  )
  add(
    dataset.apiKeys.map((k) => ({
      id: k.id,
      digest: k.digest,
      workspace_id: k.workspaceId,
      user_id: k.userId,
      scopes: k.scopes,
      created_at: k.createdAt,
      revoked_at: k.revokedAt
    })),
    sql`api_keys`,
    sql`id, digest, workspace_id, user_id, scopes, created_at, revoked_at`,
    sql`id uuid, digest text, workspace_id uuid, user_id uuid, scopes text[], created_at bigint, revoked_at bigint`
  )
  add(
    dataset.timeEntries.map((e) => ({
      id: e.id,
      workspace_id: e.workspaceId,
      user_id: e.userId,
      project_id: e.projectId,
      status: e.status,
      billable: e.billable,
      note: Text.encodeNullable(e.note),
      started_at: e.startedAt,
      ended_at: e.endedAt,
      pay_rate_cents: e.payRateCents
    })),
    sql`time_entries`,
    sql`id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents`,
    sql`id uuid, workspace_id uuid, user_id uuid, project_id uuid, status text, billable boolean, note text,
      started_at bigint, ended_at bigint, pay_rate_cents integer`
  )
  return statements
}

/** Sets the archive flag of a client or a project; a row back when it exists. */
export const setArchived = (entity: "client" | "project", id: string, archived: boolean): Compiled =>
  compile(
    entity === "client"
      ? sql`UPDATE clients SET archived = ${archived} WHERE id = ${id} RETURNING 1`
      : sql`UPDATE projects SET archived = ${archived} WHERE id = ${id} RETURNING 1`
  )

/** Removes a membership; a row back when there was one. */
export const removeMembership = (scope: UserScope): Compiled =>
  compile(sql`DELETE FROM memberships WHERE workspace_id = ${scope.workspaceId} AND user_id = ${scope.userId} RETURNING 1`)

/** Revokes a key at `at` unless it already is; a row back when the key exists. */
export const revokeApiKey = (id: string, at: number): Compiled =>
  compile(sql`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ${at}::bigint) WHERE id = ${id} RETURNING 1`)

/** Keys' metadata, in the order they were stored. */
export const listApiKeys = (filter: { readonly workspaceId?: string | undefined; readonly userId?: string | undefined }): Compiled =>
  compile(sql`SELECT id, user_id AS "userId", workspace_id AS "workspaceId", scopes, created_at AS "createdAt",
    revoked_at AS "revokedAt"
  FROM api_keys
  WHERE true
    ${filter.workspaceId === undefined ? sql`` : sql`AND workspace_id = ${filter.workspaceId}`}
    ${filter.userId === undefined ? sql`` : sql`AND user_id = ${filter.userId}`}
  ORDER BY seq`)

/** The user and workspace of an entry. */
export const findEntryScope = (entryId: string): Compiled =>
  compile(sql`SELECT workspace_id AS "workspaceId", user_id AS "userId" FROM time_entries WHERE id = ${entryId}`)

/** Whether any workspace exists. */
export const hasWorkspaces: Compiled = compile(sql`SELECT EXISTS (SELECT 1 FROM workspaces) AS found`)
