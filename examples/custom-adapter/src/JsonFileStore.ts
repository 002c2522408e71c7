/**
 * A third-party Stint storage adapter: the core's `Store` port over plain `Map`s, made durable by an append-only
 * JSON Lines journal (one committed change per line, replayed when the file is opened).
 *
 * @since 0.1.0
 */
import { ApiKey, Errors, RateLimit, type Records, Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { randomBytes } from "node:crypto"
import { closeSync, existsSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs"
import { type Change, emptyTables, type Tables, apply, conflict, pairKey, secondActive } from "./internal/Tables.js"

/**
 * Where the store keeps its journal.
 *
 * @since 0.1.0
 */
export interface Options {
  /** The journal file; created when missing (its directory must exist). One process per file. */
  readonly filename: string
}

const storeError = (message: string) => (cause: unknown) => new Errors.StoreError({ message, cause })

/** Reads a journal back into tables; a torn last line (a crash mid-write) is cut off. */
const replay = (filename: string): Tables => {
  const tables = emptyTables()
  if (!existsSync(filename)) return tables
  const text = readFileSync(filename, "utf8")
  const complete = text.lastIndexOf("\n") + 1
  if (complete < text.length) truncateSync(filename, Buffer.byteLength(text.slice(0, complete)))
  for (const line of text.slice(0, complete).split("\n")) {
    if (line !== "") apply(tables, JSON.parse(line) as Change)
  }
  return tables
}

const make = (options: Options) =>
  Effect.gen(function*() {
    const tables = yield* Effect.try({
      try: () => replay(options.filename),
      catch: storeError("cannot read the journal")
    })
    const fd = yield* Effect.acquireRelease(
      Effect.try({ try: () => openSync(options.filename, "a"), catch: storeError("cannot open the journal") }),
      (fd) => Effect.sync(() => closeSync(fd))
    )
    // Accepted request times per API key. Kept in memory only: a restart forgets at most one window.
    const hits = new Map<string, ReadonlyArray<number>>()
    // One lock per user and workspace: timer transactions of one scope run one at a time.
    const locks = new Map<string, Effect.Semaphore>()
    const lockOf = (scope: Records.UserScope) => {
      const key = pairKey(scope.workspaceId, scope.userId)
      const lock = locks.get(key) ?? Effect.unsafeMakeSemaphore(1)
      locks.set(key, lock)
      return lock
    }

    /** Writes the change to the journal, then makes it visible: a failed write changes nothing. */
    const commit = (change: Change): void => {
      writeSync(fd, JSON.stringify(change) + "\n")
      apply(tables, change)
    }
    /**
     * One synchronous step: whatever `f` checks and commits happens without another fiber in between (JavaScript
     * runs it to the end), so a check and the write that depends on it are atomic.
     */
    const step = <A>(message: string, f: (commit: (change: Change) => void) => A) =>
      Effect.try({ try: () => f(commit), catch: storeError(message) })
    const read = <A>(message: string, f: () => A) => step(message, () => f())

    // -- joins --------------------------------------------------------------------------------------------------------
    const must = <A>(value: A | undefined, what: string): A => {
      if (value === undefined) throw new Error(`${what} is missing`)
      return value
    }
    const projectRecord = (project: Records.ProjectRow): Records.ProjectRecord => ({
      id: project.id,
      clientId: project.clientId,
      name: project.name,
      color: project.color,
      archived: project.archived,
      clientArchived: must(tables.clients.get(project.clientId), `client ${project.clientId}`).archived
    })
    const entryRecord = (entry: Records.EntryRow): Records.EntryRecord => {
      const project = must(tables.projects.get(entry.projectId), `project ${entry.projectId}`)
      const client = must(tables.clients.get(project.clientId), `client ${project.clientId}`)
      return {
        id: entry.id,
        projectId: project.id,
        projectName: project.name,
        clientId: client.id,
        clientName: client.name,
        color: project.color,
        status: entry.status,
        billable: entry.billable,
        note: entry.note,
        startedAt: entry.startedAt,
        endedAt: entry.endedAt,
        payRateCents: entry.payRateCents
      }
    }
    const isAssigned = (projectId: string, userId: string) => tables.assignments.has(pairKey(projectId, userId))
    const entriesOf = (scope: Records.UserScope) =>
      [...tables.entries.values()].filter((e) => e.workspaceId === scope.workspaceId && e.userId === scope.userId)
    const activeOf = (scope: Records.UserScope) =>
      Option.map(Option.fromNullable(entriesOf(scope).find((e) => e.status === "active")), entryRecord)

    // -- the timer transaction ----------------------------------------------------------------------------------------
    type Staged = { changes?: Store.TimerChanges }
    const transaction = (scope: Records.UserScope, staged: Staged): Store.TimerTransaction => ({
      read: (query) =>
        read("cannot read the timer snapshot", (): Store.TimerSnapshot => {
          const idempotency = query.idempotencyKey === undefined
            ? undefined
            : tables.idempotency.get(pairKey(scope.workspaceId, scope.userId, query.idempotencyKey))
          const entry = query.entryId === undefined ? undefined : tables.entries.get(query.entryId)
          const project = query.projectId === undefined ? undefined : tables.projects.get(query.projectId)
          return {
            idempotency: Option.fromNullable(idempotency),
            running: activeOf(scope),
            entry: entry !== undefined && entry.workspaceId === scope.workspaceId && entry.userId === scope.userId
              ? Option.some(entryRecord(entry))
              : Option.none(),
            project: project !== undefined && project.workspaceId === scope.workspaceId
              ? Option.some({
                ...projectRecord(project),
                clientName: must(tables.clients.get(project.clientId), `client ${project.clientId}`).name,
                assignedRateCents: tables.assignments.get(pairKey(project.id, scope.userId))?.payRateCents ?? null
              })
              : Option.none()
          }
        }),
      // Staged, and committed only when the whole body succeeds.
      write: (changes) =>
        staged.changes === undefined
          ? Effect.sync(() => void (staged.changes = changes))
          : Effect.fail(new Errors.StoreError({ message: "a timer transaction writes once" }))
    })

    const store: Store.Store["Type"] = {
      authenticate: (digest, now, policy) =>
        read("cannot read API keys", () =>
          Option.map(
            Option.fromNullable([...tables.apiKeys.values()].find((key) => key.digest === digest)),
            (key): Store.Authenticated => {
              const membership = tables.memberships.get(pairKey(key.workspaceId, key.userId))
              const record: Records.KeyRecord = {
                id: key.id,
                userId: key.userId,
                workspaceId: key.workspaceId,
                scopes: key.scopes,
                createdAt: key.createdAt,
                revokedAt: key.revokedAt,
                membership: membership === undefined
                  ? null
                  : { role: membership.role, payRateCents: membership.payRateCents }
              }
              // Only a key that authenticates is counted (a refused key's requests must not fill its window).
              if (Option.isSome(ApiKey.refusal(record, now))) return { key: record, accepted: false }
              const decision = RateLimit.decide(hits.get(key.id) ?? [], now, policy)
              hits.set(key.id, decision.hits)
              return { key: record, accepted: decision.accepted }
            }
          )),
      cursorSecret: step("cannot store the cursor secret", (commit) => {
        if (tables.secret === undefined) commit({ kind: "secret", hex: randomBytes(32).toString("hex") })
        return must(tables.secret, "the cursor secret")
      }),
      listClients: (scope) =>
        read("cannot list clients", () =>
          [...tables.clients.values()]
            .filter((client) => client.workspaceId === scope.workspaceId && !client.archived)
            .map((client): Records.ClientRecord => ({
              id: client.id,
              name: client.name,
              color: client.color,
              hasAssignedProject: [...tables.projects.values()].some((p) =>
                p.clientId === client.id && !p.archived && isAssigned(p.id, scope.userId)
              )
            }))),
      listProjects: (scope, clientId) =>
        read("cannot list projects", () =>
          [...tables.projects.values()]
            .filter((p) =>
              p.clientId === clientId && p.workspaceId === scope.workspaceId && isAssigned(p.id, scope.userId)
            )
            .map(projectRecord)),
      createProject: (project) =>
        step("cannot create the project", (commit) => {
          const client = tables.clients.get(project.clientId)
          if (client === undefined || client.workspaceId !== project.workspaceId || client.archived) {
            return Option.none()
          }
          const row: Records.ProjectRow = {
            id: project.id,
            workspaceId: project.workspaceId,
            clientId: project.clientId,
            name: project.name,
            color: project.color,
            archived: false
          }
          const assignment: Records.AssignmentRow = {
            projectId: project.id,
            userId: project.creatorUserId,
            payRateCents: project.creatorRateCents
          }
          commit({ kind: "project", project: row, assignment })
          return Option.some(projectRecord(row))
        }),
      findActiveEntry: (scope) => read("cannot read the active entry", () => activeOf(scope)),
      listEntries: (scope, query) =>
        read("cannot list entries", () => {
          const after = query.after
          return entriesOf(scope)
            .filter((e) => query.projectId === null || e.projectId === query.projectId)
            .filter((e) =>
              after === null || e.startedAt < after.startedAt || (e.startedAt === after.startedAt && e.id < after.id)
            )
            .sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
            .slice(0, query.limit)
            .map(entryRecord)
        }),
      withTimerTransaction: (scope, body) =>
        lockOf(scope).withPermits(1)(Effect.suspend(() => {
          const staged: Staged = {}
          return Effect.tap(body(transaction(scope, staged)), () =>
            step("cannot commit the timer transaction", (commit) => {
              const changes = staged.changes
              if (changes === undefined) return
              const clash = secondActive(tables, scope, changes)
              if (clash !== undefined) throw new Error(clash)
              commit({ kind: "timer", scope, changes })
            }))
        })),
      admin: {
        hasWorkspaces: read("cannot look for workspaces", () => tables.workspaces.size > 0),
        lookup: (refs) =>
          read("cannot look up records", (): Records.ExistingRecords => ({
            workspaceIds: refs.workspaceIds.filter((id) => tables.workspaces.has(id)),
            userIds: refs.userIds.filter((id) => tables.users.has(id)),
            clients: refs.clientIds.flatMap((id) => {
              const client = tables.clients.get(id)
              return client === undefined ? [] : [{ id, workspaceId: client.workspaceId }]
            }),
            projects: refs.projectIds.flatMap((id) => {
              const project = tables.projects.get(id)
              return project === undefined ? [] : [{ id, workspaceId: project.workspaceId }]
            }),
            entryIds: refs.entryIds.filter((id) => tables.entries.has(id)),
            apiKeyIds: refs.apiKeyIds.filter((id) => tables.apiKeys.has(id)),
            apiKeyDigests: refs.apiKeyDigests.filter((digest) =>
              [...tables.apiKeys.values()].some((key) => key.digest === digest)
            ),
            memberships: [...tables.memberships.values()].filter((m) => refs.userIds.includes(m.userId)),
            activeEntries: refs.userScopes.filter((scope) => Option.isSome(activeOf(scope))),
            assignments: refs.assignments.filter((a) => isAssigned(a.projectId, a.userId))
          })),
        insert: (dataset) =>
          Effect.flatMap(
            step("cannot insert the dataset", (commit) => {
              const problem = conflict(tables, dataset)
              if (problem === undefined) commit({ kind: "dataset", dataset })
              return problem
            }),
            (problem) => problem === undefined ? Effect.void : Effect.fail(new Errors.RecordConflict(problem))
          ),
        setArchived: (entity, id, archived) =>
          step("cannot archive", (commit) => {
            const exists = entity === "client" ? tables.clients.has(id) : tables.projects.has(id)
            if (exists) commit({ kind: "archive", entity, id, archived })
            return exists
          }),
        removeMembership: (scope) =>
          step("cannot remove the membership", (commit) => {
            const exists = tables.memberships.has(pairKey(scope.workspaceId, scope.userId))
            if (exists) commit({ kind: "removeMembership", scope })
            return exists
          }),
        revokeApiKey: (id, at) =>
          step("cannot revoke the key", (commit) => {
            const key = tables.apiKeys.get(id)
            if (key !== undefined && key.revokedAt === null) commit({ kind: "revoke", id, at })
            return key !== undefined
          }),
        listApiKeys: (filter) =>
          read("cannot list API keys", () =>
            [...tables.apiKeys.values()]
              .filter((key) =>
                (filter.workspaceId === undefined || key.workspaceId === filter.workspaceId) &&
                (filter.userId === undefined || key.userId === filter.userId)
              )
              .map(({ digest: _digest, ...info }): Records.ApiKeyInfo => info)),
        findEntryScope: (entryId) =>
          read("cannot read the entry", () =>
            Option.map(Option.fromNullable(tables.entries.get(entryId)), (e) => ({
              workspaceId: e.workspaceId,
              userId: e.userId
            })))
      },
      ping: Effect.void
    }
    return store
  })

/**
 * The store on one journal file: `Layer<Store, StoreError>`. The file is read when the layer is built and closed
 * with the layer's scope.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<Store.Store, Errors.StoreError> =>
  Layer.scoped(Store.Store, make(options))

