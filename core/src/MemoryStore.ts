/**
 * An in-memory `Store` with the same semantics as the SQL adapters, including under concurrency: timer transactions
 * serialise on a lock and commit their changes only if the body succeeds, and the one-active-entry rule is enforced
 * like a database constraint. For fast tests and for embedders; nothing is persisted. `MemoryDriver` exposes the
 * tables for inspection.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ApiKey from "./ApiKey.js"
import * as Idempotency from "./Idempotency.js"
import { randomBytes } from "./internal/crypto.js"
import { EntryTable } from "./internal/entryTable.js"
import * as RateLimit from "./RateLimit.js"
import type {
  ApiKeyRow,
  AssignmentRow,
  ClientRow,
  EntryRecord,
  EntryRow,
  KeyRecord,
  MembershipRow,
  ProjectRow,
  UserRow,
  UserScope,
  WorkspaceRow
} from "./Records.js"
import { RecordConflict, StoreError } from "./Errors.js"
import { Store, type TimerChanges, type TimerTransaction } from "./Store.js"

/**
 * The tables of a memory store.
 *
 * @since 0.1.0
 */
export interface Tables {
  readonly workspaces: Map<string, WorkspaceRow>
  readonly users: Map<string, UserRow>
  readonly memberships: Map<string, MembershipRow>
  readonly clients: Map<string, ClientRow>
  readonly projects: Map<string, ProjectRow>
  readonly assignments: Map<string, AssignmentRow>
  readonly apiKeys: Map<string, ApiKeyRow>
  /** A `Map` that also indexes the entries by user and workspace (it follows every `set` and `delete`). */
  readonly entries: EntryTable
  readonly idempotency: Map<string, Idempotency.IdempotencyRecord>
  readonly rateHits: Map<string, ReadonlyArray<number>>
}

/**
 * Read access to a memory store's tables, for tests that check writes independently of the store's own reads.
 *
 * @since 0.1.0
 */
export class MemoryDriver extends Context.Tag("@stint/core/MemoryDriver")<MemoryDriver, {
  readonly tables: Tables
}>() {}

const key2 = (a: string, b: string) => `${a} ${b}`
const scopeKey = (scope: UserScope) => key2(scope.workspaceId, scope.userId)

const emptyTables = (): Tables => ({
  workspaces: new Map(),
  users: new Map(),
  memberships: new Map(),
  clients: new Map(),
  projects: new Map(),
  assignments: new Map(),
  apiKeys: new Map(),
  entries: new EntryTable(),
  idempotency: new Map(),
  rateHits: new Map()
})

/**
 * Makes a memory store and its driver.
 *
 * @since 0.1.0
 */
