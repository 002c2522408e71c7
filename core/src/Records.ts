/**
 * The plain rows that storage adapters read and write. They carry no behaviour: the core turns them into the spec's
 * resources and decides every rule, so an adapter only has to store and fetch them faithfully. Times are epoch
 * milliseconds; ids are lowercase UUIDs.
 *
 * @since 0.1.0
 */
import type { EntryStatus, Role, Scope } from "./Schemas.js"

/**
 * The user and workspace a request acts for (an API key's binding). Every read and write is confined to it.
 *
 * @since 0.1.0
 */
export interface UserScope {
  readonly workspaceId: string
  readonly userId: string
}

/**
 * An API key found by its digest, with the key user's *current* membership in the key's workspace.
 *
 * @since 0.1.0
 */
export interface KeyRecord {
  readonly id: string
  readonly userId: string
  readonly workspaceId: string
  readonly scopes: ReadonlyArray<Scope>
  readonly createdAt: number
  readonly revokedAt: number | null
  /** `null` when the user is not (or no longer) a member of the workspace. */
  readonly membership: { readonly role: Role; readonly payRateCents: number } | null
}

/**
 * An unarchived client of the workspace, with whether the user is assigned to at least one of its unarchived projects.
 *
 * @since 0.1.0
 */
export interface ClientRecord {
  readonly id: string
  readonly name: string
  readonly color: string
  readonly hasAssignedProject: boolean
}

/**
 * A project with the archive flags of itself and of its client.
 *
 * @since 0.1.0
 */
export interface ProjectRecord {
  readonly id: string
  readonly clientId: string
  readonly name: string
  readonly color: string
  readonly archived: boolean
  readonly clientArchived: boolean
}

/**
 * A project of the workspace as seen by one user for tracking: `assignedRateCents` is `null` when the user is not
 * assigned to it.
 *
 * @since 0.1.0
 */
export interface TrackingTarget extends ProjectRecord {
  readonly clientName: string
  readonly assignedRateCents: number | null
}

/**
 * A time entry joined with its project's and client's names and the project's color.
 *
 * @since 0.1.0
 */
export interface EntryRecord {
  readonly id: string
  readonly projectId: string
  readonly projectName: string
  readonly clientId: string
  readonly clientName: string
  readonly color: string
  readonly status: EntryStatus
  readonly billable: boolean
  readonly note: string | null
  readonly startedAt: number
  readonly endedAt: number | null
  readonly payRateCents: number
}

/**
 * A time entry as stored.
 *
 * @since 0.1.0
 */
export interface EntryRow {
  readonly id: string
  readonly workspaceId: string
  readonly userId: string
  readonly projectId: string
  readonly status: EntryStatus
  readonly billable: boolean
  readonly note: string | null
  readonly startedAt: number
  readonly endedAt: number | null
  readonly payRateCents: number
}

/**
 * The end of an entry: completed by a stop or a newer start, or voided.
 *
 * @since 0.1.0
 */
export interface EntryFinish {
  readonly id: string
  readonly status: "completed" | "voided"
  readonly endedAt: number
}

// ---------------------------------------------------------------------------------------------------------------------
// The admin side: whole datasets (fixtures and admin commands) and what already exists
// ---------------------------------------------------------------------------------------------------------------------

/** @since 0.1.0 */
export interface WorkspaceRow {
  readonly id: string
  readonly name: string
}

/** @since 0.1.0 */
export interface UserRow {
  readonly id: string
  readonly name: string
  readonly email: string
}

/** @since 0.1.0 */
export interface MembershipRow {
  readonly workspaceId: string
  readonly userId: string
  readonly role: Role
  readonly payRateCents: number
}

/** @since 0.1.0 */
export interface ClientRow {
  readonly id: string
  readonly workspaceId: string
  readonly name: string
  readonly color: string
  readonly archived: boolean
}

/** @since 0.1.0 */
export interface ProjectRow {
  readonly id: string
  readonly workspaceId: string
  readonly clientId: string
  readonly name: string
  readonly color: string
  readonly archived: boolean
}

