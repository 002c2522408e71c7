/**
 * One tagged error per error code of the spec (section 7), the storage fault, and the admin side's errors. The HTTP
 * status of each code lives in the HTTP adapter; the core only knows codes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const Details = Schema.Record({ key: Schema.String, value: Schema.Unknown })

const fields = {
  message: Schema.String,
  details: Schema.optionalWith(Details, { default: () => ({}) })
}

/** 400: input invalid; `details` names the offending field or parameter. @since 0.1.0 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", fields) {
  static readonly code = "INVALID_REQUEST" as const
  get code(): "INVALID_REQUEST" {
    return InvalidRequest.code
  }
}

/** 400: a well-formed cursor this server did not issue for this key, workspace, filter and limit. @since 0.1.0 */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", fields) {
  static readonly code = "INVALID_CURSOR" as const
  get code(): "INVALID_CURSOR" {
    return InvalidCursor.code
  }
}

/** 400: a timer mutation without a usable `Idempotency-Key`. @since 0.1.0 */
export class IdempotencyKeyRequired
  extends Schema.TaggedError<IdempotencyKeyRequired>()("IdempotencyKeyRequired", fields)
{
  static readonly code = "IDEMPOTENCY_KEY_REQUIRED" as const
  get code(): "IDEMPOTENCY_KEY_REQUIRED" {
    return IdempotencyKeyRequired.code
  }
}

/** 401: key missing, malformed, unknown, expired, revoked, or its user no longer a member. @since 0.1.0 */
export class InvalidApiKey extends Schema.TaggedError<InvalidApiKey>()("InvalidApiKey", fields) {
  static readonly code = "INVALID_API_KEY" as const
  get code(): "INVALID_API_KEY" {
    return InvalidApiKey.code
  }
}

/** 403: the key lacks the operation's scope. @since 0.1.0 */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()("InsufficientScope", fields) {
  static readonly code = "INSUFFICIENT_SCOPE" as const
  get code(): "INSUFFICIENT_SCOPE" {
    return InsufficientScope.code
  }
}

/** 403: project creation by someone who is not owner or admin. @since 0.1.0 */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields) {
  static readonly code = "FORBIDDEN" as const
  get code(): "FORBIDDEN" {
    return Forbidden.code
  }
}

/** 404: createProject's client is unknown, archived, or outside the workspace. @since 0.1.0 */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", fields) {
  static readonly code = "RESOURCE_NOT_FOUND" as const
  get code(): "RESOURCE_NOT_FOUND" {
    return ResourceNotFound.code
  }
}

/** 404: startTimer's project is not accessible or not ready for tracking. @since 0.1.0 */
export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()("ProjectNotFound", fields) {
  static readonly code = "PROJECT_NOT_FOUND" as const
  get code(): "PROJECT_NOT_FOUND" {
    return ProjectNotFound.code
  }
}

/** 404: stopTimer's timer does not exist or is not the caller's in this workspace. @since 0.1.0 */
export class TimerNotFound extends Schema.TaggedError<TimerNotFound>()("TimerNotFound", fields) {
  static readonly code = "TIMER_NOT_FOUND" as const
  get code(): "TIMER_NOT_FOUND" {
    return TimerNotFound.code
  }
}

/** 409: an idempotency key reused with different input. @since 0.1.0 */
export class IdempotencyConflict extends Schema.TaggedError<IdempotencyConflict>()("IdempotencyConflict", fields) {
  static readonly code = "IDEMPOTENCY_CONFLICT" as const
  get code(): "IDEMPOTENCY_CONFLICT" {
    return IdempotencyConflict.code
  }
}

/** 409: stopTimer on a voided entry. @since 0.1.0 */
export class TimerVoided extends Schema.TaggedError<TimerVoided>()("TimerVoided", fields) {
  static readonly code = "TIMER_VOIDED" as const
  get code(): "TIMER_VOIDED" {
    return TimerVoided.code
  }
}

/** 409: stopTimer on an entry that is already completed. @since 0.1.0 */
export class TimerAlreadyStopped extends Schema.TaggedError<TimerAlreadyStopped>()("TimerAlreadyStopped", fields) {
  static readonly code = "TIMER_ALREADY_STOPPED" as const
  get code(): "TIMER_ALREADY_STOPPED" {
    return TimerAlreadyStopped.code
  }
}

/** 429: the key's sliding window is full. @since 0.1.0 */
export class ApiKeyRateLimited extends Schema.TaggedError<ApiKeyRateLimited>()("ApiKeyRateLimited", fields) {
  static readonly code = "API_KEY_RATE_LIMITED" as const
  get code(): "API_KEY_RATE_LIMITED" {
    return ApiKeyRateLimited.code
  }
}

/**
 * The storage failed (connection lost, timeout, constraint the core did not expect). Transports answer it with 500
 * `INTERNAL_ERROR` and log the cause; the client never sees the message.
 *
 * @since 0.1.0
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  message: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  static readonly code = "INTERNAL_ERROR" as const
  get code(): "INTERNAL_ERROR" {
    return StoreError.code
  }
}

/**
 * Every error the public operations can fail with.
 *
 * @since 0.1.0
 */
export type ApiError =
  | InvalidRequest
  | InvalidCursor
  | IdempotencyKeyRequired
  | InvalidApiKey
  | InsufficientScope
  | Forbidden
  | ResourceNotFound
  | ProjectNotFound
  | TimerNotFound
  | IdempotencyConflict
  | TimerVoided
  | TimerAlreadyStopped
  | ApiKeyRateLimited
  | StoreError

/**
 * The spec's error codes, in the order of section 7, plus `INTERNAL_ERROR`.
 *
 * @since 0.1.0
 */
export type ErrorCode = ApiError["code"]

// ---------------------------------------------------------------------------------------------------------------------
// Admin side (operators, the website, fixtures)
// ---------------------------------------------------------------------------------------------------------------------

/**
 * Admin input (a fixture or a command's arguments) that breaks a rule; `path` is the JSON path of the problem, e.g.
 * `$.timeEntries[2].endedAt`.
 *
 * @since 0.1.0
 */
export class AdminInputInvalid extends Schema.TaggedError<AdminInputInvalid>()("AdminInputInvalid", {
  path: Schema.String,
  message: Schema.String
}) {}

/** An admin command named a record that does not exist. @since 0.1.0 */
export class RecordNotFound extends Schema.TaggedError<RecordNotFound>()("RecordNotFound", {
  entity: Schema.String,
  id: Schema.String
}) {
  override get message() {
    return `${this.entity} ${this.id} not found`
  }
}

/** An admin write that would break a uniqueness rule (an id taken, a second active entry). @since 0.1.0 */
export class RecordConflict extends Schema.TaggedError<RecordConflict>()("RecordConflict", {
  entity: Schema.String,
  id: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.entity} ${this.id}: ${this.reason}`
  }
}

/** Every error of the admin operations. @since 0.1.0 */
export type AdminError = AdminInputInvalid | RecordNotFound | RecordConflict | StoreError
