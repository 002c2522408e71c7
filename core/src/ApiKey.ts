/**
 * Personal API keys: the plaintext format, the digest stored at rest, the `Authorization` header, expiry and scopes.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Base64Url from "./internal/base64url.js"
import * as Hashing from "./Hashing.js"
import { randomBytes } from "./internal/crypto.js"
import type { KeyRecord } from "./Records.js"
import { SCOPES, type Scope } from "./Schemas.js"

/** @since 0.1.0 */
export const PREFIX = "stint_"

/**
 * A presented key is well-formed when it is `stint_` followed by 16 to 200 base64url characters.
 *
 * @since 0.1.0
 */
export const WELL_FORMED = /^stint_[A-Za-z0-9_-]{16,200}$/

/** Keys are refused from the instant `createdAt + 365 days` on. @since 0.1.0 */
export const LIFETIME_MILLIS = 365 * 24 * 60 * 60 * 1000

/** Every scope; keys created in Settings carry all five. @since 0.1.0 */
export const ALL_SCOPES: ReadonlyArray<Scope> = SCOPES

/**
 * A new plaintext key: `stint_` and 43 base64url characters (32 random bytes).
 *
 * @since 0.1.0
 */
export const generate = (): string => PREFIX + Base64Url.encode(randomBytes(32))

/** @since 0.1.0 */
export const isWellFormed = (key: string): boolean => WELL_FORMED.test(key)

/**
 * The SHA-256 digest (lowercase hex) under which a key is stored.
 *
 * @since 0.1.0
 */
export const digest = (key: string): Effect.Effect<string> => Hashing.hex(key)

/**
 * `digest` with a given hashing, synchronously.
 *
 * @since 0.1.0
 */
export const digestWith = (hashing: Hashing.HashingShape, key: string): string => Hashing.sha256Hex(hashing, key)

/**
 * The key of an `Authorization: Bearer <key>` header (scheme case-insensitive); `None` when the header is missing,
 * uses another scheme, or the key is not well-formed.
 *
 * @since 0.1.0
 */
export const fromAuthorization = (header: string | undefined): Option.Option<string> => {
  const key = bearerToken(header)
  return key !== undefined && isWellFormed(key) ? Option.some(key) : Option.none()
}

/**
 * The token of an `Authorization` header of the form `Bearer <token>` (scheme case-insensitive, one token), well-formed
 * key or not; `undefined` when the header is missing or is not of that form (another scheme, no token, two tokens).
 *
 * @since 0.1.0
 */
export const bearerToken = (header: string | undefined): string | undefined =>
  header === undefined ? undefined : /^bearer +([^ ]+) *$/i.exec(header)?.[1]

/**
 * Why a stored key does not authenticate at `now`, or `None` when it does.
 *
 * @since 0.1.0
 */
export const refusal = (key: KeyRecord, now: number): Option.Option<"revoked" | "expired" | "not a member"> => {
  // A revocation takes effect at once, whatever time it carries (a server whose clock runs behind still refuses).
  if (key.revokedAt !== null) return Option.some("revoked")
  if (now >= key.createdAt + LIFETIME_MILLIS) return Option.some("expired")
  if (key.membership === null) return Option.some("not a member")
  return Option.none()
}

/** @since 0.1.0 */
export const hasScope = (key: { readonly scopes: ReadonlyArray<Scope> }, scope: Scope): boolean =>
  key.scopes.includes(scope)
