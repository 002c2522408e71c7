/**
 * The seven operations as the client calls them: method, path, the success status and Schema (the core's, which the
 * server writes with), and the error codes each may answer (section 4 of the spec, as `@stint/http`'s `HttpApi`
 * definition declares them; a test holds the two together).
 */
import * as Schemas from "@stint/core/Schemas"
import type * as Schema from "effect/Schema"
import type { ErrorCode } from "../Errors.js"

/** How the client may repeat an operation. */
export type Kind =
  /** Safe to repeat: retried after uncertain failures and after 429. */
  | "read"
  /** Repeated only with the same `Idempotency-Key` and bytes. */
  | "timerMutation"
  /** Never repeated: reconciled by listing projects. */
  | "createProject"

export interface Operation<A, Codes extends ErrorCode> {
  readonly name: string
  readonly method: "GET" | "POST"
  /** Under the base URL; `:name` marks a path parameter. */
  readonly path: string
  readonly status: number
  readonly success: Schema.Schema<A, unknown>
  readonly errors: ReadonlyArray<Codes>
  readonly kind: Kind
}

const op = <A, I, const Codes extends ErrorCode>(
  name: string,
  method: "GET" | "POST",
  path: string,
  success: Schema.Schema<A, I>,
  errors: ReadonlyArray<Codes>,
  kind: Kind,
  status = 200
): Operation<A, Codes | "INVALID_API_KEY"> => ({
  name,
  method,
  path: `/api/v1${path}`,
  status,
  success: success as Schema.Schema<A, unknown>,
  // Every operation checks the key first.
  errors: ["INVALID_API_KEY", ...errors],
  kind
})

const always = ["INVALID_REQUEST", "INSUFFICIENT_SCOPE", "API_KEY_RATE_LIMITED", "INTERNAL_ERROR"] as const

export const listClients = op("listClients", "GET", "/clients", Schemas.ListClientsResponse, always, "read")

export const listProjects = op("listProjects", "GET", "/projects", Schemas.ListProjectsResponse, always, "read")

export const createProject = op(
  "createProject",
  "POST",
  "/projects",
  Schemas.CreateProjectResponse,
  [...always, "FORBIDDEN", "RESOURCE_NOT_FOUND"],
  "createProject",
  201
)

export const getActiveTimer = op("getActiveTimer", "GET", "/timer", Schemas.ActiveTimerResponse, always, "read")

export const startTimer = op(
  "startTimer",
  "POST",
  "/timers/start",
  Schemas.TimerMutationResponse,
  [...always, "IDEMPOTENCY_KEY_REQUIRED", "PROJECT_NOT_FOUND", "IDEMPOTENCY_CONFLICT"],
  "timerMutation"
)

export const stopTimer = op(
  "stopTimer",
  "POST",
  "/timers/:timerId/stop",
  Schemas.TimerMutationResponse,
  [
    ...always,
    "IDEMPOTENCY_KEY_REQUIRED",
    "TIMER_NOT_FOUND",
    "IDEMPOTENCY_CONFLICT",
    "TIMER_VOIDED",
    "TIMER_ALREADY_STOPPED"
  ],
  "timerMutation"
)

export const listTimeEntries = op(
  "listTimeEntries",
  "GET",
  "/time-entries",
  Schemas.TimeEntriesPage,
  [...always, "INVALID_CURSOR"],
  "read"
)

/** Every operation by name, for the test that compares them with the server's definition. */
export const all = { listClients, listProjects, createProject, getActiveTimer, startTimer, stopTimer, listTimeEntries }

/** An operation's path with its parameters filled in, each percent-encoded. */
export const pathOf = (operation: { readonly path: string }, params: Readonly<Record<string, string>> = {}): string =>
  operation.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params[name] ?? ""))
