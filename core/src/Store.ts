/**
 * The storage port: what an adapter must provide so that the core can keep every promise of the spec.
 *
 * The transaction boundary. Each public operation needs at most one atomic step, and the port offers exactly those
 * steps, never row-by-row writes the core would have to glue together:
 *
 * - `authenticate` finds the key by its digest and, when the key authenticates, counts the request under the rate
 *   limit: one atomic step per request (Postgres: one statement; SQLite: one immediate transaction of prepared
 *   statements).
 * - `withTimerTransaction(scope, body)` is the only way to change timers. The adapter runs `body` inside one storage
 *   transaction that holds a lock on the user and workspace for its whole duration (Postgres: an advisory transaction
 *   lock; SQLite: `BEGIN IMMEDIATE`; memory: a semaphore). Inside, `body` reads one snapshot (the stored idempotency
 *   record, the running entry, the entry or project asked for) and writes one set of changes (finish the running
 *   entry, insert the new one, store the idempotency record). Because every mutation of a user's timers serialises on
 *   that lock, two instances can never both see "no running timer", and the second request with an idempotency key
 *   waits for the first and then reads its committed record: replay or conflict, never a second execution. Because the
 *   record is written in the same transaction as the change, they commit together or not at all. The database's
 *   partial unique index on active entries backs the lock up.
 * - `createProject` is one statement: insert the project only if its client is active in the workspace, and assign
 *   the creator.
 * - Reads are single statements with no lock.
 *
 * Adapters never let their own errors escape: every failure is a `StoreError` (or, on the admin side, a
 * `RecordConflict` for a uniqueness rule the database enforced).
 *
 * What else an adapter must know:
 *
 * - Lists (`listClients`, `listProjects`, `lookup`'s arrays) may come back in any order: the core sorts. Entries
 *   (`listEntries`) must come in (`startedAt` desc, `id` desc) order, strictly after `after`.
 * - In a timer transaction `write` is called at most once, after `read`. If `body` fails (before or after `write`),
 *   nothing it wrote may remain.
 * - `cursorSecret` must be the same for every instance on the store and survive restarts, or issued cursors stop
 *   working.
 * - `admin.bulk` (optional) stores a load of any size all or nothing: the core looks rows up and inserts them a
 *   batch at a time inside it, with the same refusals as `admin.insert`; nothing remains unless the whole load is
 *   stored.
 * - `admin.insert` must refuse, with `RecordConflict` and nothing written, a row whose id is taken (any kind), an API
 *   key digest that is taken, a second membership of a user in a workspace, a second assignment of a user to a
 *   project, and a second active entry for a user in a workspace. The core checks these against `lookup` first; the
 *   store's own constraints catch what changed in between.
 * - A store is a layer providing this tag; the conformance kit (`@stint/conformance`) checks one:
 *
 * ```ts
 * export const layer = (options: Options): Layer.Layer<Store, StoreError> =>
 *   Layer.scoped(Store, Effect.map(open(options), (db): Store["Type"] => ({ authenticate: …, … })))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { Position } from "./Cursor.js"
import type { RecordConflict, StoreError } from "./Errors.js"
import type { IdempotencyRecord } from "./Idempotency.js"
import type { Policy } from "./RateLimit.js"
import type {
  ApiKeyInfo,
  ClientRecord,
  Dataset,
  DatasetRefs,
  EntryFinish,
  EntryRecord,
  EntryRow,
  ExistingRecords,
  KeyRecord,
  ProjectRecord,
  TrackingTarget,
  UserScope
} from "./Records.js"

/**
 * What a timer transaction reads, all in one go.
 *
 * @since 0.1.0
 */
export interface TimerQuery {
  /** The trimmed idempotency key, when the step is idempotent. */
  readonly idempotencyKey?: string | undefined
  /** An entry of the scope's user in the scope's workspace, looked up by id. */
  readonly entryId?: string | undefined
  /** A project of the scope's workspace, with the user's assignment. */
  readonly projectId?: string | undefined
}

/**
 * The answer to a `TimerQuery`, read inside the transaction after the lock was taken.
 *
 * @since 0.1.0
 */
