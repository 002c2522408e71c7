/**
 * The fixture file of `cli-and-fixtures.md`: its schema, its cross-row rules (checked against the file and against
 * what is already stored), its defaults, and loading it all or nothing. The admin operations create records through
 * the same path, so one set of rules guards every write that does not come through the public API.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as ApiKey from "./ApiKey.js"
import { AdminInputInvalid, type RecordConflict, type StoreError } from "./Errors.js"
import * as Ids from "./Ids.js"
import type { ApiKeyRow, Dataset, DatasetRefs, EntryRow, ExistingRecords, MembershipRow, UserScope } from "./Records.js"
import {
  Cents,
  Color,
  DEFAULT_COLOR,
  EntryStatus,
  isWritableInstant,
  NonEmptyName,
  Note,
  parseTimestamp,
  Role,
  Scope,
  SCOPES,
  Timestamp,
  Uuid
} from "./Schemas.js"
import { Store } from "./Store.js"

const strict = { parseOptions: { onExcessProperty: "error" as const } }
const Key = Schema.String.pipe(Schema.pattern(ApiKey.WELL_FORMED)).annotations({
  message: () => "must be stint_ followed by 16 to 200 base64url characters"
})

/**
 * The fixture file. Every top-level array is optional; unknown properties are refused.
 *
 * @since 0.1.0
 */
export const FixtureFile = Schema.Struct({
  workspaces: Schema.optional(Schema.Array(Schema.Struct({ id: Uuid, name: NonEmptyName }).annotations(strict))),
  users: Schema.optional(
    Schema.Array(Schema.Struct({ id: Uuid, name: NonEmptyName, email: NonEmptyName }).annotations(strict))
  ),
  memberships: Schema.optional(Schema.Array(
    Schema.Struct({ workspaceId: Uuid, userId: Uuid, role: Role, payRateCents: Schema.optional(Cents) })
      .annotations(strict)
  )),
  clients: Schema.optional(Schema.Array(
    Schema.Struct({
      id: Uuid,
      workspaceId: Uuid,
      name: NonEmptyName,
      color: Schema.optional(Schema.NullOr(Color)),
      archived: Schema.optional(Schema.Boolean)
    }).annotations(strict)
  )),
  projects: Schema.optional(Schema.Array(
    Schema.Struct({
      id: Uuid,
      clientId: Uuid,
      name: NonEmptyName,
      color: Schema.optional(Schema.NullOr(Color)),
      archived: Schema.optional(Schema.Boolean)
    }).annotations(strict)
  )),
  assignments: Schema.optional(Schema.Array(
    Schema.Struct({ projectId: Uuid, userId: Uuid, payRateCents: Schema.optional(Cents) }).annotations(strict)
  )),
  apiKeys: Schema.optional(Schema.Array(
    Schema.Struct({
      id: Schema.optional(Uuid),
      key: Schema.optional(Key),
      userId: Uuid,
      workspaceId: Uuid,
      scopes: Schema.optional(Schema.Array(Scope)),
      createdAt: Schema.optional(Timestamp),
      revoked: Schema.optional(Schema.Boolean)
    }).annotations(strict)
  )),
  timeEntries: Schema.optional(Schema.Array(
    Schema.Struct({
      id: Uuid,
      userId: Uuid,
      workspaceId: Uuid,
      projectId: Uuid,
      status: EntryStatus,
      billable: Schema.optional(Schema.Boolean),
      note: Schema.optional(Schema.NullOr(Note)),
      startedAt: Timestamp,
      endedAt: Schema.optional(Schema.NullOr(Timestamp)),
      payRateCents: Schema.optional(Cents)
    }).annotations(strict)
  ))
}).annotations({ identifier: "Fixture", ...strict })

/** @since 0.1.0 */
export type FixtureFile = typeof FixtureFile.Type

/**
 * What loading printed: every key of the fixture with its plaintext, and the rows loaded per kind.
 *
 * @since 0.1.0
 */
export interface Summary {
  readonly apiKeys: ReadonlyArray<{
    readonly id: string
    readonly key: string
    readonly userId: string
    readonly workspaceId: string
  }>
  readonly counts: { readonly [K in keyof Dataset]: number }
}

const jsonPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, part) => typeof part === "number" ? `${acc}[${part}]` : `${acc}.${String(part)}`, "$")

const invalid = (path: string, message: string) => new AdminInputInvalid({ path, message })

const lower = (id: string) => id.toLowerCase()
const pair = (a: string, b: string) => `${a} ${b}`

/**
 * Decodes a fixture, naming the JSON path of the first problem.
 *
 * @since 0.1.0
 */
