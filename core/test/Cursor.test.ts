/**
 * Cursor laws: round-trip under its binding; any single-character change, any other binding and any other secret are
 * refused; always within the spec's pattern and length.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Option } from "effect"
import { Cursor, Hashing } from "@stint/core"

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const hexLower = (n: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: n, maxLength: n })
const uuid = fc.tuple(hexLower(8), hexLower(4), hexLower(3), fc.constantFrom(..."89ab"), hexLower(3), hexLower(12))
  .map(([a, b, c, v, d, e]) => `${a}-${b}-7${c}-${v}${d}-${e}`)
const position = fc.record({ startedAt: fc.integer({ min: -8_640_000_000_000, max: 8_640_000_000_000 }), id: uuid })
const binding = fc.record({
  keyId: uuid,
  workspaceId: uuid,
  projectId: fc.option(uuid, { nil: null }),
  limit: fc.integer({ min: 1, max: 100 })
})
const secret = fc.uint8Array({ minLength: 32, maxLength: 32 })



describe("Cursor", () => {
  it.effect.prop("round-trips under its binding, within the spec's pattern and length", [position, binding, secret], ([p, b, s]) => Effect.gen(function*() {
    const cursor = yield* (Cursor.encode(p, b, s))
    expect(cursor).toMatch(/^[A-Za-z0-9_-]{1,1024}$/)
    expect(yield* (Cursor.decode(cursor, b, s))).toEqual(Option.some(p))
  }))

  it.effect.prop("refuses any single-character change", [position, binding, secret, fc.nat(), fc.integer({ min: 1, max: 63 })], ([p, b, s, at, shift]) => Effect.gen(function*() {
    const cursor = yield* (Cursor.encode(p, b, s))
    const i = at % cursor.length
    const replaced = ALPHABET[(ALPHABET.indexOf(cursor[i] ?? "A") + shift) % 64] ?? "A"
    const altered = cursor.slice(0, i) + replaced + cursor.slice(i + 1)
    expect(altered).not.toBe(cursor)
    expect(yield* (Cursor.decode(altered, b, s))).toEqual(Option.none())
  }), { fastCheck: { numRuns: 300 } })

  it.effect.prop("refuses truncation and extension", [position, binding, secret, fc.nat()], ([p, b, s, n]) => Effect.gen(function*() {
    const cursor = yield* (Cursor.encode(p, b, s))
    expect(yield* (Cursor.decode(cursor.slice(0, n % cursor.length), b, s))).toEqual(Option.none())
    expect(yield* (Cursor.decode(cursor + ALPHABET[n % 64], b, s))).toEqual(Option.none())
  }))

  it.effect.prop("is refused under any other binding or secret", [position, binding, binding, secret, secret], ([p, b, other, s, otherSecret]) => Effect.gen(function*() {
    const cursor = yield* (Cursor.encode(p, b, s))
    const variants: Array<Cursor.Binding> = [
      { ...b, keyId: other.keyId },
      { ...b, workspaceId: other.workspaceId },
      { ...b, projectId: other.projectId },
      { ...b, projectId: b.projectId === null ? other.keyId : null },
      { ...b, limit: b.limit === 100 ? 99 : b.limit + 1 }
    ]
    for (const variant of variants) {
      const same = JSON.stringify(variant) === JSON.stringify(b)
      expect(Option.isSome(yield* (Cursor.decode(cursor, variant, s)))).toBe(same)
    }
    const sameSecret = otherSecret.every((x, i) => x === s[i])
    expect(Option.isSome(yield* (Cursor.decode(cursor, b, otherSecret)))).toBe(sameSecret)
  }), { fastCheck: { numRuns: 200 } })

  it("keeps its bytes: cursors issued by an earlier build decode, and the same position encodes to them again", () => {
    // Issued by the build of 4394343 (BigInt payload, regex UUID parsing): a client paging across an upgrade keeps them.
    const secret = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1)
    const b = { keyId: "0190a6b2-0000-7000-8000-0000000000e1", workspaceId: "0190a6b2-0000-7000-8000-000000000001", projectId: null, limit: 20 }
    const filtered = { ...b, projectId: "0190a6b2-0000-7000-8000-0000000000d1", limit: 100 }
    const issued: ReadonlyArray<readonly [Cursor.Position, Cursor.Binding, string]> = [
      [{ startedAt: 1772366400123, id: "0190a6b2-9c3f-7abc-8def-0123456789ab" }, b, "AQAAAZypRQp7AZCmspw_eryN7wEjRWeJq1AzYAM8_04pnmYBevvz78OgHlUcS8dYUp5PTJ_wmGF5"],
      [{ startedAt: -62135596800000, id: "ffffffff-ffff-7fff-bfff-ffffffffffff" }, filtered, "Af__x3zt0ygA________f_-__________3-_IkyIQMCwYfn2kDFVZ2bvxcYzEBN3HY4WDxm7K__5"],
      [{ startedAt: 4294967296, id: "00000000-0000-7000-8000-000000000000" }, b, "AQAAAAEAAAAAAAAAAAAAcACAAAAAAAAAAOasq5k434gFW1DMU8z5rSHLwwPzLaJ_LYuCFjYV__fg"]
    ]
    for (const [position, binding, cursor] of issued) {
      expect(Cursor.decodeWith(Hashing.portable, cursor, binding, secret)).toEqual(Option.some(position))
      expect(Cursor.encodeWith(Hashing.portable, position, binding, secret)).toBe(cursor)
    }
  })

  it.effect("refuses strings that are not cursors at all", () => Effect.gen(function*() {
    const b = { keyId: "k", workspaceId: "w", projectId: null, limit: 20 }
    const s = new Uint8Array(32)
    for (const junk of ["a", "AAAA", "_".repeat(76), "A".repeat(1024)]) {
      expect(yield* (Cursor.decode(junk, b, s))).toEqual(Option.none())
    }
  }))

  it.effect.prop("peeks the position any well-formed cursor claims, and nothing of a malformed one", [position, binding, secret, fc.nat()], ([p, b, s, n]) => Effect.gen(function*() {
    const cursor = yield* (Cursor.encode(p, b, s))
    expect(Cursor.peek(cursor)).toEqual(Option.some(p))
    // The MAC is not checked: a forged one claims the same position (the core verifies before it trusts it).
    const forged = cursor.slice(0, -4) + (cursor.endsWith("AAAA") ? "BBBB" : "AAAA")
    expect(Cursor.peek(forged)).toEqual(Option.some(p))
    expect(yield* (Cursor.decode(forged, b, s))).toEqual(Option.none())
    expect(Cursor.peek(cursor.slice(0, n % cursor.length))).toEqual(Option.none())
    expect(Cursor.peek(cursor + ALPHABET[n % 64])).toEqual(Option.none())
    for (const junk of ["a", "AAAA", "_".repeat(76), "A".repeat(1024)]) expect(Cursor.peek(junk)).toEqual(Option.none())
  }))
})
