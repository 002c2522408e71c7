/**
 * The operations of the website side and of operators: creating workspaces, users, memberships, clients, projects,
 * assignments and API keys (through the fixture loader's rules), archiving, removing memberships, revoking keys,
 * voiding entries and moving an entry's start (through the same timer transaction as the public operations).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { AdminInputInvalid, RecordConflict, RecordNotFound, type StoreError } from "./Errors.js"
import * as Fixture from "./Fixture.js"
import * as FixtureSource from "./FixtureSource.js"
import * as Ids from "./Ids.js"
import * as Import from "./internal/fixtureImport.js"
import {
  type ApiKeyInfo,
  type AssignmentRow,
  type Dataset,
  emptyRefs,
  type EntryRecord,
  type MembershipRow,
  type UserScope
} from "./Records.js"
import { DEFAULT_COLOR, isWritableInstant, parseTimestamp, type Role, type Scope, type TimeEntry } from "./Schemas.js"
import { Store, type TimerChanges } from "./Store.js"
import * as TimerRules from "./TimerRules.js"

type LoadError = AdminInputInvalid | RecordConflict | StoreError

/** Loads a fixture of one record and answers the row written, as stored: ids lowercased, defaults filled in. */
const loadRow = <A>(
  file: Fixture.FixtureFile,
  rowOf: (rows: Omit<Dataset, "timeEntries">) => A | undefined,
  what: string
): Effect.Effect<A, LoadError, Store> =>
  Effect.flatMap(Import.loadRowsFrom(FixtureSource.fromValue(file)), ({ rows }) => {
    const row = rowOf(rows)
    return row === undefined
      ? Effect.fail(new AdminInputInvalid({ path: "$", message: `no ${what} was made` }))
      : Effect.succeed(row)
  })

const withId = (id: string | undefined) => id === undefined ? Ids.next : Effect.succeed(id.toLowerCase())

/** @since 0.1.0 */
export const createWorkspace = (input: { readonly id?: string; readonly name: string }) =>
  Effect.gen(function*() {
    const id = yield* withId(input.id)
    yield* Fixture.load({ workspaces: [{ id, name: input.name }] })
    return { id, name: input.name }
  })

/** @since 0.1.0 */
export const createUser = (input: { readonly id?: string; readonly name: string; readonly email: string }) =>
  Effect.gen(function*() {
    const id = yield* withId(input.id)
    yield* Fixture.load({ users: [{ id, name: input.name, email: input.email }] })
    return { id, name: input.name, email: input.email }
  })

/**
 * Whether the store holds any workspace (an empty store is where a demo may be seeded).
 *
 * @since 0.1.0
 */
export const hasWorkspaces: Effect.Effect<boolean, StoreError, Store> = Effect.flatMap(
  Store,
  (store) => store.admin.hasWorkspaces
)

/**
 * Makes a user a member of a workspace with a role and a default pay rate (default 0).
 *
 * @since 0.1.0
 */
export const addMembership = (
  input: UserScope & { readonly role: Role; readonly payRateCents?: number }
): Effect.Effect<MembershipRow, LoadError, Store> =>
  loadRow({ memberships: [input] }, (rows) => rows.memberships[0], "membership")

/**
 * Removes a membership; the user's keys for that workspace are revoked first, so that they stop authenticating at once
 * and adding the membership again does not bring them back (the user gets new keys). A removal cut short after the
 * revocation leaves the membership with its keys revoked, and running it again finishes it. Keys are revoked a second
 * time after the removal, for a key created meanwhile; one created once the membership is gone (a key may be made
 * before its membership) is left alone. Nothing is revoked when there is no such membership (`RecordNotFound`).
 *
 * @since 0.1.0
 */
export const removeMembership = (scope: UserScope) =>
  Effect.gen(function*() {
    const { admin } = yield* Store
    const pair = { workspaceId: scope.workspaceId.toLowerCase(), userId: scope.userId.toLowerCase() }
    const notFound = new RecordNotFound({ entity: "membership", id: `${scope.workspaceId}/${scope.userId}` })
    const stored = yield* admin.lookup({ ...emptyRefs, userIds: [pair.userId] })
    if (!stored.memberships.some((m) => m.workspaceId === pair.workspaceId && m.userId === pair.userId)) {
      return yield* notFound
    }
    const now = yield* Clock.currentTimeMillis
    const revokeKeys = Effect.gen(function*() {
      let revoked = 0
      for (const key of yield* admin.listApiKeys(pair)) {
        if (key.revokedAt === null && (yield* admin.revokeApiKey(key.id, now))) revoked++
      }
      return revoked
    })
    const before = yield* revokeKeys
    if (!(yield* admin.removeMembership(pair))) return yield* notFound
    const keysRevoked = before + (yield* revokeKeys)
    return { ...pair, removed: true, keysRevoked }
  })

/** @since 0.1.0 */
export const createClient = (
  input: { readonly id?: string; readonly workspaceId: string; readonly name: string; readonly color?: string | null }
) =>
  Effect.gen(function*() {
    const id = yield* withId(input.id)
    // As stored: ids in lowercase, the default color when none is given.
    const summary = { id, workspaceId: input.workspaceId.toLowerCase(), name: input.name, color: input.color ?? DEFAULT_COLOR }
    yield* Fixture.load({ clients: [summary] })
    return summary
  })

/**
 * Creates a project without assigning anyone (the public createProject assigns its creator).
 *
 * @since 0.1.0
 */
