/**
 * The seven public operations as Effects over the `Store` port. Each takes the raw `ApiRequest` a transport received
 * and applies the decisions page's order of checks: authentication, rate limit, scope, the `Idempotency-Key`, input,
 * idempotency replay or conflict, then business rules. Time comes from `Clock`, ids from `Ids`, policies from
 * `Settings`.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Access from "./Access.js"
import * as ApiKey from "./ApiKey.js"
import * as Cursor from "./Cursor.js"
import {
  ApiKeyRateLimited,
  Forbidden,
  IdempotencyConflict,
  IdempotencyKeyRequired,
  InsufficientScope,
  InvalidApiKey,
  InvalidCursor,
  type ProjectNotFound,
  ResourceNotFound,
  StoreError,
  type TimerAlreadyStopped,
  type TimerNotFound,
  type TimerVoided
} from "./Errors.js"
import * as Idempotency from "./Idempotency.js"
import * as Ids from "./Ids.js"
import type { EntryFinish, EntryRow, UserScope } from "./Records.js"
import { type ApiRequest, decodeBody, decodePathParam, decodeQuery } from "./Request.js"
import {
  type ActiveTimerResponse,
  CreateProjectBody,
  type CreateProjectResponse,
  DEFAULT_COLOR,
  type ListClientsResponse,
  type ListProjectsResponse,
  ListProjectsQuery,
  ListTimeEntriesQuery,
  type Role,
  type Scope,
  StartTimerBody,
  type TimeEntriesPage,
  TimerMutationResponse,
  Uuid
} from "./Schemas.js"
import { Settings } from "./Settings.js"
import { Store, type TimerSnapshot } from "./Store.js"
import * as TimerRules from "./TimerRules.js"

/**
 * The authenticated caller: an API key, its user and workspace, and the user's current membership.
 *
 * @since 0.1.0
 */
export interface Principal extends UserScope {
  readonly keyId: string
  readonly scopes: ReadonlyArray<Scope>
  readonly role: Role
  /** The membership's default pay rate. */
  readonly payRateCents: number
}

/**
 * The id of the API key the current request authenticated with, once it has (also for requests then refused with 429
 * or 403). Transports read it after an operation to log which key made a request, never the key itself.
 *
 * @since 0.1.0
 */
export const authenticatedKeyId: FiberRef.FiberRef<Option.Option<string>> = FiberRef.unsafeMake<Option.Option<string>>(
  Option.none()
)

/**
 * Checks 2 to 4 of the order: the key (401), the rate limit (429, counting every authenticated request that is not
 * refused with 429), the scope (403).
 *
 * @since 0.1.0
 */
export const authenticate = (
  request: ApiRequest,
  scope: Scope
): Effect.Effect<Principal, InvalidApiKey | ApiKeyRateLimited | InsufficientScope | StoreError, Store> =>
  Effect.gen(function*() {
    const presented = ApiKey.fromAuthorization(request.authorization)
    if (Option.isNone(presented)) {
      return yield* new InvalidApiKey({
        message: request.authorization === undefined
          ? "Send your API key as \"Authorization: Bearer <key>\"."
          : "The API key is malformed."
      })
    }
    const store = yield* Store
    const found = yield* store.findApiKey(yield* ApiKey.digest(presented.value))
    const now = yield* Clock.currentTimeMillis
    const membership = Option.isSome(found) && Option.isNone(ApiKey.refusal(found.value, now))
      ? found.value.membership
      : null
    if (Option.isNone(found) || membership === null) {
      return yield* new InvalidApiKey({
        message: "The API key is unknown, expired, revoked, or no longer valid for its workspace."
      })
    }
    const key = found.value
    yield* FiberRef.set(authenticatedKeyId, Option.some(key.id))
    const settings = yield* Settings
    if (!(yield* store.consumeRateLimit(key.id, now, settings.rateLimit))) {
      return yield* new ApiKeyRateLimited({
        message: `At most ${settings.rateLimit.limit} requests per ${
          settings.rateLimit.windowMillis / 1000
        } seconds per API key.`
      })
    }
    if (!ApiKey.hasScope(key, scope)) {
      return yield* new InsufficientScope({
        message: `The API key lacks the "${scope}" scope.`,
        details: { requiredScope: scope }
      })
    }
    return {
      keyId: key.id,
      userId: key.userId,
      workspaceId: key.workspaceId,
      scopes: key.scopes,
      role: membership.role,
      payRateCents: membership.payRateCents
    }
  })