export interface TimerSnapshot {
  readonly idempotency: Option.Option<IdempotencyRecord>
  /** The scope's active entry, if any. */
  readonly running: Option.Option<EntryRecord>
  /** The entry asked for, if it exists and belongs to the scope. */
  readonly entry: Option.Option<EntryRecord>
  /** The project asked for, if it exists in the scope's workspace (archived or not, assigned or not). */
  readonly project: Option.Option<TrackingTarget>
}

/**
 * The changes of one timer transaction, applied together. Adapters apply `finish` before `insert` (the new active
 * entry may replace the finished one under the one-active-entry rule).
 *
 * @since 0.1.0
 */
export interface TimerChanges {
  readonly finish?: EntryFinish | undefined
  readonly insert?: EntryRow | undefined
  readonly moveStart?: { readonly id: string; readonly startedAt: number } | undefined
  /** Stored under the scope; replaces an expired record of the same key. */
  readonly idempotency?: IdempotencyRecord | undefined
  /** Idempotency records created before this time (epoch ms) may be deleted, in any scope. */
  readonly forgetIdempotencyBefore?: number | undefined
}

/**
 * The two things a timer transaction can do: read once, write once.
 *
 * @since 0.1.0
 */
export interface TimerTransaction {
  readonly read: (query: TimerQuery) => Effect.Effect<TimerSnapshot, StoreError>
  readonly write: (changes: TimerChanges) => Effect.Effect<void, StoreError>
}

/**
 * One load that is filled batch by batch and stored all or nothing (see `AdminStore.bulk`).
 *
 * @since 0.1.0
 */
export interface BulkTransaction {
  /**
   * `AdminStore.lookup` during the load. Rows of the load's earlier batches may or may not count as stored (a store
   * that writes the batches as they come sees them, one that stages them does not): the caller keeps track of the
   * rows it inserted, as the core does. It fails with the failure of the previous `insert` when the store reports
   * that one late (see `insert`).
   */
  readonly lookup: (refs: DatasetRefs) => Effect.Effect<ExistingRecords, StoreError | RecordConflict>
  /**
   * Adds a batch of rows. A row's parents come in the same or an earlier batch, or are already stored. The same
   * rules as `AdminStore.insert` hold: a constraint the store enforces refuses the load with `RecordConflict` (or
   * `StoreError`) naming the row, and nothing of the load remains. A store may return before the batch is written (so
   * that it is written while the caller prepares the next one) and report its failure with the next `lookup` or
   * `insert`, or as the failure of `bulk` itself; never later, and never after reporting anything that came after.
   * A store that stages the load checks it as it copies it, so it reports every refusal as the failure of `bulk`.
   */
  readonly insert: (dataset: Dataset) => Effect.Effect<void, StoreError | RecordConflict>
}

/**
 * The admin side of the port: whole datasets in, and the few updates operators need.
 *
 * @since 0.1.0
 */
