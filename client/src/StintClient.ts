/**
 * The client as an Effect service: the `StintClient` tag, `make` and `layer` over any `HttpClient` (the Promise
 * face, `@stint/client`, runs this same implementation on `fetch`). Every call keeps the spec's client rules:
 * idempotent retries of timer mutations, createProject's reconciliation, the 409 reconciliation, the client-side rate
 * limit and deduplicated pagination. Every call is interruptible; interrupting it aborts the request in flight.
 *
 * @since 0.1.0
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import {
  type ErrorCode,
  type ErrorOf,
  IdempotencyConflict,
  TimerAlreadyStopped,
  TimerVoided,
  type TransportError
} from "./Errors.js"
import * as Header from "./internal/header.js"
import * as IdempotencyKey from "./internal/idempotencyKey.js"
import * as Limiter from "./internal/limiter.js"
import * as Operations from "./internal/operations.js"
import * as Retry from "./internal/retry.js"
import * as Transport from "./internal/transport.js"
import * as Options from "./Options.js"
import type {
  ActiveTimerResponse,
  CreateProjectInput,
  CreateProjectResult,
  ListClientsResponse,
  ListProjectsResponse,
  StartTimerInput,
  TimeEntriesFilter,
  TimeEntriesPage,
  TimeEntriesQuery,
  TimeEntry,
  Timer,
  TimerMutationResponse,
  TimerMutationResult
} from "./Resources.js"

type FailureOf<O> = O extends Operations.Operation<infer _A, infer Codes> ? ErrorOf<Codes> | TransportError : never

/** The failures of `listClients`. @since 0.1.0 */
export type ListClientsError = FailureOf<typeof Operations.listClients>
/** The failures of `listProjects`. @since 0.1.0 */
export type ListProjectsError = FailureOf<typeof Operations.listProjects>
/** The failures of `createProject` (after reconciliation). @since 0.1.0 */
export type CreateProjectError = FailureOf<typeof Operations.createProject>
/** The failures of `getActiveTimer`. @since 0.1.0 */
export type GetActiveTimerError = FailureOf<typeof Operations.getActiveTimer>
/** The failures of `startTimer` (after retries; a 409 carries the active timer). @since 0.1.0 */
export type StartTimerError = FailureOf<typeof Operations.startTimer>
/** The failures of `stopTimer` (after retries; a 409 carries the active timer). @since 0.1.0 */
export type StopTimerError = FailureOf<typeof Operations.stopTimer>
/** The failures of `listTimeEntries` and `timeEntries`. @since 0.1.0 */
export type ListTimeEntriesError = FailureOf<typeof Operations.listTimeEntries>

/**
 * What `startTimer` and `stopTimer` accept.
 *
 * @since 0.1.0
 */
export interface MutationOptions {
  /** Your own `Idempotency-Key` (1 to 255 characters); by default a fresh random one for each call. */
  readonly idempotencyKey?: string | undefined
}

/**
 * The seven operations, and `timeEntries`, the walk over every page.
 *
 * @since 0.1.0
 */
export interface Service {
  readonly listClients: () => Effect.Effect<ListClientsResponse, ListClientsError>
  readonly listProjects: (clientId: string) => Effect.Effect<ListProjectsResponse, ListProjectsError>
  /**
   * Creates a project. Never retried: after no answer, a timeout or a 5xx it lists the client's projects and returns
   * the one with that name (`reconciled: true`), or fails with the original error when there is none.
   */
  readonly createProject: (input: CreateProjectInput) => Effect.Effect<CreateProjectResult, CreateProjectError>
  readonly getActiveTimer: () => Effect.Effect<ActiveTimerResponse, GetActiveTimerError>
  /** Starts a timer under one `Idempotency-Key`, retried with the same key and bytes after uncertain failures. */
  readonly startTimer: (
    input: StartTimerInput,
    options?: MutationOptions
  ) => Effect.Effect<TimerMutationResult, StartTimerError>
  /** Stops a timer under one `Idempotency-Key`, retried with the same key after uncertain failures. */
  readonly stopTimer: (timerId: string, options?: MutationOptions) => Effect.Effect<TimerMutationResult, StopTimerError>
  /** One page of the history. */
  readonly listTimeEntries: (query?: TimeEntriesQuery) => Effect.Effect<TimeEntriesPage, ListTimeEntriesError>
  /**
   * Every entry of the history, newest first, page after page; never the same entry twice (the pages are not a
   * snapshot: entries inserted or moved while it walks can show up again, and are skipped).
   */
  readonly timeEntries: (filter?: TimeEntriesFilter) => Stream.Stream<TimeEntry, ListTimeEntriesError>
}