export const createProject = (
  input: { readonly id?: string; readonly clientId: string; readonly name: string; readonly color?: string | null }
) =>
  Effect.gen(function*() {
    const id = yield* withId(input.id)
    const summary = { id, clientId: input.clientId.toLowerCase(), name: input.name, color: input.color ?? DEFAULT_COLOR }
    yield* Fixture.load({ projects: [summary] })
    return summary
  })

/**
 * Assigns a user to a project at a rate (default: the membership's default rate), answering the assignment as stored:
 * ids lowercased, the rate the default gave when none was passed.
 *
 * @since 0.1.0
 */
export const assign = (input: {
  readonly projectId: string
  readonly userId: string
  readonly payRateCents?: number
}): Effect.Effect<AssignmentRow, LoadError, Store> =>
  loadRow({ assignments: [input] }, (rows) => rows.assignments[0], "assignment")

/**
 * Archives (or restores) a client or a project.
 *
 * @since 0.1.0
 */
export const setArchived = (entity: "client" | "project", id: string, archived: boolean) =>
  Effect.gen(function*() {
    const found = yield* (yield* Store).admin.setArchived(entity, id.toLowerCase(), archived)
    if (!found) return yield* new RecordNotFound({ entity, id })
    return { entity, id: id.toLowerCase(), archived }
  })

/**
 * Creates an API key (all five scopes unless given) and returns its plaintext, the only time it is shown.
 *
 * @since 0.1.0
 */
export const createApiKey = (input: UserScope & {
  readonly scopes?: ReadonlyArray<Scope>
  readonly createdAt?: string
}): Effect.Effect<Fixture.Summary["apiKeys"][number], LoadError, Store> =>
  Effect.gen(function*() {
    const summary = yield* Fixture.load({ apiKeys: [input] })
    const [key] = summary.apiKeys
    if (key === undefined) return yield* new AdminInputInvalid({ path: "$", message: "no key was created" })
    return key
  })

/** @since 0.1.0 */
export const listApiKeys = (filter: { readonly workspaceId?: string; readonly userId?: string }) =>
  Effect.flatMap(Store, (store) =>
    store.admin.listApiKeys({
      workspaceId: filter.workspaceId?.toLowerCase(),
      userId: filter.userId?.toLowerCase()
    })) satisfies Effect.Effect<ReadonlyArray<ApiKeyInfo>, StoreError, Store>

/**
 * Revokes a key; it is refused from this instant on.
 *
 * @since 0.1.0
 */
export const revokeApiKey = (id: string) =>
  Effect.gen(function*() {
    const store = yield* Store
    const revoked = yield* store.admin.revokeApiKey(id.toLowerCase(), yield* Clock.currentTimeMillis)
    if (!revoked) return yield* new RecordNotFound({ entity: "apiKey", id })
    return { id: id.toLowerCase(), revoked: true }
  })

const changeEntry = <E>(
  entryId: string,
  change: (entry: EntryRecord, now: number) => Either.Either<
    { readonly changes: TimerChanges; readonly entry: EntryRecord },
    E
  >
): Effect.Effect<TimeEntry, E | RecordNotFound | StoreError, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    const id = entryId.toLowerCase()
    const scope = yield* store.admin.findEntryScope(id)
    if (Option.isNone(scope)) return yield* new RecordNotFound({ entity: "timeEntry", id: entryId })
    return yield* store.withTimerTransaction(scope.value, (tx) =>
      Effect.gen(function*() {
        const snapshot = yield* tx.read({ entryId: id })
        if (Option.isNone(snapshot.entry)) return yield* new RecordNotFound({ entity: "timeEntry", id: entryId })
        const changed = yield* change(snapshot.entry.value, yield* Clock.currentTimeMillis)
        yield* tx.write(changed.changes)
        return TimerRules.toTimeEntry(changed.entry)
      })
    )
  })

/**
 * Voids an entry. An active entry ends at this moment; voiding twice is a conflict.
 *
 * @since 0.1.0
 */
export const voidEntry = (entryId: string) =>
  changeEntry(entryId, (entry, now) =>
    Either.match(TimerRules.voidEntry(entry, now), {
      onLeft: (reason) => Either.left(new RecordConflict({ entity: "timeEntry", id: entry.id, reason })),
      onRight: (finish) =>
        Either.right({ changes: { finish }, entry: { ...entry, status: finish.status, endedAt: finish.endedAt } })
    }))

/**
 * Moves an entry's start (an RFC 3339 timestamp); pagination cursors are not snapshots, so this may move the entry
 * across a page boundary.
 *
 * @since 0.1.0
 */
export const moveEntryStart = (entryId: string, startedAt: string) =>
  Effect.gen(function*() {
    const at = parseTimestamp(startedAt)
    if (at === undefined || !isWritableInstant(at)) {
      return yield* new AdminInputInvalid({
        path: "$.startedAt",
        message: "must be an RFC 3339 timestamp within the years 0000 to 9999 in UTC"
      })
    }
    return yield* changeEntry(entryId, (entry, now) =>
      Either.match(TimerRules.moveStart(entry, at, now), {
        onLeft: (reason) => Either.left(new AdminInputInvalid({ path: "$.startedAt", message: reason })),
        onRight: (moveStart) => Either.right({ changes: { moveStart }, entry: { ...entry, startedAt: at } })
      }))
  })
