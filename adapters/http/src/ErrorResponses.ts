/**
 * The spec's error responses over HTTP: the status of every error code (spec section 7, plus the transport's own
 * `NOT_FOUND`, `METHOD_NOT_ALLOWED` and `NOT_READY`), one response schema per code for the `HttpApi` definition, and
 * the error body every failure is written as.
 *
 * @since 0.1.0
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Errors } from "@stint/core"
import * as Schema from "effect/Schema"
import * as Redact from "./internal/redact.js"

/**
 * The code of each error the operations can fail with, by tag. (`Errors.ErrorCode` is only `string`: the classes'
 * `code` getters widen their static literal.)
 *
 * @since 0.1.0
 */
export const codeOfTag = {
  InvalidRequest: Errors.InvalidRequest.code,
  InvalidCursor: Errors.InvalidCursor.code,
  IdempotencyKeyRequired: Errors.IdempotencyKeyRequired.code,
  InvalidApiKey: Errors.InvalidApiKey.code,
  InsufficientScope: Errors.InsufficientScope.code,
  Forbidden: Errors.Forbidden.code,
  ResourceNotFound: Errors.ResourceNotFound.code,
  ProjectNotFound: Errors.ProjectNotFound.code,
  TimerNotFound: Errors.TimerNotFound.code,
  IdempotencyConflict: Errors.IdempotencyConflict.code,
  TimerVoided: Errors.TimerVoided.code,
  TimerAlreadyStopped: Errors.TimerAlreadyStopped.code,
  ApiKeyRateLimited: Errors.ApiKeyRateLimited.code,
  StoreError: Errors.StoreError.code
} as const satisfies Record<Errors.ApiError["_tag"], string>

/**
 * The spec's error codes (section 7) and `INTERNAL_ERROR`.
 *
 * @since 0.1.0
 */
export type ApiCode = (typeof codeOfTag)[keyof typeof codeOfTag]

/**
 * The HTTP status of each error code the operations can fail with (spec section 7).
 *
 * @since 0.1.0
 */
export const statusOf = {
  INVALID_REQUEST: 400,
  INVALID_CURSOR: 400,
  IDEMPOTENCY_KEY_REQUIRED: 400,
  INVALID_API_KEY: 401,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  RESOURCE_NOT_FOUND: 404,
  PROJECT_NOT_FOUND: 404,
  TIMER_NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409,
  TIMER_VOIDED: 409,
  TIMER_ALREADY_STOPPED: 409,
  API_KEY_RATE_LIMITED: 429,
  INTERNAL_ERROR: 500
} as const satisfies Record<ApiCode, number>

/**
 * Codes the transport answers by itself, before any operation runs: an unknown path, a known path with a method it
 * does not serve, and a failed readiness probe.
 *
 * @since 0.1.0
 */
export const transportStatusOf = {
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_READY: 503
} as const

/** @since 0.1.0 */
export type TransportCode = keyof typeof transportStatusOf

/** @since 0.1.0 */
export type Code = ApiCode | TransportCode

/** The message a 500 carries: never the cause. @since 0.1.0 */
export const INTERNAL_MESSAGE = "An internal error occurred. Keep the requestId if you report it."

const Details = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const NonEmpty = Schema.String.pipe(Schema.minLength(1))

/** `PROJECT_NOT_FOUND` → `ProjectNotFoundError`, `INTERNAL_ERROR` → `InternalError`. */
const schemaName = (code: string): string => {
  const pascal = code.toLowerCase().replace(/(?:^|_)([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())
  return pascal.endsWith("Error") ? pascal : `${pascal}Error`
}

/**
 * The spec's error body for one code: `{ error: { code, message, details }, requestId }`, annotated with the code's
 * status so that an `HttpApi` endpoint declares it with `addError`, and a typed client decodes it from the wire.
 *
 * @since 0.1.0
 */
export const response = <const C extends ApiCode>(code: C, description: string) =>
  Schema.Struct({
    error: Schema.Struct({
      code: Schema.Literal(code),
      message: NonEmpty,
      details: Details
    }),
    requestId: NonEmpty
  }).annotations({
    identifier: schemaName(code),
    description,
    ...HttpApiSchema.annotations({ status: statusOf[code] })
  })

/** @since 0.1.0 */
export const InvalidRequest = response("INVALID_REQUEST", "Input invalid; `details` names the offending parameter or field.")
/** @since 0.1.0 */
export const InvalidCursor = response("INVALID_CURSOR", "The cursor was not issued for this key, workspace, filter and limit.")
/** @since 0.1.0 */
export const IdempotencyKeyRequired = response(
  "IDEMPOTENCY_KEY_REQUIRED",
  "The Idempotency-Key header is missing, or its trimmed length is not 1 to 255."
)
/** @since 0.1.0 */
export const InvalidApiKey = response(
  "INVALID_API_KEY",
  "The key is missing, malformed, unknown, expired, revoked, or no longer bound to a workspace membership."
)
/** @since 0.1.0 */
export const InsufficientScope = response("INSUFFICIENT_SCOPE", "The key lacks the operation's scope.")
/** @since 0.1.0 */
export const Forbidden = response("FORBIDDEN", "Only workspace owners and admins can create projects.")
/** @since 0.1.0 */
export const ResourceNotFound = response(
  "RESOURCE_NOT_FOUND",
  "The client is unknown, archived, or outside the key's workspace."
)
/** @since 0.1.0 */
export const ProjectNotFound = response("PROJECT_NOT_FOUND", "The project is not accessible or not ready for tracking.")
/** @since 0.1.0 */
export const TimerNotFound = response(
  "TIMER_NOT_FOUND",
  "The timer does not exist or is not the caller's in this workspace."
)
/** @since 0.1.0 */
export const IdempotencyConflict = response(
  "IDEMPOTENCY_CONFLICT",
  "This Idempotency-Key was already used with different input."
)
/** @since 0.1.0 */
export const TimerVoided = response("TIMER_VOIDED", "The timer was voided.")
/** @since 0.1.0 */
export const TimerAlreadyStopped = response("TIMER_ALREADY_STOPPED", "The timer is already stopped.")
/** @since 0.1.0 */
export const ApiKeyRateLimited = response(
  "API_KEY_RATE_LIMITED",
  "More than 120 requests of this key in 60 seconds. No Retry-After header is sent."
)
/** @since 0.1.0 */
export const InternalError = response(
  "INTERNAL_ERROR",
  "Server fault; keep the requestId. Retry timer mutations only with the same Idempotency-Key and input; after " +
    "createProject, list projects and reconcile instead of retrying."
)

/**
 * The error body as the wire carries it.
 *
 * @since 0.1.0
 */
export interface Body {
  readonly error: {
    readonly code: Code
    readonly message: string
    readonly details: Readonly<Record<string, unknown>>
  }
  readonly requestId: string
}

/**
 * Writes the error body (the JSON text of a response).
 *
 * @since 0.1.0
 */
export const body = (
  code: Code,
  message: string,
  details: Readonly<Record<string, unknown>>,
  requestId: string
): string => {
  const value: Body = { error: { code, message, details }, requestId }
  return Redact.keys(JSON.stringify(value))
}