/**
 * The client, as a service.
 *
 * @since 0.1.0
 */
export class StintClient extends Context.Tag("@stint/client/StintClient")<StintClient, Service>() {}

/** Reads, and timer mutations under their idempotency key: retried after uncertain failures and 429s. */
const repeatable: Retry.Policy = { uncertain: true, rateLimited: true }
/** createProject: never repeated. */
const once: Retry.Policy = { uncertain: false, rateLimited: false }

const withActiveTimer = <E>(error: E, activeTimer: Timer | null | undefined): E => {
  if (!(error instanceof IdempotencyConflict || error instanceof TimerVoided || error instanceof TimerAlreadyStopped)) {
    return error
  }
  const fields = { message: error.message, requestId: error.requestId, details: error.details, activeTimer }
  const reconciled = error instanceof IdempotencyConflict
    ? new IdempotencyConflict(fields)
    : error instanceof TimerVoided
    ? new TimerVoided(fields)
    : new TimerAlreadyStopped(fields)
  return reconciled as E
}

/** The entries not given yet, now marked as given. */
const unseen = (seen: Set<string>, entries: ReadonlyArray<TimeEntry>): Array<TimeEntry> =>
  entries.filter((entry) => {
    if (seen.has(entry.id)) return false
    seen.add(entry.id)
    return true
  })

const query = (entries: Readonly<Record<string, string | number | undefined>>): URLSearchParams => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(entries)) if (value !== undefined) params.append(name, String(value))
  return params
}

/**
 * Builds the client on the `HttpClient` in context. Throws a `TypeError` (a defect) when an option is invalid.
 *
 * @since 0.1.0
 */
