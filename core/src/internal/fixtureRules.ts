/**
 * The fixture's cross-row rules and defaults, checked against the file and against what is already stored. The small
 * sections (everything but time entries) are checked at once by `prepare`; time entries are checked a batch at a time
 * by `checkEntries`, against a `Context` that remembers what earlier batches and lookups established, so a file of a
 * million entries is checked with memory for its ids only (16 bytes each) and never held whole.
 */
import * as Either from "effect/Either"
import { AdminInputInvalid } from "../Errors.js"
import type {
  ApiKeyRow,
  Dataset,
  DatasetRefs,
  EntryRow,
  ExistingRecords,
  MembershipRow,
  ProjectRow,
  UserScope
} from "../Records.js"
import { DEFAULT_COLOR, isWritableInstant, parseTimestamp, SCOPES } from "../Schemas.js"
import type { Element, FixtureFile } from "./fixtureSchema.js"
import { UuidSet } from "./uuidSet.js"

/** The fixture without its time entries. */
export type SmallFile = Omit<FixtureFile, "timeEntries">

/** One time entry as decoded. */
export type EntryInput = Element<"timeEntries">

/** Key material for the file's API keys (generated or supplied), in file order. */
export interface Generated {
  readonly now: number
  readonly keys: ReadonlyArray<{ readonly id: string; readonly key: string; readonly digest: string }>
}

const lower = (id: string) => id.toLowerCase()
const pair = (a: string, b: string) => `${a} ${b}`
const invalid = (path: string, message: string) => new AdminInputInvalid({ path, message })
const fail = (path: string, message: string) => Either.left(invalid(path, message))
const need = (ok: boolean, path: string, message: string): Either.Either<void, AdminInputInvalid> =>
  ok ? Either.void : fail(path, message)

/**
 * What time entries are checked against: the workspaces, users and projects known so far (from the file or the
 * store), the default rates, the scopes that have an active entry, and the entry ids seen in the file.
 */
export interface Context {
  readonly workspaces: Set<string>
  readonly users: Set<string>
  readonly projectWorkspace: Map<string, string>
  readonly rates: Map<string, number>
  readonly active: Set<string>
  readonly entryIds: UuidSet
}

/** Adds what a lookup found to the context (the file's own rows take precedence). */
export const learn = (context: Context, existing: ExistingRecords): void => {
  for (const id of existing.workspaceIds) context.workspaces.add(id)
  for (const id of existing.userIds) context.users.add(id)
  for (const p of existing.projects) if (!context.projectWorkspace.has(p.id)) context.projectWorkspace.set(p.id, p.workspaceId)
  for (const m of existing.memberships) {
    const key = pair(m.workspaceId, m.userId)
    if (!context.rates.has(key)) context.rates.set(key, m.payRateCents)
  }
  for (const s of existing.activeEntries) context.active.add(pair(s.workspaceId, s.userId))
}

/** The rows of the small sections, and the context their entries are checked against. */
export interface Prepared {
  readonly dataset: Omit<Dataset, "timeEntries">
  readonly context: Context
}

/** Checks a section's keys for repeats within the file and against the stored ones. */
const unique = <A>(
  kind: string,
  rows: ReadonlyArray<A>,
  keyOf: (row: A) => string,
  taken: ReadonlyArray<string>,
  field: string,
  /** How a key is named in a message (a key's digest is not: the path says which key). */
  named: (key: string) => string = (key) => key
): Either.Either<ReadonlySet<string>, AdminInputInvalid> => {
  const seen = new Set<string>()
  const stored = new Set(taken)
  for (const [i, row] of rows.entries()) {
    const key = keyOf(row)
    if (seen.has(key)) return fail(`$.${kind}[${i}]${field}`, `duplicate ${kind} ${named(key)}`)
    if (stored.has(key)) return fail(`$.${kind}[${i}]${field}`, `${named(key)} already exists`)
    seen.add(key)
  }
  return Either.right(seen)
}

/**
 * Checks every rule of the small sections and fills in their defaults, given what is already stored (the answer to
 * `refsOf`). Pure: `now` and the generated ids and keys are passed in.
 */
