/**
 * What the client sends and returns, as plain TypeScript types: the spec's resources, request bodies and responses
 * are the types of the core's Schemas (the ones the server validates and writes with), so a field added to the API
 * reaches the client's types at once. Using them needs no import of `effect`.
 *
 * @since 0.1.0
 */
import type * as Schemas from "@stint/core/Schemas"

/** A client of the workspace (in `listClients`). @since 0.1.0 */
export type Client = Schemas.Client
/** A project. @since 0.1.0 */
export type Project = Schemas.Project
/** The active timer (get, start, stop). @since 0.1.0 */
export type Timer = Schemas.Timer
/** An entry of the personal history. @since 0.1.0 */
export type TimeEntry = Schemas.TimeEntry
/** `active`, `completed` or `voided`. @since 0.1.0 */
export type EntryStatus = Schemas.EntryStatus

/** The body of `createProject`: `color` absent or null means `#ff5c35`. @since 0.1.0 */
export type CreateProjectInput = Schemas.CreateProjectBody
/** The body of `startTimer`: `billable` defaults to true. @since 0.1.0 */
export type StartTimerInput = Schemas.StartTimerBody

/** `GET /clients`. @since 0.1.0 */
export type ListClientsResponse = Schemas.ListClientsResponse
/** `GET /projects?clientId=…`. @since 0.1.0 */
export type ListProjectsResponse = Schemas.ListProjectsResponse
/** `GET /timer`. @since 0.1.0 */
export type ActiveTimerResponse = Schemas.ActiveTimerResponse
/** The body of a start or a stop. @since 0.1.0 */
export type TimerMutationResponse = Schemas.TimerMutationResponse
/** One page of `GET /time-entries`. @since 0.1.0 */
export type TimeEntriesPage = Schemas.TimeEntriesPage

/**
 * The query of one `listTimeEntries` page. Pass `cursor` exactly as the previous page returned it, with the same
 * `projectId` and `limit`.
 *
 * @since 0.1.0
 */
export interface TimeEntriesQuery {
  readonly projectId?: string | undefined
  readonly cursor?: string | undefined
  /** 1 to 100; the server's default is 20. */
  readonly limit?: number | undefined
}

/**
 * What `timeEntries` walks: every entry, or a project's.
 *
 * @since 0.1.0
 */
export interface TimeEntriesFilter {
  readonly projectId?: string | undefined
  /** Entries per request, 1 to 100. Default 100 (the fewest requests against the rate limit). */
  readonly pageSize?: number | undefined
}

/**
 * The answer of `startTimer` and `stopTimer`: the spec's body, whether the server replayed it (a retry after an
 * uncertain failure found the first try had succeeded), and the `Idempotency-Key` it was sent with.
 *
 * @since 0.1.0
 */
export interface TimerMutationResult extends Schemas.TimerMutationResponse {
  /** `true` when the answer carried `Idempotent-Replayed: true`. */
  readonly replayed: boolean
  readonly idempotencyKey: string
}

/**
 * The answer of `createProject`: the spec's body, and whether it was found by reconciling (listing the client's
 * projects) after a failure left the creation's outcome unknown.
 *
 * @since 0.1.0
 */
export interface CreateProjectResult extends Schemas.CreateProjectResponse {
  readonly reconciled: boolean
}

/**
 * What every call accepts.
 *
 * @since 0.1.0
 */
export interface CallOptions {
  /** Aborts the call (waiting in line, a request in flight, a delay before a retry); it rejects with the reason. */
  readonly signal?: AbortSignal | undefined
}

/**
 * What `startTimer` and `stopTimer` accept.
 *
 * @since 0.1.0
 */
export interface MutationOptions extends CallOptions {
  /** Your own `Idempotency-Key` (1 to 255 characters); by default a fresh random one for each call. */
  readonly idempotencyKey?: string | undefined
}