/** @since 0.1.0 */
export interface AssignmentRow {
  readonly projectId: string
  readonly userId: string
  readonly payRateCents: number
}

/**
 * An API key as stored: only the SHA-256 digest (hex) of the plaintext.
 *
 * @since 0.1.0
 */
export interface ApiKeyRow {
  readonly id: string
  readonly digest: string
  readonly userId: string
  readonly workspaceId: string
  readonly scopes: ReadonlyArray<Scope>
  readonly createdAt: number
  readonly revokedAt: number | null
}

/**
 * Rows to insert together, all or nothing. The core has validated every reference and uniqueness rule it can see;
 * the database's own constraints catch races.
 *
 * @since 0.1.0
 */
export interface Dataset {
  readonly workspaces: ReadonlyArray<WorkspaceRow>
  readonly users: ReadonlyArray<UserRow>
  readonly memberships: ReadonlyArray<MembershipRow>
  readonly clients: ReadonlyArray<ClientRow>
  readonly projects: ReadonlyArray<ProjectRow>
  readonly assignments: ReadonlyArray<AssignmentRow>
  readonly apiKeys: ReadonlyArray<ApiKeyRow>
  readonly timeEntries: ReadonlyArray<EntryRow>
}

/**
 * A dataset with no rows: spread it and set the sections a dataset has.
 *
 * @since 0.1.0
 */
export const emptyDataset: Dataset = {
  workspaces: [],
  users: [],
  memberships: [],
  clients: [],
  projects: [],
  assignments: [],
  apiKeys: [],
  timeEntries: []
}

/**
 * The ids a dataset refers to or introduces, so the core can check them against what is already stored.
 *
 * @since 0.1.0
 */
export interface DatasetRefs {
  readonly workspaceIds: ReadonlyArray<string>
  readonly userIds: ReadonlyArray<string>
  readonly clientIds: ReadonlyArray<string>
  readonly projectIds: ReadonlyArray<string>
  readonly entryIds: ReadonlyArray<string>
  readonly apiKeyIds: ReadonlyArray<string>
  readonly apiKeyDigests: ReadonlyArray<string>
  /** Pairs whose active entry matters. */
  readonly userScopes: ReadonlyArray<UserScope>
  readonly assignments: ReadonlyArray<{ readonly projectId: string; readonly userId: string }>
}

/**
 * Refs to nothing: spread it and set the ids to look up.
 *
 * @since 0.1.0
 */
export const emptyRefs: DatasetRefs = {
  workspaceIds: [],
  userIds: [],
  clientIds: [],
  projectIds: [],
  entryIds: [],
  apiKeyIds: [],
  apiKeyDigests: [],
  userScopes: [],
  assignments: []
}

/**
 * What of `DatasetRefs` is already stored.
 *
 * @since 0.1.0
 */
export interface ExistingRecords {
  readonly workspaceIds: ReadonlyArray<string>
  readonly userIds: ReadonlyArray<string>
  readonly clients: ReadonlyArray<{ readonly id: string; readonly workspaceId: string }>
  readonly projects: ReadonlyArray<{ readonly id: string; readonly workspaceId: string }>
  readonly entryIds: ReadonlyArray<string>
  readonly apiKeyIds: ReadonlyArray<string>
  readonly apiKeyDigests: ReadonlyArray<string>
  /** Every stored membership of the users in `userIds`, in any workspace (their rates are defaults). */
  readonly memberships: ReadonlyArray<MembershipRow>
  /** The scopes (of those asked) that already have an active entry. */
  readonly activeEntries: ReadonlyArray<UserScope>
  readonly assignments: ReadonlyArray<{ readonly projectId: string; readonly userId: string }>
}

/**
 * An API key's metadata, for listing (never the plaintext, never the digest).
 *
 * @since 0.1.0
 */
export interface ApiKeyInfo {
  readonly id: string
  readonly userId: string
  readonly workspaceId: string
  readonly scopes: ReadonlyArray<Scope>
  readonly createdAt: number
  readonly revokedAt: number | null
}
