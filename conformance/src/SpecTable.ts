/**
 * The spec's status for every error code (section 7, plus the decisions page's route errors) and every success: the
 * kit keeps its own copy, so an adapter's mapping is judged against the spec rather than against itself.
 *
 * @since 0.1.0
 */
import type { OperationName } from "./Stack.js"

/** @since 0.1.0 */
export const errorStatus: Readonly<Record<string, number>> = {
  INVALID_REQUEST: 400,
  INVALID_CURSOR: 400,
  IDEMPOTENCY_KEY_REQUIRED: 400,
  INVALID_API_KEY: 401,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RESOURCE_NOT_FOUND: 404,
  PROJECT_NOT_FOUND: 404,
  TIMER_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  TIMER_VOIDED: 409,
  TIMER_ALREADY_STOPPED: 409,
  API_KEY_RATE_LIMITED: 429,
  INTERNAL_ERROR: 500
}

/** @since 0.1.0 */
export const successStatus = (operation: OperationName): number => operation === "createProject" ? 201 : 200

/**
 * The scope each operation requires.
 *
 * @since 0.1.0
 */
export const requiredScope: Readonly<Record<OperationName, string>> = {
  listClients: "clients:read",
  listProjects: "projects:read",
  createProject: "projects:write",
  getActiveTimer: "timers:read",
  startTimer: "timers:write",
  stopTimer: "timers:write",
  listTimeEntries: "timers:read"
}
