/**
 * The seven public operations as Effects over the `Store` port. Each takes the raw `ApiRequest` a transport received
 * and applies the decisions page's order of checks: authentication, rate limit, scope, the `Idempotency-Key`, input,
 * idempotency replay or conflict, then business rules. Time comes from `Clock`, ids from `Ids`, policies from
 * `Settings`.
 *
 * The four operations a server answers most (the active timer, start, stop and the history) are chains of `flatMap`
 * rather than `Effect.gen`: each `yield*` costs about 0.8 µs more than a `flatMap` step (measured on Effect 3.22), and
 * a start took a dozen of them, counting its store's. The others stay generators.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Access from "./Access.js"
import * as Authentication from "./Authentication.js"
import { authenticateReading, authenticateWith, withServices } from "./Authentication.js"
import * as Cursor from "./Cursor.js"
import {
  type ApiKeyRateLimited,
  Forbidden,
  IdempotencyConflict,
  IdempotencyKeyRequired,
  type InsufficientScope,
  type InvalidApiKey,
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
import * as FastGuard from "./internal/fastGuard.js"
import type { EntryFinish, EntryRow, UserScope } from "./Records.js"
import { type ApiRequest, decodeBody, decodePathParam, decodeQuery, decodeQueryEither } from "./Request.js"
import {
  type ActiveTimerResponse,
  CreateProjectBody,
  type CreateProjectResponse,
  DEFAULT_COLOR,
  type ListClientsResponse,
  type ListProjectsResponse,
  ListProjectsQuery,
  ListTimeEntriesQuery,
  StartTimerBody,
  type TimeEntriesPage,
  TimerMutationResponse,
  Uuid
} from "./Schemas.js"
import type { EntriesQuery, ReadAlong, TimerQuery, TimerSnapshot, TimerTransaction } from "./Store.js"
import * as TimerRules from "./TimerRules.js"

/** `getActiveTimer`'s read, done along with authentication by stores that can. */
const ACTIVE_ENTRY: ReadAlong = { _tag: "ActiveEntry" }

