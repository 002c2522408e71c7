/**
 * Key format, the Authorization header, expiry at exactly 365 days, and digests.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Option } from "effect"
import { ApiKey } from "@stint/core"

const record = (createdAt: number, revokedAt: number | null = null, member = true) => ({
  id: "k",
  userId: "u",
  workspaceId: "w",
  scopes: [],
  createdAt,
  revokedAt,
  membership: member ? { role: "member" as const, payRateCents: 0 } : null
})

describe("ApiKey", () => {
  it("generates stint_ and 43 base64url characters, distinct each time", () => {
    const keys = new Set(Array.from({ length: 100 }, ApiKey.generate))
    expect(keys.size).toBe(100)
    for (const key of keys) expect(key).toMatch(/^stint_[A-Za-z0-9_-]{43}$/)
  })

  it.prop("accepts exactly stint_ and 16 to 200 base64url characters", [
    fc.string({ unit: fc.constantFrom(..."abcXYZ019-_!+/= é"), maxLength: 210 })
  ], ([tail]) => {
    const expected = tail.length >= 16 && tail.length <= 200 && /^[A-Za-z0-9_-]*$/.test(tail)
    expect(ApiKey.isWellFormed(`stint_${tail}`)).toBe(expected)
    expect(ApiKey.isWellFormed(`STINT_${tail}`)).toBe(false)
  })

  it("draws the line at exactly 16 and 200 characters after stint_", () => {
    const tail = (n: number) => "aZ0-_".repeat(41).slice(0, n)
    expect([15, 16, 17, 199, 200, 201].map((n) => ApiKey.isWellFormed(`stint_${tail(n)}`))).toEqual([
      false,
      true,
      true,
      true,
      true,
      false
    ])
  })

  it("reads Bearer in any case and nothing else", () => {
    const key = `stint_${"a".repeat(20)}`
    expect(ApiKey.fromAuthorization(`Bearer ${key}`)).toEqual(Option.some(key))
    expect(ApiKey.fromAuthorization(`bEARER ${key}`)).toEqual(Option.some(key))
    for (const bad of [undefined, key, `Basic ${key}`, `Bearer`, `Bearer ${key} x`, `Bearer\t${key}`, `Bearer stint_x`]) {
      expect(ApiKey.fromAuthorization(bad)).toEqual(Option.none())
    }
  })

  it("refuses a key from the instant createdAt + 365 days on, once revoked, or without membership", () => {
    const day = 24 * 60 * 60 * 1000
    expect(ApiKey.refusal(record(0), 365 * day - 1)).toEqual(Option.none())
    expect(ApiKey.refusal(record(0), 365 * day)).toEqual(Option.some("expired"))
    expect(ApiKey.refusal(record(0, 10), 10)).toEqual(Option.some("revoked"))
    // A revocation counts at once, whatever time it carries (a clock behind the revoking server's still refuses).
    expect(ApiKey.refusal(record(0, 10), 9)).toEqual(Option.some("revoked"))
    expect(ApiKey.refusal(record(0, null, false), 1)).toEqual(Option.some("not a member"))
  })

  it.effect("stores a SHA-256 hex digest", () =>
    Effect.gen(function*() {
      // SHA-256("abc"), a published test vector.
      expect(yield* ApiKey.digest("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }))
})
