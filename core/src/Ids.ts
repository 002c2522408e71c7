/**
 * Where new ids come from. The default writes UUIDv7 (48-bit millisecond time from `Clock`, 74 random bits from the
 * platform's cryptographic source), lowercase. Tests and embedders may provide their own.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { randomBytes, toHex } from "./internal/crypto.js"

/**
 * A UUIDv7 for the given epoch milliseconds.
 *
 * @since 0.1.0
 */
export const uuidV7 = (millis: number): string => {
  const bytes = randomBytes(16)
  let time = Math.max(0, Math.floor(millis))
  for (let i = 5; i >= 0; i--) {
    bytes[i] = time % 256
    time = Math.floor(time / 256)
  }
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80
  const hex = toHex(bytes)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
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
