/**
 * `@stint/client`: the official typed client of Stint's REST API, for Node 20 and browsers. This entry is the
 * Promise face, usable without knowing Effect:
 *
 * ```ts
 * const stint = new StintClient({ baseUrl, apiKey })
 * await stint.startTimer({ projectId })
 * ```
 *
 * Effect users import the service from `@stint/client/StintClient` (`StintClient` tag, `make`, `layer`); both faces
 * run the same implementation and throw or fail with the same error classes.
 *
 * @since 0.1.0
 */

/** The Promise client. @since 0.1.0 */
export { type PromiseClientOptions, StintClient } from "./Promise.js"
/** Options and their defaults. @since 0.1.0 */
export type { RateLimitOptions, RetryOptions, StintClientOptions } from "./Options.js"
/** Requests, responses and resources. @since 0.1.0 */
export type * from "./Resources.js"
/** One class per error code of the spec, and the transport's failures. @since 0.1.0 */
export {
  ApiError,
  type ApiErrorFields,
  ApiKeyRateLimited,
  type ConflictFields,
  type Details,
  type ErrorCode,
  Forbidden,
  IdempotencyConflict,
  IdempotencyKeyRequired,
  InsufficientScope,
  InternalError,
  InvalidApiKey,
  InvalidCursor,
  InvalidRequest,
  NetworkError,
  ProjectNotFound,
  RequestTimeout,
  ResourceNotFound,
  StintError,
  TimerAlreadyStopped,
  TimerNotFound,
  TimerVoided,
  type TransportError,
  UnexpectedResponse
} from "./Errors.js"
