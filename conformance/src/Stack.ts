/**
 * What an adapter author hands the kit: a running Stint (its seven operations, a way to load fixtures and to cause
 * the admin events the spec mentions, and a clock) plus a declaration of what it supports. The kit branches only on
 * that declaration, never on an adapter's name.
 *
 * @since 0.1.0
 */
import type { Fixture, Records, Request, Store } from "@stint/core"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/**
 * The seven operations of the spec, by their operation ids.
 *
 * @since 0.1.0
 */
export type OperationName =
  | "listClients"
  | "listProjects"
  | "createProject"
  | "getActiveTimer"
  | "startTimer"
  | "stopTimer"
  | "listTimeEntries"

/** @since 0.1.0 */
export const operations: ReadonlyArray<OperationName> = [
  "listClients",
  "listProjects",
  "createProject",
  "getActiveTimer",
  "startTimer",
  "stopTimer",
  "listTimeEntries"
]

/**
 * One answer, as the kit compares it with the spec.
 *
 * @since 0.1.0
 */
export interface Outcome {
  readonly status: number
  /** The parsed JSON body. */
  readonly body: unknown
  /** The body exactly as sent, for byte-for-byte replay checks. */
  readonly text: string
  /** Start and stop: whether the answer replayed a stored response (`Idempotent-Replayed: true` over HTTP). */
  readonly replayed?: boolean | undefined
  /** Lower-cased response headers, when the stack speaks HTTP. */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/**
 * What a stack supports. Every flag changes what the kit checks. (Several processes on one store need no flag: a
 * stack that spreads its requests over them, like `HttpStack.remote`, makes every check, races included, cross them.)
 *
 * @since 0.1.0
 */
export interface Capabilities {
  /**
   * The stack answers over HTTP: every answer must then carry its headers, and they are checked (`X-Request-Id` equal
   * to `requestId`, no `Retry-After`, `Idempotent-Replayed` on replays).
   */
  readonly http: boolean
  /**
   * The stack's clock is the kit's `clock` (time moves only when the kit advances it), so time-dependent rules (key
   * expiry, idempotency retention, sliding rate windows, elapsed seconds) are checked exactly and the model-based run
   * can compare every field.
   */
  readonly controlledClock: boolean
  /** Requests may really overlap (the kit then runs its race checks with real concurrency). */
  readonly concurrent: boolean
  /**
   * The stack exposes the `Store` under test (`Stack.store`): the kit then also checks laws of the storage port on it
   * directly (a read made along with authentication, or inside it, answers exactly what the ordinary read answers, and
   * the request is counted exactly once). `CoreStack` declares it.
   */
  readonly store?: boolean | undefined
  /**
   * The stack's backdoor writes rows into storage past the adapter (`Backdoor.insertEntry`): the kit then checks that
   * the storage itself refuses a second active entry for a user and workspace, whatever the adapter's code does (its
   * lock keeps every operation right even when the database would accept one, until some other writer, a migration
   * or a second program on the same database, writes past it).
   */
  readonly storageWrites?: boolean | undefined
}

/**
 * The admin events of the spec and of the decisions page, which change what the seven operations see.
 *
 * @since 0.1.0
 */
export interface AdminEvents {
  readonly setArchived: (entity: "client" | "project", id: string, archived: boolean) => Effect.Effect<void>
  readonly removeMembership: (workspaceId: string, userId: string) => Effect.Effect<void>
  readonly revokeKey: (keyId: string) => Effect.Effect<void>
  readonly voidEntry: (entryId: string) => Effect.Effect<void>
  /** Moves an entry's start (epoch ms). */
  readonly moveEntryStart: (entryId: string, startedAt: number) => Effect.Effect<void>
}

/**
 * Reads stored state without going through the operations (like Auth.js's adapter tests), when the stack can.
 *
 * @since 0.1.0
 */
export interface Backdoor {
  /** Ids of the active entries of a user in a workspace, straight from the store. */
  readonly activeEntryIds: (workspaceId: string, userId: string) => Effect.Effect<ReadonlyArray<string>>
  /** How many entries a user has in a workspace, every status. */
  readonly entryCount: (workspaceId: string, userId: string) => Effect.Effect<number>
  /**
   * Writes an entry straight into storage (plain SQL, say), past the adapter's code: `refused` when the storage
   * itself rejects the row (a constraint), `stored` otherwise. Required by `storageWrites`.
   */
  readonly insertEntry?: ((row: Records.EntryRow) => Effect.Effect<"stored" | "refused">) | undefined
}

/**
 * A storage adapter's service: what a `Store` layer provides.
 *
 * @since 0.1.0
 */
export type StoreService = Store.Store["Type"]

/**
 * A running Stint under test.
 *
 * @since 0.1.0
 */
export interface Stack {
  /** Performs an operation with raw input; never fails (transport faults are defects). */
  readonly call: (operation: OperationName, request: Request.ApiRequest) => Effect.Effect<Outcome>
  /** Loads a fixture (`cli-and-fixtures.md` format) through the admin path; fails on an invalid fixture. */
  readonly seed: (fixture: unknown) => Effect.Effect<Fixture.Summary, unknown>
  readonly admin: AdminEvents
  /** The clock the stack runs on. `advance` is only called when `controlledClock` is declared. */
  readonly clock: {
    readonly now: Effect.Effect<number>
    readonly advance: (millis: number) => Effect.Effect<void>
  }
  readonly backdoor?: Backdoor | undefined
  /** The store under test, asked directly by the store laws; present when `store` is declared. */
  readonly store?: StoreService | undefined
}

/**
 * Builds a fresh stack; its scope closes it. The kit builds one per test file section and isolates tests by giving
 * each its own workspaces, users and keys (workspaces are isolated tenants).
 *
 * @since 0.1.0
 */
export type MakeStack = Effect.Effect<Stack, unknown, Scope.Scope>

/**
 * What an adapter hands the kit: how to build a stack, and what it supports, declared before anything runs so the
 * kit registers exactly the checks that apply.
 *
 * @since 0.1.0
 */
export interface Definition {
  readonly capabilities: Capabilities
  readonly make: MakeStack
}