export const prepare = (
  file: SmallFile,
  existing: ExistingRecords,
  generated: Generated
): Either.Either<Prepared, AdminInputInvalid> =>
  Either.gen(function*() {
    const workspaces = yield* unique("workspaces", file.workspaces ?? [], (w) => lower(w.id), existing.workspaceIds, ".id")
    const users = yield* unique("users", file.users ?? [], (u) => lower(u.id), existing.userIds, ".id")
    const context: Context = {
      workspaces: new Set([...workspaces, ...existing.workspaceIds]),
      users: new Set([...users, ...existing.userIds]),
      projectWorkspace: new Map(),
      rates: new Map(),
      active: new Set(),
      entryIds: new UuidSet()
    }
    const knownWorkspace = (id: string) => context.workspaces.has(lower(id))
    const knownUser = (id: string) => context.users.has(lower(id))

    // Memberships, and the rates that default from them.
    const membershipRows = file.memberships ?? []
    yield* unique(
      "memberships",
      membershipRows,
      (m) => pair(lower(m.workspaceId), lower(m.userId)),
      existing.memberships.map((m) => pair(m.workspaceId, m.userId)),
      ""
    )
    const memberships: Array<MembershipRow> = []
    for (const [i, m] of membershipRows.entries()) {
      yield* need(knownWorkspace(m.workspaceId), `$.memberships[${i}].workspaceId`, "unknown workspace")
      yield* need(knownUser(m.userId), `$.memberships[${i}].userId`, "unknown user")
      memberships.push({
        workspaceId: lower(m.workspaceId),
        userId: lower(m.userId),
        role: m.role,
        payRateCents: m.payRateCents ?? 0
      })
    }
    for (const m of memberships) context.rates.set(pair(m.workspaceId, m.userId), m.payRateCents)

    // Clients and projects; a project lives in its client's workspace.
    const clientRows = file.clients ?? []
    yield* unique("clients", clientRows, (c) => lower(c.id), existing.clients.map((c) => c.id), ".id")
    const clientWorkspace = new Map(existing.clients.map((c) => [c.id, c.workspaceId]))
    for (const [i, c] of clientRows.entries()) {
      yield* need(knownWorkspace(c.workspaceId), `$.clients[${i}].workspaceId`, "unknown workspace")
      clientWorkspace.set(lower(c.id), lower(c.workspaceId))
    }
    const projectRows = file.projects ?? []
    yield* unique("projects", projectRows, (p) => lower(p.id), existing.projects.map((p) => p.id), ".id")
    for (const p of existing.projects) context.projectWorkspace.set(p.id, p.workspaceId)
    const projects: Array<ProjectRow> = []
    for (const [i, p] of projectRows.entries()) {
      const workspaceId = clientWorkspace.get(lower(p.clientId))
      if (workspaceId === undefined) return yield* fail(`$.projects[${i}].clientId`, "unknown client")
      context.projectWorkspace.set(lower(p.id), workspaceId)
      projects.push({
        id: lower(p.id),
        workspaceId,
        clientId: lower(p.clientId),
        name: p.name,
        color: p.color ?? DEFAULT_COLOR,
        archived: p.archived ?? false
      })
    }
    learn(context, existing)
    const defaultRate = (workspaceId: string, userId: string) => context.rates.get(pair(workspaceId, lower(userId))) ?? 0

    // Assignments default to the membership's rate in the project's workspace.
    const assignmentRows = file.assignments ?? []
    yield* unique(
      "assignments",
      assignmentRows,
      (a) => pair(lower(a.projectId), lower(a.userId)),
      existing.assignments.map((a) => pair(a.projectId, a.userId)),
      ""
    )
    const assignments = []
    for (const [i, a] of assignmentRows.entries()) {
      const workspaceId = context.projectWorkspace.get(lower(a.projectId))
      if (workspaceId === undefined) return yield* fail(`$.assignments[${i}].projectId`, "unknown project")
      yield* need(knownUser(a.userId), `$.assignments[${i}].userId`, "unknown user")
      assignments.push({
        projectId: lower(a.projectId),
        userId: lower(a.userId),
        payRateCents: a.payRateCents ?? defaultRate(workspaceId, a.userId)
      })
    }

    // API keys: supplied or generated plaintext, stored as digests only.
    const keyRows = file.apiKeys ?? []
    yield* unique("apiKeys", generated.keys, (k) => k.id, existing.apiKeyIds, ".id")
    yield* unique("apiKeys", generated.keys, (k) => k.digest, existing.apiKeyDigests, ".key", () => "key")
    const apiKeys: Array<ApiKeyRow> = []
    for (const [i, k] of keyRows.entries()) {
      yield* need(knownWorkspace(k.workspaceId), `$.apiKeys[${i}].workspaceId`, "unknown workspace")
      yield* need(knownUser(k.userId), `$.apiKeys[${i}].userId`, "unknown user")
      const made = generated.keys[i]
      if (made === undefined) return yield* fail(`$.apiKeys[${i}]`, "no key material")
      const createdAt = k.createdAt === undefined ? generated.now : parseTimestamp(k.createdAt) ?? generated.now
      apiKeys.push({
        id: made.id,
        digest: made.digest,
        userId: lower(k.userId),
        workspaceId: lower(k.workspaceId),
        scopes: SCOPES.filter((scope) => (k.scopes ?? SCOPES).includes(scope)),
        createdAt,
        revokedAt: k.revoked === true ? generated.now : null
      })
    }

    return {
      dataset: {
        workspaces: (file.workspaces ?? []).map((w) => ({ id: lower(w.id), name: w.name })),
        users: (file.users ?? []).map((u) => ({ id: lower(u.id), name: u.name, email: u.email })),
        memberships,
        clients: clientRows.map((c) => ({
          id: lower(c.id),
          workspaceId: lower(c.workspaceId),
          name: c.name,
          color: c.color ?? DEFAULT_COLOR,
          archived: c.archived ?? false
        })),
        projects,
        assignments,
        apiKeys
      },
      context
    }
  })