const scopeOf = (principal: Authentication.Principal): UserScope => ({
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
  withServices((services) =>
  Effect.gen(function*() {
    const principal = yield* authenticateWith(services, request, "clients:read")
    yield* decodeQuery(request.query, NoQuery)
    const clients = yield* services.store.listClients(scopeOf(principal))
    const response: ListClientsResponse = {
      clients: Access.visibleClients(principal.role, clients).map(({ color, id, name }) => ({ id, name, color })),
      canCreateProjects: Access.canCreateProjects(principal.role, principal.scopes)
    }
    return response
  }))

/**
 * `GET /projects?clientId=`: the client's unarchived projects the user is assigned to (any role).
 *
 * @since 0.1.0
 */
export const listProjects = (request: ApiRequest) =>
  withServices((services) =>
  Effect.gen(function*() {
    const principal = yield* authenticateWith(services, request, "projects:read")
    const query = yield* decodeQuery(request.query, ListProjectsQuery)
    const projects = yield* services.store.listProjects(scopeOf(principal), query.clientId.toLowerCase())
    const response: ListProjectsResponse = {
      projects: Access.listableProjects(projects).map(({ clientId, color, id, name }) => ({ id, clientId, name, color }))
    }
    return response
  }))

/**
 * `POST /projects`: owners and admins create a project under an active client and are assigned to it at their
 * membership's default rate.
 *
 * @since 0.1.0
 */
export const createProject = (request: ApiRequest) =>
  withServices((services) =>
  Effect.gen(function*() {
    const principal = yield* authenticateWith(services, request, "projects:write")
    yield* decodeQuery(request.query, NoQuery)
    const body = yield* decodeBody(request.body, CreateProjectBody)
    if (!Access.isManager(principal.role)) {
      return yield* new Forbidden({ message: "Only workspace owners and admins can create projects." })
    }
    const clientId = body.clientId.toLowerCase()
    const created = yield* services.store.createProject({
      id: yield* Ids.next,
      workspaceId: principal.workspaceId,
      clientId,
      name: body.name,
      color: body.color ?? DEFAULT_COLOR,
      creatorUserId: principal.userId,
      creatorRateCents: principal.payRateCents
    })
    if (Option.isNone(created)) {
      return yield* new ResourceNotFound({
        message: "The client does not exist in this workspace or is archived.",
        details: { clientId }
      })
    }
    const { color, id, name } = created.value
    const response: CreateProjectResponse = { project: { id, clientId, name, color } }
    return response
  }))

// ---------------------------------------------------------------------------------------------------------------------
// Timers
// ---------------------------------------------------------------------------------------------------------------------

/**
 * `GET /timer`: the key owner's active timer in the bound workspace, or `null`.
 *
 * @since 0.1.0
 */
export const getActiveTimer = (request: ApiRequest) =>
  withServices((services) =>
    Effect.flatMap(authenticateReading(services, request, "timers:read", ACTIVE_ENTRY), (principal) =>
      Effect.flatMap(decodeQuery(request.query, NoQuery), () =>
        Effect.flatMap(
          principal.read.activeEntry === undefined
            ? services.store.findActiveEntry(scopeOf(principal))
            : Effect.succeed(principal.read.activeEntry),
          (active) =>
            Effect.map(Clock.currentTimeMillis, (now): ActiveTimerResponse => ({
              timer: Option.match(active, { onNone: () => null, onSome: (entry) => TimerRules.toTimer(entry, now) })
            }))
        )))
  )

/**
 * The result of start and stop: the response, the exact JSON bytes to send (a replay returns the stored ones), and
 * whether this was a replay.
 *
 * @since 0.1.0
 */
export interface TimerMutation {
  /** The exact JSON to send: the stored bytes when replayed. */
  readonly json: string
  readonly replayed: boolean
  /** The response as a value, decoded from `json` when read (transports send `json` and never pay for it). */
  readonly response: TimerMutationResponse
}

const encodeMutation = Schema.encodeSync(TimerMutationResponse)
const mutationGuard = FastGuard.of(TimerMutationResponse)
/** The response's JSON, checked against its Schema (the fast check first; the Schema's encoder throws on a defect). */
const mutationJson = (response: TimerMutationResponse): string =>
  JSON.stringify(mutationGuard?.(response) === true ? response : encodeMutation(response))
const decodeMutation = Schema.decodeUnknownSync(Schema.parseJson(TimerMutationResponse))

const mutation = (json: string, replayed: boolean): TimerMutation => ({
  json,
  replayed,
  get response() {
    return decodeMutation(json)
  }
})

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

/** Checks 5 and 6 of a timer mutation up to its own input: the `Idempotency-Key`, then no query parameters. */
const keyWithoutQuery = (request: ApiRequest) =>
  Effect.flatMap(requireIdempotencyKey(request), (key) => Effect.as(decodeQuery(request.query, NoQuery), key))

/** Runs a body in the timer transaction of the authenticated principal's scope. */
type InTransaction = <A, E>(body: (tx: TimerTransaction) => Effect.Effect<A, E>) => Effect.Effect<A, E | StoreError>

/**
 * Checks 2 to 4 for `timers:write`, then `run` with the principal and its timer transaction. A store that can
 * authenticate inside the timer transaction (`Store.authenticateInTimerTransaction`) does both in one step, and `run`'s
 * own checks (5 and 6) then run inside it; `expected` is what the transaction will read (the `Idempotency-Key` and the
 * raw ids of the request, so that the store can read it in the same step). A store without the method, or a request
 * without a usable `Idempotency-Key` (a 400 once checks 2 to 4 have passed), takes the two usual steps.
 */
const timerScope = <A, E>(
  services: Authentication.Services,
  request: ApiRequest,
  expected: Omit<TimerQuery, "idempotencyKey">,
  run: (principal: Authentication.Principal, transaction: InTransaction) => Effect.Effect<A, E>
): Effect.Effect<A, E | InvalidApiKey | ApiKeyRateLimited | InsufficientScope | StoreError> => {
  const { settings, store } = services
  const combined = store.authenticateInTimerTransaction
  const key = Idempotency.normalizeKey(request.idempotencyKey)
  if (combined === undefined || Option.isNone(key)) {
    return Effect.flatMap(authenticateWith(services, request, "timers:write"), (principal) =>
      run(principal, (body) => store.withTimerTransaction(scopeOf(principal), body)))
  }
  return Either.match(Authentication.presentedDigest(services, request), {
    onLeft: Effect.fail,
    onRight: (digest) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        combined(
          { digest, now, policy: settings.rateLimit },
          { idempotencyKey: key.value, ...expected },
          (found, tx) =>
            Effect.flatMap(
              Authentication.admit(services, found, now, "timers:write"),
              (principal) => run(principal, (body) => body(tx))
            )
        ))
  })
}

/** A string member of a JSON object body, as sent (a guess of what decoding will give; the store checks it). */
const rawMember = (request: ApiRequest, name: string): string | undefined => {
  const body = request.body
  if (body?._tag !== "Json" || typeof body.value !== "object" || body.value === null) return undefined
  const value = (body.value as Readonly<Record<string, unknown>>)[name]
  return typeof value === "string" ? value.toLowerCase() : undefined
}

/**
 * Checks 7 and 8 inside one timer transaction: replay or conflict, then the business step, whose changes commit
 * together with the stored response.
 */
const mutate = <E>(
  services: Authentication.Services,
  transaction: InTransaction,
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
): Effect.Effect<TimerMutation, E | IdempotencyConflict | StoreError> => {
  const { settings } = services
  const fingerprint = Idempotency.fingerprintWith(services.hashing, input)
  return transaction((tx) =>
    Effect.flatMap(tx.read({ idempotencyKey: key, ...query }), (snapshot) =>
      Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<TimerMutation, E | IdempotencyConflict | StoreError> => {
        const decision = Idempotency.decide(snapshot.idempotency, fingerprint, now, settings.idempotencyRetentionMillis)
        switch (decision._tag) {
          case "Replay":
            return Effect.succeed(mutation(decision.response.body, true))
          case "Conflict":
            return Effect.fail(
              new IdempotencyConflict({ message: "This Idempotency-Key was already used with different input." })
            )
          case "InFlight":
            // Under the scope's lock no other request can be half-way through: a record without a response means
            // the store does not keep the port's promise.
            return Effect.fail(
              new StoreError({ message: "an idempotency record without a response under the scope's lock" })
            )
          case "Fresh":
            return Effect.flatMap(step(snapshot, now), (outcome) => {
              const json = mutationJson(outcome.response)
              return Effect.as(
                tx.write({
                  finish: outcome.finish,
                  insert: outcome.insert,
                  idempotency: { key, fingerprint, createdAt: now, response: { status: 200, body: json } },
                  forgetIdempotencyBefore: now - settings.idempotencyRetentionMillis
                }),
                mutation(json, false)
              )
            })
        }
      }))
  )
}