export const make = (options: Options.StintClientOptions): Effect.Effect<Service, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const config = Options.resolve(options)
    // Trace headers would make browsers ask the server for permission (a CORS preflight) it does not give.
    const http = HttpClient.withTracerPropagation(yield* HttpClient.HttpClient, false)
    const limiter = yield* Limiter.make(config.rateLimit.limit, config.rateLimit.windowMillis)

    const call = <A, Codes extends ErrorCode>(
      operation: Operations.Operation<A, Codes>,
      policy: Retry.Policy,
      request: Transport.Request
    ) => Retry.run(config, limiter, policy, Transport.send(http, config, operation, request))

    const read = <A, Codes extends ErrorCode>(operation: Operations.Operation<A, Codes>, request: Transport.Request) =>
      Effect.map(call(operation, repeatable, request), (answer) => answer.value)

    const getActiveTimer = () => read(Operations.getActiveTimer, { path: Operations.getActiveTimer.path })

    const listProjects = (clientId: string) =>
      read(Operations.listProjects, { path: Operations.listProjects.path, query: query({ clientId }) })

    const listTimeEntries = (q: TimeEntriesQuery = {}) =>
      read(Operations.listTimeEntries, {
        path: Operations.listTimeEntries.path,
        query: query({ projectId: q.projectId, cursor: q.cursor, limit: q.limit })
      })

    const mutate = <Codes extends ErrorCode>(
      operation: Operations.Operation<TimerMutationResponse, Codes>,
      path: string,
      body: string | undefined,
      given: MutationOptions
    ) =>
      Effect.gen(function*() {
        const unsendable = given.idempotencyKey === undefined ? undefined : Header.problem(given.idempotencyKey)
        if (unsendable !== undefined) return yield* Effect.die(new TypeError(`StintClient: idempotencyKey ${unsendable}`))
        const idempotencyKey = given.idempotencyKey ?? (yield* IdempotencyKey.make)
        const answer = yield* call(operation, repeatable, { path, body, idempotencyKey }).pipe(
          // After a 409, read the active timer so the caller decides with fresh facts.
          Effect.catchIf(
            (error) => error._tag === "IdempotencyConflict" || error._tag === "TimerVoided" ||
              error._tag === "TimerAlreadyStopped",
            (error) =>
              Effect.flatMap(Effect.either(getActiveTimer()), (state) =>
                Effect.fail(withActiveTimer(error, Either.isRight(state) ? state.right.timer : undefined)))
          )
        )
        return { ...answer.value, replayed: answer.replayed, idempotencyKey }
      })

    // Bodies are written when the call runs, so that input `JSON.stringify` refuses (a cycle, a bigint) fails the call
    // (a `TypeError` defect) instead of throwing where the call is made.
    const createProject = (input: CreateProjectInput) => {
      const operation = Operations.createProject
      return Effect.suspend(() => call(operation, once, { path: operation.path, body: JSON.stringify(input) })).pipe(
        Effect.map((answer): CreateProjectResult => ({ ...answer.value, reconciled: false })),
        // The outcome is unknown: the project may exist. Look for it instead of creating it twice.
        Effect.catchIf(Transport.isUncertain, (error) =>
          Effect.flatMap(Effect.either(listProjects(input.clientId)), (listed) => {
            const project = Either.isRight(listed)
              ? listed.right.projects.find((candidate) => candidate.name === input.name)
              : undefined
            return project === undefined ? Effect.fail(error) : Effect.succeed({ project, reconciled: true })
          }))
      )
    }

    const timeEntries = (filter: TimeEntriesFilter = {}) =>
      Stream.suspend(() => {
        // Pages are not a snapshot (spec, pagination rule 6): skip every entry already given.
        const seen = new Set<string>()
        return Stream.paginateChunkEffect(undefined as string | undefined, (cursor) =>
          Effect.map(
            listTimeEntries({ projectId: filter.projectId, limit: filter.pageSize ?? 100, cursor }),
            (page) =>
              [
                Chunk.fromIterable(unseen(seen, page.entries)),
                Option.fromNullable(page.nextCursor)
              ] as const
          ))
      })

    const service: Service = {
      listClients: () => read(Operations.listClients, { path: Operations.listClients.path }),
      listProjects,
      createProject,
      getActiveTimer,
      startTimer: (input, given = {}) =>
        Effect.suspend(() => mutate(Operations.startTimer, Operations.startTimer.path, JSON.stringify(input), given)),
      stopTimer: (timerId, given = {}) =>
        // A path segment that URLs resolve away: the request would reach another route, so it is not sent.
        timerId === "" || timerId === "." || timerId === ".."
          ? Effect.die(
            new TypeError(`StintClient: stopTimer's timerId must be a UUID; ${JSON.stringify(timerId)} cannot be sent`)
          )
          : mutate(Operations.stopTimer, Operations.pathOf(Operations.stopTimer, { timerId }), undefined, given),
      listTimeEntries,
      timeEntries
    }
    return service
  })

/**
 * The `StintClient` service, on the `HttpClient` in context (`FetchHttpClient.layer` in browsers and Node 20).
 *
 * @since 0.1.0
 */
export const layer = (options: Options.StintClientOptions): Layer.Layer<StintClient, never, HttpClient.HttpClient> =>
  Layer.effect(StintClient, make(options))