/**
 * What to look up before checking `entries`: their ids (taken ones are refused), the workspaces, users and projects
 * the context does not know yet (with the users' memberships, for default rates), and the scopes of active entries.
 */
export const entryRefs = (context: Context, entries: ReadonlyArray<EntryInput>): DatasetRefs => {
  const workspaceIds = new Set<string>(), userIds = new Set<string>(), projectIds = new Set<string>()
  const scopes = new Map<string, UserScope>()
  const entryIds: Array<string> = []
  for (const e of entries) {
    const workspaceId = lower(e.workspaceId), userId = lower(e.userId), projectId = lower(e.projectId)
    entryIds.push(lower(e.id))
    if (!context.workspaces.has(workspaceId)) workspaceIds.add(workspaceId)
    if (!context.users.has(userId)) userIds.add(userId)
    if (!context.projectWorkspace.has(projectId)) projectIds.add(projectId)
    if (e.status === "active") scopes.set(pair(workspaceId, userId), { workspaceId, userId })
  }
  return {
    workspaceIds: [...workspaceIds],
    userIds: [...userIds],
    clientIds: [],
    projectIds: [...projectIds],
    entryIds,
    apiKeyIds: [],
    apiKeyDigests: [],
    userScopes: [...scopes.values()],
    assignments: []
  }
}

/**
 * Checks a batch of time entries (the elements `offset`, `offset + 1`, … of `$.timeEntries`) and fills in their
 * defaults. `stored` holds the ids of the batch that the store already has. Records the batch's ids and active
 * entries in the context, so later batches are checked against them.
 */