const scopeOf = (principal: Principal): UserScope => ({
  workspaceId: principal.workspaceId,
  userId: principal.userId
})

const NoQuery = Schema.Struct({})

// ---------------------------------------------------------------------------------------------------------------------
// Catalog
// ---------------------------------------------------------------------------------------------------------------------

/**
 * `GET /clients`: the active clients the key owner's role sees, and whether the key may create projects.
 *
 * @since 0.1.0
 */
export const listClients = (request: ApiRequest) =>
  Effect.gen(function*() {
    const principal = yield* authenticate(request, "clients:read")
    yield* decodeQuery(request.query, NoQuery)
    const clients = yield* (yield* Store).listClients(scopeOf(principal))
    const response: ListClientsResponse = {
      clients: Access.visibleClients(principal.role, clients).map(({ color, id, name }) => ({ id, name, color })),
      canCreateProjects: Access.canCreateProjects(principal.role, principal.scopes)
    }
    return response
  })

/**
 * `GET /projects?clientId=`: the client's unarchived projects the user is assigned to (any role).
 *
 * @since 0.1.0
 */
export const listProjects = (request: ApiRequest) =>
  Effect.gen(function*() {
    const principal = yield* authenticate(request, "projects:read")
    const query = yield* decodeQuery(request.query, ListProjectsQuery)
    const projects = yield* (yield* Store).listProjects(scopeOf(principal), query.clientId.toLowerCase())
    const response: ListProjectsResponse = {
      projects: Access.listableProjects(projects).map(({ clientId, color, id, name }) => ({ id, clientId, name, color }))
    }
    return response
  })

/**
 * `POST /projects`: owners and admins create a project under an active client and are assigned to it at their
 * membership's default rate.
 *
 * @since 0.1.0
 */
export const createProject = (request: ApiRequest) =>
  Effect.gen(function*() {
    const principal = yield* authenticate(request, "projects:write")
    yield* decodeQuery(request.query, NoQuery)
    const body = yield* decodeBody(request.body, CreateProjectBody)
    if (!Access.isManager(principal.role)) {
      return yield* new Forbidden({ message: "Only workspace owners and admins can create projects." })
    }
    const created = yield* (yield* Store).createProject({
      id: yield* Ids.next,
      workspaceId: principal.workspaceId,
      clientId: body.clientId.toLowerCase(),
      name: body.name,
      color: body.color ?? DEFAULT_COLOR,
      creatorUserId: principal.userId,
      creatorRateCents: principal.payRateCents
    })
    if (Option.isNone(created)) {
      return yield* new ResourceNotFound({
        message: "The client does not exist in this workspace or is archived.",
        details: { clientId: body.clientId }
      })
    }
    const { clientId, color, id, name } = created.value
    const response: CreateProjectResponse = { project: { id, clientId, name, color } }
    return response
  })

// ---------------------------------------------------------------------------------------------------------------------
// Timers
// ---------------------------------------------------------------------------------------------------------------------

/**
 * `GET /timer`: the key owner's active timer in the bound workspace, or `null`.
 *
 * @since 0.1.0
 */
export const getActiveTimer = (request: ApiRequest) =>
  Effect.gen(function*() {
    const principal = yield* authenticate(request, "timers:read")
    yield* decodeQuery(request.query, NoQuery)
    const active = yield* (yield* Store).findActiveEntry(scopeOf(principal))
    const now = yield* Clock.currentTimeMillis
    const response: ActiveTimerResponse = {
      timer: Option.match(active, { onNone: () => null, onSome: (entry) => TimerRules.toTimer(entry, now) })
    }
    return response
  })

