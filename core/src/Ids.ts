/**
 * Where new ids come from. The default writes UUIDv7 (48-bit millisecond time from `Clock`, 74 random bits from the
 * platform's cryptographic source), lowercase. Tests and embedders may provide their own.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { hexByte as hex, randomBytes } from "./internal/crypto.js"

/** Random bytes drawn from the platform's source a page at a time: one call per 409 ids instead of one per id. */
const POOL_BYTES = 4096
let pool: Uint8Array = new Uint8Array(0)
let used = POOL_BYTES

/**
 * A UUIDv7 for the given epoch milliseconds.
 *
 * @since 0.1.0
 */
export const uuidV7 = (millis: number): string => {
  if (used + 10 > pool.length) {
    pool = randomBytes(POOL_BYTES)
    used = 0
  }
  const r = used
  used += 10
  const time = Math.max(0, Math.floor(millis))
  // The 48-bit time as two 24-bit halves (exact below 2^53).
  const high = Math.floor(time / 0x1000000) % 0x1000000
  const low = time % 0x1000000
  const random = (i: number): number => pool[r + i] as number
  return hex(high >>> 16) + hex(high >>> 8) + hex(high) + hex(low >>> 16) + "-" + hex(low >>> 8) + hex(low) + "-" +
    hex((random(0) & 0x0f) | 0x70) + hex(random(1)) + "-" + hex((random(2) & 0x3f) | 0x80) + hex(random(3)) + "-" +
    hex(random(4)) + hex(random(5)) + hex(random(6)) + hex(random(7)) + hex(random(8)) + hex(random(9))
}

/**
 * The id generator. Defaults to UUIDv7 on the current `Clock`.
 *
 * @since 0.1.0
 */
export class Ids extends Context.Reference<Ids>()("@stint/core/Ids", {
  defaultValue: (): { readonly next: Effect.Effect<string> } => ({
    next: Effect.map(Clock.currentTimeMillis, uuidV7)
  })
}) {}

/**
 * A fresh id from the current generator.
 *
 * @since 0.1.0
 */
export const next: Effect.Effect<string> = Effect.flatMap(Ids, (ids) => ids.next)
