/**
 * The tunable policies of a Stint instance. Defaults are the spec's; the rate limit is configurable for load tests.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import { DEFAULT_RETENTION_MILLIS } from "./Idempotency.js"
import * as RateLimit from "./RateLimit.js"

/**
 * The policies the operations read.
 *
 * @since 0.1.0
 */
export interface SettingsShape {
  /** Requests per key per sliding window. Default: 120 per 60 s. */
  readonly rateLimit: RateLimit.Policy
  /** How long an idempotency key is remembered. Default: 24 h. */
  readonly idempotencyRetentionMillis: number
}

/** @since 0.1.0 */
export const defaults: SettingsShape = {
  rateLimit: RateLimit.defaultPolicy,
  idempotencyRetentionMillis: DEFAULT_RETENTION_MILLIS
}

/**
 * The settings in force; the spec's defaults unless provided.
 *
 * @since 0.1.0
 */
export class Settings extends Context.Reference<Settings>()("@stint/core/Settings", {
  defaultValue: (): SettingsShape => defaults
}) {}
