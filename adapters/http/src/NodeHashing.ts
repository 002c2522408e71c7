/**
 * The core's `Hashing` port on `node:crypto`: native, synchronous SHA-256 and HMAC-SHA-256 for the server.
 *
 * @since 0.1.0
 */
import { Hashing } from "@stint/core"
import * as Layer from "effect/Layer"
import { createHash, createHmac } from "node:crypto"

/**
 * SHA-256 and HMAC-SHA-256 by `node:crypto`.
 *
 * @since 0.1.0
 */
export const hashing: Hashing.HashingShape = {
  sha256: (data) => createHash("sha256").update(data).digest(),
  hmacSha256: (key, data) => createHmac("sha256", key).update(data).digest()
}

/**
 * Provides `hashing` as the core's `Hashing`.
 *
 * @since 0.1.0
 */
export const layer: Layer.Layer<never> = Layer.succeed(Hashing.Hashing, hashing)