/**
 * The result of start and stop: the response, the exact JSON bytes to send (a replay returns the stored ones), and
 * whether this was a replay.
 *
 * @since 0.1.0
 */
export interface TimerMutation {
  readonly response: TimerMutationResponse
  readonly json: string
  readonly replayed: boolean
}

class StillInFlight extends Data.TaggedError("StillInFlight")<{}> {}

const encodeMutation = Schema.encodeSync(TimerMutationResponse)
const decodeMutation = Schema.decodeUnknownSync(Schema.parseJson(TimerMutationResponse))

/**
 * Check 5: the `Idempotency-Key` header.
 */
const requireIdempotencyKey = (request: ApiRequest) =>
  Option.match(Idempotency.normalizeKey(request.idempotencyKey), {
    onNone: () =>
      Effect.fail(
        new IdempotencyKeyRequired({
          message: `Send an Idempotency-Key header of 1 to ${Idempotency.MAX_KEY_LENGTH} characters.`
        })
      ),
    onSome: Effect.succeed
  })

/**
 * Checks 7 and 8 inside one timer transaction: replay or conflict, then the business step, whose changes commit
 * together with the stored response.
 */
const mutate = <E>(
  principal: Principal,
  key: string,
  input: Idempotency.Input,
  query: { readonly entryId?: string; readonly projectId?: string },
  step: (snapshot: TimerSnapshot, now: number) => Effect.Effect<
    {
      readonly finish?: EntryFinish | undefined
      readonly insert?: EntryRow | undefined
      readonly response: TimerMutationResponse
    },
    E
  >
): Effect.Effect<TimerMutation, E | IdempotencyConflict | StoreError, Store> =>
  Effect.gen(function*() {
    const store = yield* Store
    const settings = yield* Settings
    const fingerprint = yield* Idempotency.fingerprint(input)
    const attempt = store.withTimerTransaction(scopeOf(principal), (tx) =>
      Effect.gen(function*() {
        const snapshot = yield* tx.read({ idempotencyKey: key, ...query })
        const now = yield* Clock.currentTimeMillis
        const decision = Idempotency.decide(
          snapshot.idempotency,
          fingerprint,
          now,
          settings.idempotencyRetentionMillis
        )
        switch (decision._tag) {
          case "Replay":
            return { response: decodeMutation(decision.response.body), json: decision.response.body, replayed: true }
          case "Conflict":
            return yield* new IdempotencyConflict({
              message: "This Idempotency-Key was already used with different input."
            })
          case "InFlight":
            return yield* new StillInFlight()
          case "Fresh": {
            const outcome = yield* step(snapshot, now)
            const json = JSON.stringify(encodeMutation(outcome.response))
            yield* tx.write({
              finish: outcome.finish,
              insert: outcome.insert,
              idempotency: { key, fingerprint, createdAt: now, response: { status: 200, body: json } },
              forgetIdempotencyBefore: now - settings.idempotencyRetentionMillis
            })
            return { response: outcome.response, json, replayed: false }
          }
        }
      })
    )
    // Only stores that reserve keys report a request in flight; wait for it to finish, then decide again.
    return yield* attempt.pipe(
      Effect.retry({
        while: (error) => error instanceof StillInFlight,
        schedule: Schedule.spaced(Duration.millis(25)).pipe(
          Schedule.upTo(Duration.millis(settings.inFlightWaitMillis))
        )
      }),
      Effect.catchTag(
        "StillInFlight",
        () => new StoreError({ message: "Another request with this Idempotency-Key did not finish in time." })
      )
    )
  })

/**
 * `POST /timers/start`: starts a timer on a project ready for tracking and, in the same atomic step, completes the
 * one running; idempotent under its `Idempotency-Key`.
 *
 * @since 0.1.0
 */