export interface AdminStore {
  /** Whether the store holds any workspace at all (`stint serve --demo` seeds only an empty store). */
  readonly hasWorkspaces: Effect.Effect<boolean, StoreError>
  /** Which of the referenced ids and pairs already exist. */
  readonly lookup: (refs: DatasetRefs) => Effect.Effect<ExistingRecords, StoreError>
  /** Inserts every row in one transaction; nothing is written on failure. */
  readonly insert: (dataset: Dataset) => Effect.Effect<void, StoreError | RecordConflict>
  /**
   * Optional: runs `body`, which fills one load in batches, for loads too large to pass as one dataset (`stint seed`
   * of a million time entries), all or nothing: the load is stored only when `body` succeeds and the store accepts
   * every row; otherwise (a refused row, `body` failing, dying or interrupted) nothing of it remains. A store may
   * write the batches as they come inside one write transaction (PostgreSQL), or stage them elsewhere and copy them
   * in one transaction at the end (SQLite, to hold its one write lock for the copy only). Staged, its lookups are not
   * one snapshot: as with `lookup` before `insert`, the store's constraints refuse what another writer stored
   * meanwhile, and nothing else is checked again. The load is not bound by the timeouts meant for requests. Stores
   * without it still load large fixtures, all or nothing, through one `insert` of every batch at the end.
   */
  readonly bulk?: <A, E, R>(
    body: (tx: BulkTransaction) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreError | RecordConflict, R>
  /** Sets a client's or project's archive flag; `false` when no such record exists. */
  readonly setArchived: (
    entity: "client" | "project",
    id: string,
    archived: boolean
  ) => Effect.Effect<boolean, StoreError>
  /** Removes a membership; `false` when there was none. */
  readonly removeMembership: (scope: UserScope) => Effect.Effect<boolean, StoreError>
  /** Marks a key revoked at `at` unless it already is; `false` when no such key exists. */
  readonly revokeApiKey: (id: string, at: number) => Effect.Effect<boolean, StoreError>
  readonly listApiKeys: (filter: {
    readonly workspaceId?: string | undefined
    readonly userId?: string | undefined
  }) => Effect.Effect<ReadonlyArray<ApiKeyInfo>, StoreError>
  /** The user and workspace an entry belongs to. */
  readonly findEntryScope: (entryId: string) => Effect.Effect<Option.Option<UserScope>, StoreError>
}

/**
 * A new project with the creator's assignment.
 *
 * @since 0.1.0
 */
export interface NewProject {
  readonly id: string
  readonly workspaceId: string
  readonly clientId: string
  readonly name: string
  readonly color: string
  readonly creatorUserId: string
  readonly creatorRateCents: number
}

/**
 * A page request of a user's history, in (`startedAt` desc, `id` desc) order.
 *
 * @since 0.1.0
 */
export interface EntriesQuery {
  readonly projectId: string | null
  /** Continue strictly after this position. */
  readonly after: Position | null
  readonly limit: number
}

/**
 * A read `Store.authenticate` may do in the same step, for the found key's own scope (the key's user in the key's
 * workspace): its active entry (`GET /timer`), or a page of its history (`GET /time-entries`). It saves the request a
 * second store step (on PostgreSQL, a second round trip). The core uses the answer only once the request has passed
 * every check, and asks the ordinary way (`findActiveEntry`, `listEntries`) when the store did not answer it. A store
 * may answer either kind, both or neither.
 *
 * @since 0.1.0
 */
export type ReadAlong = ReadAlong.ActiveEntry | ReadAlong.EntriesPage

/**
 * @since 0.1.0
 */
export declare namespace ReadAlong {
  /**
   * The scope's active entry: what `findActiveEntry` answers.
   *
   * @since 0.1.0
   */
  export interface ActiveEntry {
    readonly _tag: "ActiveEntry"
  }
  /**
   * A page of the scope's history: what `listEntries` answers for `query`. The core asks for it before it has
   * verified the request's cursor (the key is not known yet), and takes the answer only if the verified position is
   * `query.after`.
   *
   * @since 0.1.0
   */
  export interface EntriesPage {
    readonly _tag: "EntriesPage"
    readonly query: EntriesQuery
  }
}

/**
 * What `Store.authenticate` answers for a stored key.
 *
 * @since 0.1.0
 */
export interface Authenticated {
  /** The key, with its user's current membership in the key's workspace. */
  readonly key: KeyRecord
  /**
   * Whether the request was accepted and counted under the rate limit. When the key does not authenticate at `now`
   * (`ApiKey.refusal` is `Some`: revoked, expired, or no membership) nothing is counted and this is `false`.
   */
  readonly accepted: boolean
  /**
   * The answer to a `ReadAlong` of `ActiveEntry`, if the store read it: exactly what `findActiveEntry` answers for
   * the key's scope. Absent when the store does not read along (the core then calls `findActiveEntry`).
   */
  readonly activeEntry?: Option.Option<EntryRecord> | undefined
  /**
   * The answer to a `ReadAlong` of `EntriesPage`, if the store read it: exactly what `listEntries` answers for the
   * key's scope and the page's query. Absent when the store does not read along (the core then calls `listEntries`).
   */
  readonly entries?: ReadonlyArray<EntryRecord> | undefined
}

/**
 * What `Store.authenticateInTimerTransaction` authenticates: the arguments of `Store.authenticate`.
 *
 * @since 0.1.0
 */
export interface TimerAuthentication {
  readonly digest: string
  readonly now: number
  readonly policy: Policy
}

/**
 * The storage port.
 *
 * @since 0.1.0
 */
export class Store extends Context.Tag("@stint/core/Store")<Store, {
  /**
   * Authentication and the rate limit in one atomic step: the API key with this SHA-256 digest (hex), with its user's
   * current membership (`None` when no key has the digest); and, only when that key authenticates at `now`
   * (`ApiKey.refusal(key, now)` is `None`), the request accepted and counted if the key's window has room under
   * `policy`, as `RateLimit.decide` defines it. Counted across every instance that shares the store. The key is read
   * in the same step, so a revocation or a removed membership refuses the key at once. With `along`, the store may
   * also answer that read for the key's scope in the same step (`Authenticated.activeEntry`); ignoring it is always
   * correct.
   */
  readonly authenticate: (
    digest: string,
    now: number,
    policy: Policy,
    along?: ReadAlong | undefined
  ) => Effect.Effect<Option.Option<Authenticated>, StoreError>
  /** The secret that signs cursors, shared by every instance on this store (created on first use). */
  readonly cursorSecret: Effect.Effect<Uint8Array, StoreError>

