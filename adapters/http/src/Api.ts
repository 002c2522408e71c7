/**
 * The one `HttpApi` definition of Stint's seven operations under `/api/v1`: paths, methods, parameters, bodies,
 * successes and the spec's error responses, built from the core's Schemas. The OpenAPI document, the `/docs` page, the
 * server's routes and a typed `HttpApiClient` all derive from it.
 *
 * @since 0.1.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import { Idempotency, Schemas } from "@stint/core"
import * as Schema from "effect/Schema"
import * as ErrorResponses from "./ErrorResponses.js"
import { finishDocument } from "./internal/openApiFinish.js"

/**
 * The bearer security of every operation. Declared so that the OpenAPI document and clients know it; the key itself
 * is checked by the core, in its order of checks, never by a middleware.
 *
 * @since 0.1.0
 */
export class Authorization extends HttpApiMiddleware.Tag<Authorization>()("Authorization", {
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "A personal API key: `Authorization: Bearer stint_…`. The scheme word is case-insensitive."
      )
    )
  },
  failure: ErrorResponses.InvalidApiKey
}) {}

/**
 * The `Idempotency-Key` header of the timer mutations.
 *
 * @since 0.1.0
 */
export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.String.pipe(Schema.minLength(1), Schema.maxLength(Idempotency.MAX_KEY_LENGTH)).annotations({
    description: "Required. Trimmed length 1 to 255. The same key and the same input replay the first success."
  })
})

/**
 * The path parameters of `stopTimer`.
 *
 * @since 0.1.0
 */
export const TimerPath = Schema.Struct({ timerId: Schemas.Uuid })

/**
 * The query of `listTimeEntries` as the document declares it: the core's Schema, with `limit` declared an integer from
 * 1 to 100 (default 20), so generated clients type it as a number. Only the document says so: the core reads the
 * text itself, strictly (decimal digits, no sign, no leading zero, at most 100), and answers `INVALID_REQUEST`
 * otherwise.
 *
 * @since 0.1.0
 */
export const TimeEntriesQuery = Schema.Struct({
  ...Schemas.ListTimeEntriesQuery.fields,
  limit: Schema.optional(Schemas.LimitParam.annotations({
    jsonSchema: {
      type: "integer",
      minimum: 1,
      maximum: 100,
      default: 20,
      description: "Page size: an integer from 1 to 100 in decimal digits (no sign, no leading zero); default 20."
    }
  }))
})

/**
 * The scope each operation requires, as the core checks it.
 *
 * @since 0.1.0
 */
export const scopes = {
  listClients: "clients:read",
  listProjects: "projects:read",
  createProject: "projects:write",
  getActiveTimer: "timers:read",
  startTimer: "timers:write",
  stopTimer: "timers:write",
  listTimeEntries: "timers:read"
} as const satisfies Record<string, Schemas.Scope>

const docs = (name: keyof typeof scopes, summary: string, description: string) =>
  OpenApi.annotations({
    identifier: name,
    summary,
    description: `${description}\n\nScope: \`${scopes[name]}\`.`,
    override: { "x-stint-scope": scopes[name] }
  })

const listClients = HttpApiEndpoint.get("listClients", "/clients")
  .addSuccess(Schemas.ListClientsResponse)
  .addError(ErrorResponses.InvalidRequest)
  .addError(ErrorResponses.InsufficientScope)
  .addError(ErrorResponses.ApiKeyRateLimited)
  .addError(ErrorResponses.InternalError)
  .annotateContext(docs(
    "listClients",
    "List clients",
    "The workspace's active clients the key owner sees: owners and admins every active client, other members the " +
      "clients with a project assigned to them. Ordered by name (case-insensitive), then id."
  ))

