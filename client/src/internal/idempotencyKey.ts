/**
 * A fresh `Idempotency-Key` for each logical start or stop: a random UUID (version 4) from the platform's
 * cryptographic source (`crypto.getRandomValues`, in Node 20 and every browser, secure context or not).
 */
import * as Effect from "effect/Effect"

export const make: Effect.Effect<string> = Effect.sync(() => {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
})