export const make = Effect.gen(function*() {
  const t = emptyTables()
  const secret = randomBytes(32)
  // One lock for every write step: the simplest way to give memory the serialisation the SQL adapters give per user.
  const lock = yield* Effect.makeSemaphore(1)

  // Digest → key id, checked against the table on every use (the driver may change the table directly).
  const digests = new Map<string, string>()
  const keyByDigest = (digest: string): ApiKeyRow | undefined => {
    const indexed = t.apiKeys.get(digests.get(digest) ?? "")
    if (indexed !== undefined && indexed.digest === digest) return indexed
    digests.clear()
    for (const key of t.apiKeys.values()) digests.set(key.digest, key.id)
    const found = t.apiKeys.get(digests.get(digest) ?? "")
    return found !== undefined && found.digest === digest ? found : undefined
  }

  const entryRecord = (row: EntryRow): Option.Option<EntryRecord> => {
    const project = t.projects.get(row.projectId)
    const client = project === undefined ? undefined : t.clients.get(project.clientId)
    if (project === undefined || client === undefined) return Option.none()
    return Option.some({
      id: row.id,
      projectId: project.id,
      projectName: project.name,
      clientId: client.id,
      clientName: client.name,
      color: project.color,
      status: row.status,
      billable: row.billable,
      note: row.note,
      startedAt: row.startedAt,
      endedAt: row.endedAt,
      payRateCents: row.payRateCents
    })
  }

  const apply = (scope: UserScope, changes: TimerChanges): Effect.Effect<void, StoreError> => {
    const running = t.entries.activeOf(scope)
    const stillActive = running !== undefined && running.id !== changes.finish?.id
    if (changes.insert?.status === "active" && stillActive) {
      return Effect.fail(new StoreError({ message: "unique violation: a second active entry for this user" }))
    }
    if (changes.insert !== undefined && t.entries.has(changes.insert.id)) {
      return Effect.fail(new StoreError({ message: "unique violation: entry id" }))
    }
    const finish = changes.finish
    if (finish !== undefined) {
      const row = t.entries.get(finish.id)
      if (row !== undefined) t.entries.set(finish.id, { ...row, status: finish.status, endedAt: finish.endedAt })
    }
    if (changes.insert !== undefined) t.entries.set(changes.insert.id, changes.insert)
    const move = changes.moveStart
    if (move !== undefined) {
      const row = t.entries.get(move.id)
      if (row !== undefined) t.entries.set(move.id, { ...row, startedAt: move.startedAt })
    }
    if (changes.idempotency !== undefined) {
      // Deleted first so that the map keeps its records in the order they were written: oldest first.
      const k = key2(scopeKey(scope), changes.idempotency.key)
      t.idempotency.delete(k)
      t.idempotency.set(k, changes.idempotency)
    }
    const before = changes.forgetIdempotencyBefore
    if (before !== undefined) {
      // The expired records come first; the first one still kept ends the sweep (a record written under a clock that
      // went back may then stay a little longer, which "may be deleted" allows).
      for (const [k, record] of t.idempotency) {
        if (record.createdAt >= before) break
        t.idempotency.delete(k)
      }
    }
    return Effect.void
  }

  const store: Store["Type"] = {
    ping: Effect.void,

    authenticate: (digest, now, policy) =>
      Effect.sync(() => {
        const key = keyByDigest(digest)
        if (key === undefined) return Option.none()
        const membership = t.memberships.get(key2(key.workspaceId, key.userId))
        const record: KeyRecord = {
          id: key.id,
          userId: key.userId,
          workspaceId: key.workspaceId,
          scopes: key.scopes,
          createdAt: key.createdAt,
          revokedAt: key.revokedAt,
          membership: membership === undefined ? null : { role: membership.role, payRateCents: membership.payRateCents }
        }
        if (Option.isSome(ApiKey.refusal(record, now))) return Option.some({ key: record, accepted: false })
        const decision = RateLimit.decide(t.rateHits.get(key.id) ?? [], now, policy)
        t.rateHits.set(key.id, decision.hits)
        return Option.some({ key: record, accepted: decision.accepted })
      }),

    cursorSecret: Effect.succeed(secret),

    listClients: (scope) =>
      Effect.sync(() =>
        [...t.clients.values()]
          .filter((c) => c.workspaceId === scope.workspaceId && !c.archived)
          .map((c) => ({
            id: c.id,
            name: c.name,
            color: c.color,
            hasAssignedProject: [...t.projects.values()].some((p) =>
              p.clientId === c.id && !p.archived && t.assignments.has(key2(p.id, scope.userId))
            )
          }))
      ),

    listProjects: (scope, clientId) =>
      Effect.sync(() => {
        const client = t.clients.get(clientId)
        if (client === undefined || client.workspaceId !== scope.workspaceId) return []
        return [...t.projects.values()]
          .filter((p) => p.clientId === clientId && t.assignments.has(key2(p.id, scope.userId)))
          .map((p) => ({ ...p, clientArchived: client.archived }))
      }),

    createProject: (project) =>
      lock.withPermits(1)(Effect.sync(() => {
        const client = t.clients.get(project.clientId)
        if (client === undefined || client.workspaceId !== project.workspaceId || client.archived) return Option.none()
        const row: ProjectRow = {
          id: project.id,
          workspaceId: project.workspaceId,
          clientId: project.clientId,
          name: project.name,
          color: project.color,
          archived: false
        }
        t.projects.set(row.id, row)
        t.assignments.set(key2(row.id, project.creatorUserId), {
          projectId: row.id,
          userId: project.creatorUserId,
          payRateCents: project.creatorRateCents
        })
        return Option.some({ ...row, clientArchived: false })
      })),

    findActiveEntry: (scope) =>
      Effect.sync(() => Option.flatMap(Option.fromNullable(t.entries.activeOf(scope)), entryRecord)),

    listEntries: (scope, query) =>
      Effect.sync(() =>
        t.entries.page(scope, query.after, query.projectId, query.limit).flatMap((e) => Option.toArray(entryRecord(e)))
      ),

    withTimerTransaction: (scope, body) =>
      lock.withPermits(1)(Effect.gen(function*() {
        let pending: TimerChanges | undefined
        const tx: TimerTransaction = {
          read: (query) =>
            Effect.sync(() => {
              const entry = query.entryId === undefined ? undefined : t.entries.get(query.entryId)
              const project = query.projectId === undefined ? undefined : t.projects.get(query.projectId)
              const client = project === undefined ? undefined : t.clients.get(project.clientId)
              const assignment = project === undefined ? undefined : t.assignments.get(key2(project.id, scope.userId))
              const running = t.entries.activeOf(scope)
              return {
                idempotency: query.idempotencyKey === undefined
                  ? Option.none()
                  : Option.fromNullable(t.idempotency.get(key2(scopeKey(scope), query.idempotencyKey))),
                running: running === undefined ? Option.none() : entryRecord(running),
                entry: entry !== undefined && entry.workspaceId === scope.workspaceId && entry.userId === scope.userId
                  ? entryRecord(entry)
                  : Option.none(),
                project: project !== undefined && client !== undefined && project.workspaceId === scope.workspaceId
                  ? Option.some({
                    ...project,
                    clientName: client.name,
                    clientArchived: client.archived,
                    assignedRateCents: assignment?.payRateCents ?? null
                  })
                  : Option.none()
              }
            }),
          write: (changes) =>
            Effect.sync(() => {
              pending = changes
            })
        }
        const result = yield* body(tx)
        if (pending !== undefined) yield* apply(scope, pending)
        return result
      })),

    admin: {
      hasWorkspaces: Effect.sync(() => t.workspaces.size > 0),

      lookup: (refs) =>
        Effect.sync(() => {
          return {
            workspaceIds: refs.workspaceIds.filter((id) => t.workspaces.has(id)),
            userIds: refs.userIds.filter((id) => t.users.has(id)),
            clients: refs.clientIds.flatMap((id) => Option.toArray(Option.fromNullable(t.clients.get(id)))),
            projects: refs.projectIds.flatMap((id) => Option.toArray(Option.fromNullable(t.projects.get(id)))),
            entryIds: refs.entryIds.filter((id) => t.entries.has(id)),
            apiKeyIds: refs.apiKeyIds.filter((id) => t.apiKeys.has(id)),
            apiKeyDigests: [...t.apiKeys.values()].map((k) => k.digest).filter((d) => refs.apiKeyDigests.includes(d)),
            memberships: [...t.memberships.values()].filter((m) => refs.userIds.includes(m.userId)),
            activeEntries: refs.userScopes.filter((s) => t.entries.activeOf(s) !== undefined),
            assignments: refs.assignments.filter((a) => t.assignments.has(key2(a.projectId, a.userId)))
          }
        }),

      insert: (dataset) =>
        lock.withPermits(1)(Effect.suspend(() => {
          // Check every uniqueness rule a database would, before writing anything.
          const taken = (table: Map<string, unknown>, ids: ReadonlyArray<string>, entity: string) => {
            const id = ids.find((id) => table.has(id))
            return id === undefined ? undefined : new RecordConflict({ entity, id, reason: "already exists" })
          }
          const conflict = taken(t.workspaces, dataset.workspaces.map((w) => w.id), "workspace") ??
            taken(t.users, dataset.users.map((u) => u.id), "user") ??
            taken(t.memberships, dataset.memberships.map(scopeKey), "membership") ??
            taken(t.clients, dataset.clients.map((c) => c.id), "client") ??
            taken(t.projects, dataset.projects.map((p) => p.id), "project") ??
            taken(t.assignments, dataset.assignments.map((a) => key2(a.projectId, a.userId)), "assignment") ??
            taken(t.apiKeys, dataset.apiKeys.map((k) => k.id), "apiKey") ??
            taken(t.entries, dataset.timeEntries.map((e) => e.id), "timeEntry")
          if (conflict !== undefined) return Effect.fail(conflict)
          const digests = new Set([...t.apiKeys.values()].map((k) => k.digest))
          for (const key of dataset.apiKeys) {
            if (digests.has(key.digest)) {
              return Effect.fail(new RecordConflict({ entity: "apiKey", id: key.id, reason: "key already exists" }))
            }
            digests.add(key.digest)
          }
          const active = dataset.timeEntries.find((e) => e.status === "active" && t.entries.activeOf(e) !== undefined)
          if (active !== undefined) {
            return Effect.fail(new RecordConflict({ entity: "timeEntry", id: active.id, reason: "second active entry" }))
          }
          for (const w of dataset.workspaces) t.workspaces.set(w.id, w)
          for (const u of dataset.users) t.users.set(u.id, u)
          for (const m of dataset.memberships) t.memberships.set(scopeKey(m), m)
          for (const c of dataset.clients) t.clients.set(c.id, c)
          for (const p of dataset.projects) t.projects.set(p.id, p)
          for (const a of dataset.assignments) t.assignments.set(key2(a.projectId, a.userId), a)
          for (const k of dataset.apiKeys) t.apiKeys.set(k.id, k)
          for (const e of dataset.timeEntries) t.entries.set(e.id, e)
          return Effect.void
        })),

      setArchived: (entity, id, archived) =>
        Effect.sync(() => {
          const table: Map<string, ClientRow | ProjectRow> = entity === "client" ? t.clients : t.projects
          const row = table.get(id)
          if (row === undefined) return false
          table.set(id, { ...row, archived })
          return true
        }),

      removeMembership: (scope) => Effect.sync(() => t.memberships.delete(scopeKey(scope))),

      revokeApiKey: (id, at) =>
        Effect.sync(() => {
          const key = t.apiKeys.get(id)
          if (key === undefined) return false
          if (key.revokedAt === null) t.apiKeys.set(id, { ...key, revokedAt: at })
          return true
        }),

      listApiKeys: (filter) =>
        Effect.sync(() =>
          [...t.apiKeys.values()]
            .filter((k) =>
              (filter.workspaceId === undefined || k.workspaceId === filter.workspaceId) &&
              (filter.userId === undefined || k.userId === filter.userId)
            )
            .map(({ digest: _digest, ...info }) => info)
        ),

      findEntryScope: (entryId) =>
        Effect.sync(() =>
          Option.map(Option.fromNullable(t.entries.get(entryId)), (e) => ({
            workspaceId: e.workspaceId,
            userId: e.userId
          }))
        )
    }
  }
  return { store, driver: { tables: t } }
})

/**
 * A fresh, empty memory store (and its driver).
 *
 * @since 0.1.0
 */
export const layerMemory: Layer.Layer<Store | MemoryDriver> = Layer.effectContext(
  Effect.map(make, ({ driver, store }) => Context.make(Store, store).pipe(Context.add(MemoryDriver, driver)))
)