/**
 * `POST /timers/start`: starts a timer on a project ready for tracking and, in the same atomic step, completes the
 * one running; idempotent under its `Idempotency-Key`.
 *
 * @since 0.1.0
 */
export const startTimer = (request: ApiRequest) =>
  withServices((services) =>
  timerScope(services, request, { projectId: rawMember(request, "projectId") }, (principal, transaction) =>
    Effect.flatMap(keyWithoutQuery(request), (key) =>
      Effect.flatMap(decodeBody(request.body, StartTimerBody), (body) =>
        Effect.flatMap(Ids.next, (id) =>
          mutate<ProjectNotFound>(
            services,
            transaction,
            key,
            { operation: "startTimer", path: {}, body: request.body?._tag === "Json" ? request.body.value : null },
            { projectId: body.projectId.toLowerCase() },
            (snapshot, now) => startStep(scopeOf(principal), id, body, snapshot, now)
          )))))
  )

/** Check 8 of a start: the new entry, and the running one it completes. */
const startStep = (
  scope: UserScope,
  id: string,
  body: typeof StartTimerBody.Type,
  snapshot: TimerSnapshot,
  now: number
) =>
  Either.match(
    TimerRules.start({
      scope,
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
          response: { timer: TimerRules.toTimer(started.entry, now), stoppedTimerId: started.finish?.id ?? null }
        })
    }
  )

/**
 * `POST /timers/{timerId}/stop`: completes the caller's active entry; idempotent under its `Idempotency-Key`. Answers
 * `{ timer: null, stoppedTimerId }`.
 *
 * @since 0.1.0
 */
