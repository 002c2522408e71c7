/**
 * The client's errors: one class per error code of the spec's section 7 (each with the HTTP status, the `requestId`
 * and the `details` the server sent), and the failures that never reached an answer: the network, a timeout, and a
 * response that does not decode. Plain `Error` classes with a `_tag`, no Effect types: Promise callers catch them with
 * `instanceof` or `code`, Effect callers with `Effect.catchTag`.
 *
 * @since 0.1.0
 */
import type { Timer } from "@stint/core/Schemas"

/**
 * The `details` object of an error body.
 *
 * @since 0.1.0
 */
export type Details = Readonly<Record<string, unknown>>

/**
 * Every error the client fails with.
 *
 * @since 0.1.0
 */
export abstract class StintError extends Error {
  /** The class's name, for `Effect.catchTag` and `switch`. */
  abstract readonly _tag: string
}

/**
 * What an error response carried.
 *
 * @since 0.1.0
 */
export interface ApiErrorFields {
  readonly message: string
  readonly requestId: string
  readonly details: Details
}

/**
 * An error response of the API (spec section 7): its code, its status, and the body's message, `details` and
 * `requestId` (keep it when you report a problem).
 *
 * @since 0.1.0
 */
export abstract class ApiError extends StintError {
  abstract readonly code: ErrorCode
  abstract readonly status: number
  readonly requestId: string
  readonly details: Details
  constructor(fields: ApiErrorFields) {
    super(fields.message)
    this.requestId = fields.requestId
    this.details = fields.details
  }
}

const apiError = <const Tag extends string, const Code extends ErrorCode, const Status extends number>(
  tag: Tag,
  code: Code,
  status: Status
) =>
  class extends ApiError {
    readonly _tag: Tag = tag
    readonly code: Code = code
    readonly status: Status = status
    constructor(fields: ApiErrorFields) {
      super(fields)
      this.name = tag
    }
  }

/**
 * What a 409 carries once the client has reconciled: the fields of the body and the active timer read right after.
 *
 * @since 0.1.0
 */
export interface ConflictFields extends ApiErrorFields {
  readonly activeTimer?: Timer | null | undefined
}

const conflict = <const Tag extends string, const Code extends ErrorCode>(tag: Tag, code: Code) =>
  class extends apiError(tag, code, 409) {
    /**
     * The active timer the client read after the conflict (`null`: none is running), so the caller decides with fresh
     * facts; `undefined` when that read failed too.
     */
    readonly activeTimer: Timer | null | undefined
    constructor(fields: ConflictFields) {
      super(fields)
      this.activeTimer = fields.activeTimer
    }
  }

/** 400: input invalid; `details` names the offending field or parameter. Fix before retrying. @since 0.1.0 */
export class InvalidRequest extends apiError("InvalidRequest", "INVALID_REQUEST", 400) {}
/** 400: a cursor this server did not issue for this key, filter and limit. @since 0.1.0 */
export class InvalidCursor extends apiError("InvalidCursor", "INVALID_CURSOR", 400) {}
/** 400: a timer mutation without a usable `Idempotency-Key` (the client always sends one). @since 0.1.0 */
export class IdempotencyKeyRequired extends apiError("IdempotencyKeyRequired", "IDEMPOTENCY_KEY_REQUIRED", 400) {}
/** 401: the key is missing, malformed, expired, revoked, or no longer bound to a membership. @since 0.1.0 */
export class InvalidApiKey extends apiError("InvalidApiKey", "INVALID_API_KEY", 401) {}
/** 403: the key lacks the operation's scope. @since 0.1.0 */
export class InsufficientScope extends apiError("InsufficientScope", "INSUFFICIENT_SCOPE", 403) {}
/** 403: project creation by someone who is not owner or admin. @since 0.1.0 */
export class Forbidden extends apiError("Forbidden", "FORBIDDEN", 403) {}
/** 404: createProject's client is unknown, archived, or outside the workspace. @since 0.1.0 */
export class ResourceNotFound extends apiError("ResourceNotFound", "RESOURCE_NOT_FOUND", 404) {}
/** 404: startTimer's project is not accessible or not ready for tracking. @since 0.1.0 */
export class ProjectNotFound extends apiError("ProjectNotFound", "PROJECT_NOT_FOUND", 404) {}
/** 404: stopTimer's timer does not exist or is not the caller's. @since 0.1.0 */
export class TimerNotFound extends apiError("TimerNotFound", "TIMER_NOT_FOUND", 404) {}
/** 409: an idempotency key reused with another input; carries the active timer read after it. @since 0.1.0 */
export class IdempotencyConflict extends conflict("IdempotencyConflict", "IDEMPOTENCY_CONFLICT") {}
/** 409: stopTimer on a voided timer; carries the active timer read after it. @since 0.1.0 */
export class TimerVoided extends conflict("TimerVoided", "TIMER_VOIDED") {}
/** 409: stopTimer on a stopped timer; carries the active timer read after it. @since 0.1.0 */
export class TimerAlreadyStopped extends conflict("TimerAlreadyStopped", "TIMER_ALREADY_STOPPED") {}
/** 429: the key's window was full even after the client waited for it (other processes use the key). @since 0.1.0 */
export class ApiKeyRateLimited extends apiError("ApiKeyRateLimited", "API_KEY_RATE_LIMITED", 429) {}
/** 500: a server fault, after the client's retries (timer mutations) or reconciliation (createProject). @since 0.1.0 */
export class InternalError extends apiError("InternalError", "INTERNAL_ERROR", 500) {}