export const startTimer = (request: ApiRequest) =>
  Effect.gen(function*() {
    const principal = yield* authenticate(request, "timers:write")
    const key = yield* requireIdempotencyKey(request)
    yield* decodeQuery(request.query, NoQuery)
    const body = yield* decodeBody(request.body, StartTimerBody)
    const raw = request.body?._tag === "Json" ? request.body.value : null
    const id = yield* Ids.next
    const projectId = body.projectId.toLowerCase()
    return yield* mutate<ProjectNotFound>(
      principal,
      key,
      { operation: "startTimer", path: {}, body: raw },
      { projectId },
      (snapshot, now) =>
        Either.match(
          TimerRules.start({
            scope: scopeOf(principal),
            id,
            now,
            running: snapshot.running,
            target: snapshot.project,
            billable: body.billable ?? true,
            note: body.note ?? null
          }),
          {
            onLeft: Effect.fail,
            onRight: (started) =>
              Effect.succeed({
                finish: started.finish,
                insert: started.insert,
                response: {
                  timer: TimerRules.toTimer(started.entry, now),
                  stoppedTimerId: started.finish?.id ?? null
                }
              })
          }
        )
    )
  })

/**
 * `POST /timers/{timerId}/stop`: completes the caller's active entry; idempotent under its `Idempotency-Key`. Answers
 * `{ timer: null, stoppedTimerId }`.
 *
 * @since 0.1.0
 */
export const stopTimer = (request: ApiRequest) =>
  Effect.gen(function*() {
    const principal = yield* authenticate(request, "timers:write")
    const key = yield* requireIdempotencyKey(request)
    yield* decodeQuery(request.query, NoQuery)
    const timerId = (yield* decodePathParam(request.path, "timerId", Uuid)).toLowerCase()
    return yield* mutate<TimerNotFound | TimerAlreadyStopped | TimerVoided>(
      principal,
      key,
      { operation: "stopTimer", path: { timerId }, body: undefined },
      { entryId: timerId },
      (snapshot, now) =>
        Either.match(TimerRules.stop(snapshot.entry, now), {
          onLeft: Effect.fail,
          onRight: (finish) => Effect.succeed({ finish, response: { timer: null, stoppedTimerId: finish.id } })
        })
    )
  })

// ---------------------------------------------------------------------------------------------------------------------
// History
// ---------------------------------------------------------------------------------------------------------------------

/** @since 0.1.0 */
export const DEFAULT_PAGE_SIZE = 20

/**
 * `GET /time-entries`: the key user's entries in the workspace, newest first, in keyset pages.
 *
 * @since 0.1.0
 */
export const listTimeEntries = (request: ApiRequest) =>
  Effect.gen(function*() {
    const principal = yield* authenticate(request, "timers:read")
    const query = yield* decodeQuery(request.query, ListTimeEntriesQuery)
    const store = yield* Store
    const binding: Cursor.Binding = {
      keyId: principal.keyId,
      workspaceId: principal.workspaceId,
      projectId: query.projectId?.toLowerCase() ?? null,
      limit: query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(query.limit)
    }
    let after: Cursor.Position | null = null
    if (query.cursor !== undefined) {
      const position = yield* Cursor.decode(query.cursor, binding, yield* store.cursorSecret)
      if (Option.isNone(position)) {
        return yield* new InvalidCursor({
          message: "The cursor was not issued for this key, workspace, project filter and limit.",
          details: { parameter: "cursor" }
        })
      }
      after = position.value
    }
    // One extra row decides whether another page exists.
    const rows = yield* store.listEntries(scopeOf(principal), {
      projectId: binding.projectId,
      after,
      limit: binding.limit + 1
    })
    const page = rows.slice(0, binding.limit)
    const last = page[page.length - 1]
    const nextCursor = rows.length > binding.limit && last !== undefined
      ? yield* Cursor.encode({ startedAt: last.startedAt, id: last.id }, binding, yield* store.cursorSecret)
      : null
    const response: TimeEntriesPage = { entries: page.map(TimerRules.toTimeEntry), nextCursor }
    return response
  })