  /** The workspace's unarchived clients, with whether the user has an assigned unarchived project in each. */
  readonly listClients: (scope: UserScope) => Effect.Effect<ReadonlyArray<ClientRecord>, StoreError>
  /** The projects of `clientId` in the scope's workspace that the user is assigned to (archived ones included). */
  readonly listProjects: (scope: UserScope, clientId: string) => Effect.Effect<ReadonlyArray<ProjectRecord>, StoreError>
  /** Inserts the project and the creator's assignment if the client is unarchived in the workspace; else `None`. */
  readonly createProject: (project: NewProject) => Effect.Effect<Option.Option<ProjectRecord>, StoreError>
  /** The scope's active entry. */
  readonly findActiveEntry: (scope: UserScope) => Effect.Effect<Option.Option<EntryRecord>, StoreError>
  /** Up to `limit` entries of the scope (every status, any project), newest first. */
  readonly listEntries: (scope: UserScope, query: EntriesQuery) => Effect.Effect<ReadonlyArray<EntryRecord>, StoreError>
  /** Runs `body` in one transaction holding the scope's lock; see the module docs. */
  readonly withTimerTransaction: <A, E, R>(
    scope: UserScope,
    body: (tx: TimerTransaction) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreError, R>
  /**
   * Optional: `authenticate` and `withTimerTransaction` as one step, so that a start or a stop can cost a store one
   * step fewer (on PostgreSQL, one round trip and one commit fewer). The store authenticates exactly as `authenticate`
   * (without a read along) and hands the answer to `body`, which runs in one transaction holding the lock of the found
   * key's scope (the key's user in the key's workspace), whatever the answer: `body` makes every check and must not
   * use `tx` when the key is refused. The rate-limit count is kept whatever `body` answers, as `authenticate`'s is
   * (only a failure of the store itself may lose it, together with the rest of the step). `tx.read` of `expected`
   * may be answered by a read the store made along with the authentication; any other query is read as usual.
   *
   * A store without it is asked the usual way, `authenticate` then `withTimerTransaction`; a wrapper that does not
   * know it leaves it out, and stays correct.
   */
  readonly authenticateInTimerTransaction?: <A, E, R>(
    authentication: TimerAuthentication,
    expected: TimerQuery,
    body: (found: Option.Option<Authenticated>, tx: TimerTransaction) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreError, R>

  readonly admin: AdminStore

  /**
   * Succeeds when the store can serve (readiness probes): its storage answers, and is still the storage it opened, with
   * the schema it needs (an adapter fails it when, say, the database was re-created under it, or its migrations are
   * missing).
   */
  readonly ping: Effect.Effect<void, StoreError>
}>() {}