export const decode = (input: unknown): Either.Either<FixtureFile, AdminInputInvalid> =>
  Either.mapLeft(Schema.decodeUnknownEither(FixtureFile, { onExcessProperty: "error" })(input), (error) => {
    const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
    return invalid(first === undefined ? "$" : jsonPath(first.path), first?.message ?? "invalid fixture")
  })

const refsOf = (file: FixtureFile, digests: ReadonlyArray<string>): DatasetRefs => {
  const scopes = new Map<string, UserScope>()
  const addScope = (workspaceId: string, userId: string) =>
    scopes.set(pair(lower(workspaceId), lower(userId)), { workspaceId: lower(workspaceId), userId: lower(userId) })
  for (const m of file.memberships ?? []) addScope(m.workspaceId, m.userId)
  for (const e of file.timeEntries ?? []) addScope(e.workspaceId, e.userId)
  for (const k of file.apiKeys ?? []) addScope(k.workspaceId, k.userId)
  return {
    workspaceIds: [
      ...(file.workspaces ?? []).map((w) => w.id),
      ...(file.memberships ?? []).map((m) => m.workspaceId),
      ...(file.clients ?? []).map((c) => c.workspaceId),
      ...(file.apiKeys ?? []).map((k) => k.workspaceId),
      ...(file.timeEntries ?? []).map((e) => e.workspaceId)
    ].map(lower),
    userIds: [
      ...(file.users ?? []).map((u) => u.id),
      ...(file.memberships ?? []).map((m) => m.userId),
      ...(file.assignments ?? []).map((a) => a.userId),
      ...(file.apiKeys ?? []).map((k) => k.userId),
      ...(file.timeEntries ?? []).map((e) => e.userId)
    ].map(lower),
    clientIds: [...(file.clients ?? []).map((c) => c.id), ...(file.projects ?? []).map((p) => p.clientId)].map(lower),
    projectIds: [
      ...(file.projects ?? []).map((p) => p.id),
      ...(file.assignments ?? []).map((a) => a.projectId),
      ...(file.timeEntries ?? []).map((e) => e.projectId)
    ].map(lower),
    entryIds: (file.timeEntries ?? []).map((e) => lower(e.id)),
    apiKeyIds: (file.apiKeys ?? []).flatMap((k) => k.id === undefined ? [] : [lower(k.id)]),
    apiKeyDigests: digests,
    userScopes: [...scopes.values()],
    assignments: (file.assignments ?? []).map((a) => ({ projectId: lower(a.projectId), userId: lower(a.userId) }))
  }
}

/**
 * Checks every cross-row rule and fills in the defaults, given what is already stored. Pure: `now` and the generated
 * ids and keys are passed in.
 *
 * @since 0.1.0
 */
