/**
 * Idempotent timer mutations. A key is scoped to the API key's user and workspace and compared after trimming; the
 * fingerprint covers the operation, its path parameters and the JSON-equal body; only 2xx responses are stored, and
 * for 24 hours by default. `decide` is the whole policy as a pure function of the stored record.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { canonicalJson } from "./internal/canonicalJson.js"
import * as Hashing from "./Hashing.js"
import { codePointLength } from "./Schemas.js"

/** @since 0.1.0 */
export const MAX_KEY_LENGTH = 255

/** @since 0.1.0 */
export const DEFAULT_RETENTION_MILLIS = 24 * 60 * 60 * 1000

/**
 * The usable key of an `Idempotency-Key` header: trimmed, 1 to 255 characters; `None` otherwise.
 *
 * @since 0.1.0
 */
export const normalizeKey = (header: string | undefined): Option.Option<string> => {
  if (header === undefined) return Option.none()
  const key = header.trim()
  const length = codePointLength(key)
  return length >= 1 && length <= MAX_KEY_LENGTH ? Option.some(key) : Option.none()
}

/**
 * What "the same input" means: the operation, its path parameters and its body.
 *
 * @since 0.1.0
 */
export interface Input {
  readonly operation: string
  readonly path: Readonly<Record<string, string>>
  /** The parsed JSON body, or `undefined` for operations that ignore bodies. */
  readonly body: unknown
}

/**
 * A hex SHA-256 of the input's canonical JSON: JSON-equal bodies give equal fingerprints. Any depth of body is fine
 * (the canonical form is written without recursion); a cyclic one dies with a `TypeError`.
 *
 * @since 0.1.0
 */
export const fingerprint = (input: Input): Effect.Effect<string> =>
  Effect.map(Hashing.Hashing, (hashing) => fingerprintWith(hashing, input))

/**
 * `fingerprint` with a given hashing, synchronously.
 *
 * @since 0.1.0
 */
export const fingerprintWith = (hashing: Hashing.HashingShape, input: Input): string =>
  Hashing.sha256Hex(hashing, canonicalJson({ operation: input.operation, path: input.path, body: input.body ?? null }))

/**
 * The response snapshot replayed byte for byte.
 *
 * @since 0.1.0
 */
export interface StoredResponse {
  readonly status: number
  readonly body: string
}

/**
 * A stored idempotency record. `response` is `null` while the first request is still executing (for stores that
 * reserve a key before executing; Stint's own adapters hold a lock instead and never store a reservation).
 *
 * @since 0.1.0
 */
export interface IdempotencyRecord {
  readonly key: string
  readonly fingerprint: string
  /** Epoch milliseconds. */
  readonly createdAt: number
  readonly response: StoredResponse | null
}

/**
 * What to do with a request, given what is stored under its key.
 *
 * @since 0.1.0
 */
export type Decision = Data.TaggedEnum<{
  /** Nothing usable is stored: execute. */
  Fresh: {}
  /** Same input, stored success: answer with the snapshot. */
  Replay: { readonly response: StoredResponse }
  /** Different input under the key: 409 `IDEMPOTENCY_CONFLICT`. */
  Conflict: {}
  /** Same key still executing elsewhere: wait, then decide again. */
  InFlight: {}
}>

/** @since 0.1.0 */
export const Decision = Data.taggedEnum<Decision>()

/**
 * The idempotency decision table. Records older than `retentionMillis` are forgotten; a different fingerprint conflicts
 * even while the first request is in flight.
 *
 * @since 0.1.0
 */
export const decide = (
  record: Option.Option<IdempotencyRecord>,
  requestFingerprint: string,
  now: number,
  retentionMillis: number = DEFAULT_RETENTION_MILLIS
): Decision => {
  if (Option.isNone(record) || now >= record.value.createdAt + retentionMillis) return Decision.Fresh()
  if (record.value.fingerprint !== requestFingerprint) return Decision.Conflict()
  if (record.value.response === null) return Decision.InFlight()
  return Decision.Replay({ response: record.value.response })
}