export const stopTimer = (request: ApiRequest) =>
  withServices((services) =>
  timerScope(services, request, { entryId: request.path?.["timerId"]?.toLowerCase() }, (_principal, transaction) =>
    Effect.flatMap(keyWithoutQuery(request), (key) =>
      Effect.flatMap(decodePathParam(request.path, "timerId", Uuid), (decoded) => {
        const timerId = decoded.toLowerCase()
        return mutate<TimerNotFound | TimerAlreadyStopped | TimerVoided>(
          services,
          transaction,
          key,
          { operation: "stopTimer", path: { timerId }, body: undefined },
          { entryId: timerId },
          (snapshot, now) =>
            Either.match(TimerRules.stop(snapshot.entry, now), {
              onLeft: Effect.fail,
              onRight: (finish) => Effect.succeed({ finish, response: { timer: null, stoppedTimerId: finish.id } })
            })
        )
      })))
  )

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
  withServices((services) => {
    // The query is decoded ahead so that the store may read the page along with the authentication; an invalid one is
    // refused only after the checks that come before it.
    const decoded = decodeQueryEither(request.query, ListTimeEntriesQuery)
    const ahead = Either.isRight(decoded) ? pageAhead(decoded.right) : undefined
    return Effect.flatMap(authenticateReading(services, request, "timers:read", ahead), (principal) =>
      Effect.flatMap(decoded, (query) =>
        Effect.flatMap(services.store.cursorSecret, (secret) => entriesPage(services, principal, query, ahead, secret))))
  })

/** The page `query` asks for, once the key is known: its cursor checked, its rows read (or taken from the read along). */
const entriesPage = (
  services: Authentication.Services,
  principal: Authentication.PrincipalReading,
  query: PageQuery,
  ahead: ReadAlong.EntriesPage | undefined,
  secret: Uint8Array
): Effect.Effect<TimeEntriesPage, InvalidCursor | StoreError> => {
  const { hashing, store } = services
  const binding: Cursor.Binding = {
    keyId: principal.keyId,
    workspaceId: principal.workspaceId,
    projectId: projectFilter(query),
    limit: pageSize(query)
  }
  let after: Cursor.Position | null = null
  if (query.cursor !== undefined) {
    const position = Cursor.decodeWith(hashing, query.cursor, binding, secret)
    if (Option.isNone(position)) {
      return Effect.fail(
        new InvalidCursor({
          message: "The cursor was not issued for this key, workspace, project filter and limit.",
          details: { parameter: "cursor" }
        })
      )
    }
    after = position.value
  }
  const read = principal.read.entries
  const rows = read !== undefined && ahead !== undefined && samePosition(ahead.query.after, after)
    ? Effect.succeed(read)
    : store.listEntries(scopeOf(principal), entriesQuery(query, after))
  return Effect.map(rows, (rows): TimeEntriesPage => {
    const page = rows.slice(0, binding.limit)
    const last = page[page.length - 1]
    const nextCursor = rows.length > binding.limit && last !== undefined
      ? Cursor.encodeWith(hashing, { startedAt: last.startedAt, id: last.id }, binding, secret)
      : null
    return { entries: page.map(TimerRules.toTimeEntry), nextCursor }
  })
}

type PageQuery = typeof ListTimeEntriesQuery.Type

const projectFilter = (query: PageQuery): string | null => query.projectId?.toLowerCase() ?? null

const pageSize = (query: PageQuery): number =>
  query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(query.limit)

/** The store's query for a page after `after`: one extra row decides whether another page exists. */
const entriesQuery = (query: PageQuery, after: Cursor.Position | null): EntriesQuery => ({
  projectId: projectFilter(query),
  after,
  limit: pageSize(query) + 1
})

/**
 * The page to read along with the authentication: the one the query asks for if its cursor is what it claims to be
 * (checked once the key is known). `undefined` when the cursor is not even well-formed: the request will be refused.
 */
const pageAhead = (query: PageQuery): ReadAlong.EntriesPage | undefined => {
  if (query.cursor === undefined) return { _tag: "EntriesPage", query: entriesQuery(query, null) }
  const claimed = Cursor.peek(query.cursor)
  return Option.isNone(claimed) ? undefined : { _tag: "EntriesPage", query: entriesQuery(query, claimed.value) }
}

const samePosition = (a: Cursor.Position | null, b: Cursor.Position | null): boolean =>
  a === null || b === null ? a === b : a.startedAt === b.startedAt && a.id === b.id