/**
 * The error classes by code.
 *
 * @since 0.1.0
 */
export const byCode = {
  INVALID_REQUEST: InvalidRequest,
  INVALID_CURSOR: InvalidCursor,
  IDEMPOTENCY_KEY_REQUIRED: IdempotencyKeyRequired,
  INVALID_API_KEY: InvalidApiKey,
  INSUFFICIENT_SCOPE: InsufficientScope,
  FORBIDDEN: Forbidden,
  RESOURCE_NOT_FOUND: ResourceNotFound,
  PROJECT_NOT_FOUND: ProjectNotFound,
  TIMER_NOT_FOUND: TimerNotFound,
  IDEMPOTENCY_CONFLICT: IdempotencyConflict,
  TIMER_VOIDED: TimerVoided,
  TIMER_ALREADY_STOPPED: TimerAlreadyStopped,
  API_KEY_RATE_LIMITED: ApiKeyRateLimited,
  INTERNAL_ERROR: InternalError
} as const

/**
 * The error codes of the spec's section 7.
 *
 * @since 0.1.0
 */
export type ErrorCode =
  | "INVALID_REQUEST"
  | "INVALID_CURSOR"
  | "IDEMPOTENCY_KEY_REQUIRED"
  | "INVALID_API_KEY"
  | "INSUFFICIENT_SCOPE"
  | "FORBIDDEN"
  | "RESOURCE_NOT_FOUND"
  | "PROJECT_NOT_FOUND"
  | "TIMER_NOT_FOUND"
  | "IDEMPOTENCY_CONFLICT"
  | "TIMER_VOIDED"
  | "TIMER_ALREADY_STOPPED"
  | "API_KEY_RATE_LIMITED"
  | "INTERNAL_ERROR"

/**
 * The error class of a code.
 *
 * @since 0.1.0
 */
export type ErrorOf<Code extends ErrorCode> = InstanceType<(typeof byCode)[Code]>

/**
 * The request never got an answer: the connection failed or was cut (DNS, refused, reset, dropped response).
 *
 * @since 0.1.0
 */
export class NetworkError extends StintError {
  readonly _tag = "NetworkError"
  /** What the platform reported (`cause` holds it too). */
  constructor(cause: unknown) {
    super(`the request got no answer: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
    this.name = "NetworkError"
  }
}

/**
 * No answer within the client's per-request timeout.
 *
 * @since 0.1.0
 */
export class RequestTimeout extends StintError {
  readonly _tag = "RequestTimeout"
  constructor(readonly timeoutMillis: number) {
    super(`no answer within ${timeoutMillis} ms`)
    this.name = "RequestTimeout"
  }
}

/**
 * An answer the client cannot trust: a success body that does not decode with the API's Schema, an error body that is
 * not the spec's, or a code this operation never answers (a wrong `baseUrl` gives `NOT_FOUND`). Never retried unless
 * its status is 5xx (a gateway's answer).
 *
 * @since 0.1.0
 */
export class UnexpectedResponse extends StintError {
  readonly _tag = "UnexpectedResponse"
  constructor(
    readonly status: number,
    readonly requestId: string | undefined,
    readonly reason: string
  ) {
    super(`unexpected ${status} response: ${reason}`)
    this.name = "UnexpectedResponse"
  }
}

/**
 * The failures of every call that are not an error code of the operation.
 *
 * @since 0.1.0
 */
export type TransportError = NetworkError | RequestTimeout | UnexpectedResponse