export const checkEntries = (
  context: Context,
  entries: ReadonlyArray<EntryInput>,
  offset: number,
  stored: ReadonlySet<string>
): Either.Either<Array<EntryRow>, AdminInputInvalid> => {
  const rows: Array<EntryRow> = []
  for (let n = 0; n < entries.length; n++) {
    // `n` is below `entries.length`.
    const e = entries[n] as EntryInput
    const at = `$.timeEntries[${offset + n}]`
    const id = lower(e.id), userId = lower(e.userId), entryWorkspace = lower(e.workspaceId)
    if (stored.has(id)) return fail(`${at}.id`, `${id} already exists`)
    if (!context.entryIds.add(id)) return fail(`${at}.id`, `duplicate timeEntries ${id}`)
    if (!context.workspaces.has(entryWorkspace)) return fail(`${at}.workspaceId`, "unknown workspace")
    if (!context.users.has(userId)) return fail(`${at}.userId`, "unknown user")
    const workspaceId = context.projectWorkspace.get(lower(e.projectId))
    if (workspaceId === undefined) return fail(`${at}.projectId`, "unknown project")
    if (workspaceId !== entryWorkspace) return fail(`${at}.projectId`, "project is in another workspace")
    const startedAt = parseTimestamp(e.startedAt) ?? 0
    const endedAt = e.endedAt === undefined || e.endedAt === null ? null : parseTimestamp(e.endedAt) ?? 0
    if (!isWritableInstant(startedAt)) return fail(`${at}.startedAt`, "is outside the years 0000 to 9999 in UTC")
    if (endedAt !== null && !isWritableInstant(endedAt)) {
      return fail(`${at}.endedAt`, "is outside the years 0000 to 9999 in UTC")
    }
    if (e.status === "active") {
      if (endedAt !== null) return fail(`${at}.endedAt`, "must be null while the entry is active")
      const key = pair(workspaceId, userId)
      if (context.active.has(key)) return fail(`${at}.status`, "a second active entry for this user and workspace")
      context.active.add(key)
    } else {
      if (endedAt === null) return fail(`${at}.endedAt`, `required when the status is ${e.status}`)
      if (endedAt < startedAt) return fail(`${at}.endedAt`, "must not be before startedAt")
    }
    rows.push({
      id,
      workspaceId,
      userId,
      projectId: lower(e.projectId),
      status: e.status,
      billable: e.billable ?? true,
      note: e.note ?? null,
      startedAt,
      endedAt,
      payRateCents: e.payRateCents ?? context.rates.get(pair(workspaceId, userId)) ?? 0
    })
  }
  return Either.right(rows)
}

/**
 * The ids and pairs a small file refers to or introduces, plus those of its first entries, so that one lookup
 * serves a fixture that fits in one batch.
 */
export const refsOf = (
  file: SmallFile,
  entries: ReadonlyArray<EntryInput>,
  digests: ReadonlyArray<string>
): DatasetRefs => {
  const scopes = new Map<string, UserScope>()
  const addScope = (workspaceId: string, userId: string) =>
    scopes.set(pair(lower(workspaceId), lower(userId)), { workspaceId: lower(workspaceId), userId: lower(userId) })
  for (const m of file.memberships ?? []) addScope(m.workspaceId, m.userId)
  for (const e of entries) addScope(e.workspaceId, e.userId)
  for (const k of file.apiKeys ?? []) addScope(k.workspaceId, k.userId)
  return {
    workspaceIds: [
      ...(file.workspaces ?? []).map((w) => w.id),
      ...(file.memberships ?? []).map((m) => m.workspaceId),
      ...(file.clients ?? []).map((c) => c.workspaceId),
      ...(file.apiKeys ?? []).map((k) => k.workspaceId),
      ...entries.map((e) => e.workspaceId)
    ].map(lower),
    userIds: [
      ...(file.users ?? []).map((u) => u.id),
      ...(file.memberships ?? []).map((m) => m.userId),
      ...(file.assignments ?? []).map((a) => a.userId),
      ...(file.apiKeys ?? []).map((k) => k.userId),
      ...entries.map((e) => e.userId)
    ].map(lower),
    clientIds: [...(file.clients ?? []).map((c) => c.id), ...(file.projects ?? []).map((p) => p.clientId)].map(lower),
    projectIds: [
      ...(file.projects ?? []).map((p) => p.id),
      ...(file.assignments ?? []).map((a) => a.projectId),
      ...entries.map((e) => e.projectId)
    ].map(lower),
    entryIds: entries.map((e) => lower(e.id)),
    apiKeyIds: (file.apiKeys ?? []).flatMap((k) => k.id === undefined ? [] : [lower(k.id)]),
    apiKeyDigests: digests,
    userScopes: [...scopes.values()],
    assignments: (file.assignments ?? []).map((a) => ({ projectId: lower(a.projectId), userId: lower(a.userId) }))
  }
}
