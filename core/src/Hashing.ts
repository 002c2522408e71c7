/**
 * The hashing port: SHA-256 and HMAC-SHA-256, synchronous, so that authenticating a key, fingerprinting an idempotent
 * request and signing a cursor cost no asynchronous step. The core ships a portable implementation in plain
 * TypeScript as the default; a platform adapter provides its native one (Node: `node:crypto`, see
 * `@stint/http`'s `NodeHashing`). Every implementation must give the same bytes: the digests are stored.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { toHex, utf8 } from "./internal/crypto.js"
import * as Portable from "./internal/sha256.js"

/**
 * What the core hashes with.
 *
 * @since 0.1.0
 */
export interface HashingShape {
  /** The SHA-256 digest (32 bytes) of `data`. */
  readonly sha256: (data: Uint8Array) => Uint8Array
  /** HMAC-SHA-256 (32 bytes) of `data` under `key`. */
  readonly hmacSha256: (key: Uint8Array, data: Uint8Array) => Uint8Array
}

/**
 * The plain-TypeScript implementation, for any platform.
 *
 * @since 0.1.0
 */
export const portable: HashingShape = { sha256: Portable.sha256, hmacSha256: Portable.hmacSha256 }

/**
 * The hashing in force; `portable` unless provided.
 *
 * @since 0.1.0
 */
export class Hashing extends Context.Reference<Hashing>()("@stint/core/Hashing", {
  defaultValue: (): HashingShape => portable
}) {}

/**
 * The lowercase hex SHA-256 of a string's UTF-8 bytes.
 *
 * @since 0.1.0
 */
export const sha256Hex = (hashing: HashingShape, input: string): string => toHex(hashing.sha256(utf8(input)))

/**
 * `sha256Hex` with the hashing in force.
 *
 * @since 0.1.0
 */
export const hex = (input: string): Effect.Effect<string> => Effect.map(Hashing, (hashing) => sha256Hex(hashing, input))
