/**
 * The store's tables as plain `Map`s, the journal's vocabulary of changes, and the one function that applies a change
 * (used both live and when a journal is replayed).
 */
import type { Idempotency, Records, Store } from "@stint/core"

/** Every stored row, keyed by id (or by `pairKey` of its parts). */
export interface Tables {
  readonly workspaces: Map<string, Records.WorkspaceRow>
  readonly users: Map<string, Records.UserRow>
  /** By `pairKey(workspaceId, userId)`. */
  readonly memberships: Map<string, Records.MembershipRow>
  readonly clients: Map<string, Records.ClientRow>
  readonly projects: Map<string, Records.ProjectRow>
  /** By `pairKey(projectId, userId)`. */
  readonly assignments: Map<string, Records.AssignmentRow>
  readonly apiKeys: Map<string, Records.ApiKeyRow>
  readonly entries: Map<string, Records.EntryRow>
  /** By `pairKey(workspaceId, userId, key)`. */
  readonly idempotency: Map<string, Idempotency.IdempotencyRecord>
  secret: Uint8Array | undefined
}

/** One committed change: one line of the journal. */
export type Change =
  | { readonly kind: "secret"; readonly hex: string }
  | { readonly kind: "dataset"; readonly dataset: Records.Dataset }
  | { readonly kind: "project"; readonly project: Records.ProjectRow; readonly assignment: Records.AssignmentRow }
  | { readonly kind: "timer"; readonly scope: Records.UserScope; readonly changes: Store.TimerChanges }
  | { readonly kind: "archive"; readonly entity: "client" | "project"; readonly id: string; readonly archived: boolean }
  | { readonly kind: "removeMembership"; readonly scope: Records.UserScope }
  | { readonly kind: "revoke"; readonly id: string; readonly at: number }

/** A map key made of several strings (any characters, no collisions). */
export const pairKey = (...parts: ReadonlyArray<string>): string => JSON.stringify(parts)

export const emptyTables = (): Tables => ({
  workspaces: new Map(),
  users: new Map(),
  memberships: new Map(),
  clients: new Map(),
  projects: new Map(),
  assignments: new Map(),
  apiKeys: new Map(),
  entries: new Map(),
  idempotency: new Map(),
  secret: undefined
})

const update = <A extends { readonly id: string }>(table: Map<string, A>, id: string, patch: Partial<A>) => {
  const row = table.get(id)
  if (row !== undefined) table.set(id, { ...row, ...patch })
}

/** Applies a change in place. */
export const apply = (tables: Tables, change: Change): void => {
  switch (change.kind) {
    case "secret":
      tables.secret = Uint8Array.from(Buffer.from(change.hex, "hex"))
      return
    case "dataset": {
      const d = change.dataset
      for (const row of d.workspaces) tables.workspaces.set(row.id, row)
      for (const row of d.users) tables.users.set(row.id, row)
      for (const row of d.memberships) tables.memberships.set(pairKey(row.workspaceId, row.userId), row)
      for (const row of d.clients) tables.clients.set(row.id, row)
      for (const row of d.projects) tables.projects.set(row.id, row)
      for (const row of d.assignments) tables.assignments.set(pairKey(row.projectId, row.userId), row)
      for (const row of d.apiKeys) tables.apiKeys.set(row.id, row)
      for (const row of d.timeEntries) tables.entries.set(row.id, row)
      return
    }
    case "project":
      tables.projects.set(change.project.id, change.project)
      tables.assignments.set(pairKey(change.assignment.projectId, change.assignment.userId), change.assignment)
      return
    case "timer": {
      const { changes, scope } = change
      if (changes.finish !== undefined) {
        update(tables.entries, changes.finish.id, { status: changes.finish.status, endedAt: changes.finish.endedAt })
      }
      if (changes.insert !== undefined) tables.entries.set(changes.insert.id, changes.insert)
      if (changes.moveStart !== undefined) {
        update(tables.entries, changes.moveStart.id, { startedAt: changes.moveStart.startedAt })
      }
      if (changes.idempotency !== undefined) {
        tables.idempotency.set(pairKey(scope.workspaceId, scope.userId, changes.idempotency.key), changes.idempotency)
      }
      const before = changes.forgetIdempotencyBefore
      if (before !== undefined) {
        for (const [key, record] of tables.idempotency) if (record.createdAt < before) tables.idempotency.delete(key)
      }
      return
    }
    case "archive":
      update<Records.ClientRow | Records.ProjectRow>(
        change.entity === "client" ? tables.clients : tables.projects,
        change.id,
        { archived: change.archived }
      )
      return
    case "removeMembership":
      tables.memberships.delete(pairKey(change.scope.workspaceId, change.scope.userId))
      return
    case "revoke":
      update(tables.apiKeys, change.id, { revokedAt: change.at })
      return
  }
}

/** What a unique constraint would refuse in a dataset, if anything (the core checked first; this catches races). */
export const conflict = (
  tables: Tables,
  d: Records.Dataset
): { readonly entity: string; readonly id: string; readonly reason: string } | undefined => {
  const taken = (entity: string, ids: ReadonlyArray<string>, table: { has: (id: string) => boolean }) => {
    const id = ids.find((id) => table.has(id))
    return id === undefined ? undefined : { entity, id, reason: "already exists" }
  }
  const digests = new Set([...tables.apiKeys.values()].map((key) => key.digest))
  const active = d.timeEntries.find((e) =>
    e.status === "active" &&
    [...tables.entries.values()].some((s) =>
      s.status === "active" && s.workspaceId === e.workspaceId && s.userId === e.userId
    )
  )
  return taken("workspace", d.workspaces.map((r) => r.id), tables.workspaces) ??
    taken("user", d.users.map((r) => r.id), tables.users) ??
    taken("membership", d.memberships.map((r) => pairKey(r.workspaceId, r.userId)), tables.memberships) ??
    taken("client", d.clients.map((r) => r.id), tables.clients) ??
    taken("project", d.projects.map((r) => r.id), tables.projects) ??
    taken("assignment", d.assignments.map((r) => pairKey(r.projectId, r.userId)), tables.assignments) ??
    taken("apiKey", d.apiKeys.map((r) => r.id), tables.apiKeys) ??
    taken("apiKey", d.apiKeys.map((r) => r.digest), digests) ??
    taken("timeEntry", d.timeEntries.map((r) => r.id), tables.entries) ??
    (active === undefined ? undefined : { entity: "timeEntry", id: active.id, reason: "an active entry exists" })
}

/**
 * Why committing `changes` would leave the scope with two active entries (the guard a unique index gives a database),
 * or `undefined`.
 */
export const secondActive = (
  tables: Tables,
  scope: Records.UserScope,
  changes: Store.TimerChanges
): string | undefined => {
  if (changes.insert?.status !== "active") return undefined
  const running = [...tables.entries.values()].find((e) =>
    e.status === "active" && e.workspaceId === scope.workspaceId && e.userId === scope.userId &&
    e.id !== changes.finish?.id
  )
  return running === undefined ? undefined : `entry ${running.id} is still active`
}