export const toDataset = (
  file: FixtureFile,
  existing: ExistingRecords,
  generated: {
    readonly now: number
    readonly keys: ReadonlyArray<{ readonly id: string; readonly key: string; readonly digest: string }>
  }
): Either.Either<Dataset, AdminInputInvalid> => {
  const fail = (path: string, message: string) => Either.left(invalid(path, message))
  const unique = <A>(
    kind: string,
    rows: ReadonlyArray<A>,
    keyOf: (row: A) => string,
    taken: ReadonlyArray<string>,
    field: string
  ): Either.Either<ReadonlySet<string>, AdminInputInvalid> => {
    const seen = new Set<string>()
    const stored = new Set(taken)
    for (const [i, row] of rows.entries()) {
      const key = keyOf(row)
      if (seen.has(key)) return fail(`$.${kind}[${i}]${field}`, `duplicate ${kind} ${key}`)
      if (stored.has(key)) return fail(`$.${kind}[${i}]${field}`, `${key} already exists`)
      seen.add(key)
    }
    return Either.right(seen)
  }
  return Either.gen(function*() {
    const workspaces = yield* unique("workspaces", file.workspaces ?? [], (w) => lower(w.id), existing.workspaceIds, ".id")
    const users = yield* unique("users", file.users ?? [], (u) => lower(u.id), existing.userIds, ".id")
    const knownWorkspace = (id: string) => workspaces.has(lower(id)) || existing.workspaceIds.includes(lower(id))
    const knownUser = (id: string) => users.has(lower(id)) || existing.userIds.includes(lower(id))
    const need = (ok: boolean, path: string, message: string) => ok ? Either.right(undefined) : fail(path, message)

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
    const rates = new Map<string, number>()
    for (const m of [...existing.memberships, ...memberships]) rates.set(pair(m.workspaceId, m.userId), m.payRateCents)
    const defaultRate = (workspaceId: string, userId: string) => rates.get(pair(lower(workspaceId), lower(userId))) ?? 0

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
    const projectWorkspace = new Map(existing.projects.map((p) => [p.id, p.workspaceId]))
    const projects = []
    for (const [i, p] of projectRows.entries()) {
      const workspaceId = clientWorkspace.get(lower(p.clientId))
      if (workspaceId === undefined) return yield* fail(`$.projects[${i}].clientId`, "unknown client")
      projectWorkspace.set(lower(p.id), workspaceId)
      projects.push({
        id: lower(p.id),
        workspaceId,
        clientId: lower(p.clientId),
        name: p.name,
        color: p.color ?? DEFAULT_COLOR,
        archived: p.archived ?? false
      })
    }

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
      const workspaceId = projectWorkspace.get(lower(a.projectId))
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
    yield* unique("apiKeys", generated.keys, (k) => k.digest, existing.apiKeyDigests, ".key")
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

    // Time entries: endedAt is null exactly while active; one active entry per user and workspace.
    const entryRows = file.timeEntries ?? []
    yield* unique("timeEntries", entryRows, (e) => lower(e.id), existing.entryIds, ".id")
    const active = new Set(existing.activeEntries.map((s) => pair(s.workspaceId, s.userId)))
    const timeEntries: Array<EntryRow> = []
    for (const [i, e] of entryRows.entries()) {
      const at = `$.timeEntries[${i}]`
      yield* need(knownWorkspace(e.workspaceId), `${at}.workspaceId`, "unknown workspace")
      yield* need(knownUser(e.userId), `${at}.userId`, "unknown user")
      const workspaceId = projectWorkspace.get(lower(e.projectId))
      if (workspaceId === undefined) return yield* fail(`${at}.projectId`, "unknown project")
      yield* need(workspaceId === lower(e.workspaceId), `${at}.projectId`, "project is in another workspace")
      const startedAt = parseTimestamp(e.startedAt) ?? 0
      const endedAt = e.endedAt === undefined || e.endedAt === null ? null : parseTimestamp(e.endedAt) ?? 0
      yield* need(isWritableInstant(startedAt), `${at}.startedAt`, "is outside the years 0000 to 9999 in UTC")
      if (endedAt !== null) {
        yield* need(isWritableInstant(endedAt), `${at}.endedAt`, "is outside the years 0000 to 9999 in UTC")
      }
      if (e.status === "active") {
        yield* need(endedAt === null, `${at}.endedAt`, "must be null while the entry is active")
        const key = pair(workspaceId, lower(e.userId))
        yield* need(!active.has(key), `${at}.status`, "a second active entry for this user and workspace")
        active.add(key)
      } else {
        if (endedAt === null) return yield* fail(`${at}.endedAt`, `required when the status is ${e.status}`)
        yield* need(endedAt >= startedAt, `${at}.endedAt`, "must not be before startedAt")
      }
      timeEntries.push({
        id: lower(e.id),
        workspaceId,
        userId: lower(e.userId),
        projectId: lower(e.projectId),
        status: e.status,
        billable: e.billable ?? true,
        note: e.note ?? null,
        startedAt,
        endedAt,
        payRateCents: e.payRateCents ?? defaultRate(workspaceId, e.userId)
      })
    }

    return {
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
      apiKeys,
      timeEntries
    }
  })
}

/**
 * Loads a fixture (decoded or raw JSON) in one transaction: validated against itself and the store, all or nothing.
 *
 * @since 0.1.0
 */
export const load = (
  input: unknown
): Effect.Effect<Summary, AdminInputInvalid | RecordConflict | StoreError, Store> =>
  Effect.gen(function*() {
    const file = yield* decode(input)
    const store = yield* Store
    const now = yield* Clock.currentTimeMillis
    const keys = yield* Effect.forEach(file.apiKeys ?? [], (k) =>
      Effect.gen(function*() {
        const key = k.key ?? ApiKey.generate()
        return { id: k.id === undefined ? yield* Ids.next : lower(k.id), key, digest: yield* ApiKey.digest(key) }
      }))
    const existing = yield* store.admin.lookup(refsOf(file, keys.map((k) => k.digest)))
    const dataset = yield* toDataset(file, existing, { now, keys })
    yield* store.admin.insert(dataset)
    return {
      apiKeys: dataset.apiKeys.map((row, i) => ({
        id: row.id,
        key: keys[i]?.key ?? "",
        userId: row.userId,
        workspaceId: row.workspaceId
      })),
      counts: {
        workspaces: dataset.workspaces.length,
        users: dataset.users.length,
        memberships: dataset.memberships.length,
        clients: dataset.clients.length,
        projects: dataset.projects.length,
        assignments: dataset.assignments.length,
        apiKeys: dataset.apiKeys.length,
        timeEntries: dataset.timeEntries.length
      }
    }
  })