const listProjects = HttpApiEndpoint.get("listProjects", "/projects")
  .setUrlParams(Schemas.ListProjectsQuery)
  .addSuccess(Schemas.ListProjectsResponse)
  .addError(ErrorResponses.InvalidRequest)
  .addError(ErrorResponses.InsufficientScope)
  .addError(ErrorResponses.ApiKeyRateLimited)
  .addError(ErrorResponses.InternalError)
  .annotateContext(docs(
    "listProjects",
    "List projects of a client",
    "The unarchived projects of the client that the key owner is assigned to (an unknown or archived client gives " +
      "an empty list). Ordered by name (case-insensitive), then id."
  ))

const createProject = HttpApiEndpoint.post("createProject", "/projects")
  .setPayload(Schemas.CreateProjectBody)
  .addSuccess(Schemas.CreateProjectResponse, { status: 201 })
  .addError(ErrorResponses.InvalidRequest)
  .addError(ErrorResponses.InsufficientScope)
  .addError(ErrorResponses.Forbidden)
  .addError(ErrorResponses.ResourceNotFound)
  .addError(ErrorResponses.ApiKeyRateLimited)
  .addError(ErrorResponses.InternalError)
  .annotateContext(docs(
    "createProject",
    "Create a project",
    "Creates a project under an active client, as a workspace owner or admin, and assigns the creator to it at " +
      "their default rate. `color` absent or null means `#ff5c35`. Takes no Idempotency-Key (one sent is ignored). " +
      "After a 500, list projects and reconcile instead of retrying."
  ))

const getActiveTimer = HttpApiEndpoint.get("getActiveTimer", "/timer")
  .addSuccess(Schemas.ActiveTimerResponse)
  .addError(ErrorResponses.InvalidRequest)
  .addError(ErrorResponses.InsufficientScope)
  .addError(ErrorResponses.ApiKeyRateLimited)
  .addError(ErrorResponses.InternalError)
  .annotateContext(docs(
    "getActiveTimer",
    "Get the active timer",
    "The key owner's running timer in the key's workspace, or null."
  ))

const startTimer = HttpApiEndpoint.post("startTimer", "/timers/start")
  .setHeaders(IdempotencyHeaders)
  .setPayload(Schemas.StartTimerBody)
  .addSuccess(Schemas.TimerMutationResponse)
  .addError(ErrorResponses.InvalidRequest)
  .addError(ErrorResponses.IdempotencyKeyRequired)
  .addError(ErrorResponses.InsufficientScope)
  .addError(ErrorResponses.ProjectNotFound)
  .addError(ErrorResponses.IdempotencyConflict)
  .addError(ErrorResponses.ApiKeyRateLimited)
  .addError(ErrorResponses.InternalError)
  .annotateContext(docs(
    "startTimer",
    "Start a timer",
    "Starts a timer on a project ready for tracking and, in the same atomic step, completes the timer already " +
      "running (its id is `stoppedTimerId`). `billable` defaults to true. A retry with the same Idempotency-Key and " +
      "input replays the first success byte for byte with `Idempotent-Replayed: true`."
  ))

const stopTimer = HttpApiEndpoint.post("stopTimer", "/timers/:timerId/stop")
  .setPath(TimerPath)
  .setHeaders(IdempotencyHeaders)
  .addSuccess(Schemas.TimerMutationResponse)
  .addError(ErrorResponses.InvalidRequest)
  .addError(ErrorResponses.IdempotencyKeyRequired)
  .addError(ErrorResponses.InsufficientScope)
  .addError(ErrorResponses.TimerNotFound)
  .addError(ErrorResponses.IdempotencyConflict)
  .addError(ErrorResponses.TimerVoided)
  .addError(ErrorResponses.TimerAlreadyStopped)
  .addError(ErrorResponses.ApiKeyRateLimited)
  .addError(ErrorResponses.InternalError)
  .annotateContext(docs(
    "stopTimer",
    "Stop a timer",
    "Completes the caller's active timer. Answers `{ \"timer\": null, \"stoppedTimerId\": \"<id>\" }`. Any request " +
      "body is ignored. A retry with the same Idempotency-Key replays the first success with `Idempotent-Replayed: true`."
  ))

const listTimeEntries = HttpApiEndpoint.get("listTimeEntries", "/time-entries")
  .setUrlParams(TimeEntriesQuery)
  .addSuccess(Schemas.TimeEntriesPage)
  .addError(ErrorResponses.InvalidRequest)
  .addError(ErrorResponses.InvalidCursor)
  .addError(ErrorResponses.InsufficientScope)
  .addError(ErrorResponses.ApiKeyRateLimited)
  .addError(ErrorResponses.InternalError)
  .annotateContext(docs(
    "listTimeEntries",
    "List time entries",
    "The key owner's entries in the key's workspace (active, completed and voided), newest first (startedAt, then " +
      "id, descending), in pages of `limit` (default 20). Pass `nextCursor` unchanged, with the same filter and " +
      "limit, for the next page; null means no further page."
  ))

/** @since 0.1.0 */
export class Clients extends HttpApiGroup.make("clients")
  .add(listClients)
  .middleware(Authorization)
  .annotate(OpenApi.Description, "The workspace's clients that the key owner sees.")
{}
/** @since 0.1.0 */
export class Projects extends HttpApiGroup.make("projects")
  .add(listProjects)
  .add(createProject)
  .middleware(Authorization)
  .annotate(OpenApi.Description, "A client's projects: listing those the key owner is assigned to, and creating one.")
{}
/** @since 0.1.0 */
export class Timers extends HttpApiGroup.make("timers")
  .add(getActiveTimer)
  .add(startTimer)
  .add(stopTimer)
  .middleware(Authorization)
  .annotate(
    OpenApi.Description,
    "The key owner's one running timer per workspace: reading it, starting one (which completes the running one) " +
      "and stopping it. Starting and stopping take an Idempotency-Key."
  )
{}
/** @since 0.1.0 */
export class TimeEntries extends HttpApiGroup.make("timeEntries")
  .add(listTimeEntries)
  .middleware(Authorization)
  .annotate(OpenApi.Description, "The key owner's history of time entries, newest first, in cursor-linked pages.")
{}

/** The license of the interface (SPDX `identifier`, as OpenAPI 3.1 allows, rather than a URL). */
const license = { name: "MIT", identifier: "MIT" }

/**
 * The definition. `HttpApiClient.make(Api)` gives a typed client; `OpenApi.fromApi(Api)` the OpenAPI document.
 * `HttpApi.make` declares its own decode error on every API; Stint's server never sends it (input is validated by
 * the core, in its order of checks), so the finished document leaves it out. The one server is relative (`/`): the
 * origin that serves the document (at `/api/v1/openapi.json`) serves the API, whatever its host and port.
 *
 * @since 0.1.0
 */
export class Api extends HttpApi.make("stint")
  .add(Clients)
  .add(Projects)
  .add(Timers)
  .add(TimeEntries)
  .prefix("/api/v1")
  .annotateContext(OpenApi.annotations({
    title: "Stint API",
    version: "1.0.0",
    description: "Stint's time-tracking API: clients, projects, the active timer, starting and stopping timers, and " +
      "personal time-entry history. Every response carries `X-Request-Id`; every error body is " +
      "`{ \"error\": { \"code\", \"message\", \"details\" }, \"requestId\" }` and its `requestId` equals that header. " +
      "No `data` envelope, no `Retry-After`.",
    license,
    servers: [{ url: "/", description: "The origin that serves this document." }],
    transform: finishDocument
  }))
{}

type GroupsOf<A> = A extends HttpApi.HttpApi<string, infer Groups, infer _E, infer _R> ? Groups : never

/**
 * The names of the seven operations, as the definition declares them (`listClients`, …, `listTimeEntries`).
 *
 * @since 0.1.0
 */
export type OperationName = HttpApiEndpoint.HttpApiEndpoint.Name<HttpApiGroup.HttpApiGroup.Endpoints<GroupsOf<typeof Api>>>
