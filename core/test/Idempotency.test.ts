/**
 * The idempotency decision table, key normalisation and fingerprints.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Option } from "effect"
import { Idempotency } from "@stint/core"
import { createHash } from "node:crypto"
import * as HostileJson from "../../testing/HostileJson.js"

const DAY = 24 * 60 * 60 * 1000
const stored = (fingerprint: string, createdAt: number, done = true): Idempotency.IdempotencyRecord => ({
  key: "k",
  fingerprint,
  createdAt,
  response: done ? { status: 200, body: "{\"timer\":null}" } : null
})

describe("Idempotency.decide", () => {
  it("follows the decision table", () => {
    const now = 10 * DAY
    const cases: Array<[Option.Option<Idempotency.IdempotencyRecord>, string, string]> = [
      [Option.none(), "a", "Fresh"],
      [Option.some(stored("a", now - 1000)), "a", "Replay"],
      [Option.some(stored("a", now - 1000)), "b", "Conflict"],
      [Option.some(stored("a", now - 1000, false)), "a", "InFlight"],
      [Option.some(stored("a", now - 1000, false)), "b", "Conflict"],
      [Option.some(stored("a", now - DAY)), "a", "Fresh"], // remembered 24 hours, not a millisecond more
      [Option.some(stored("a", now - DAY)), "b", "Fresh"],
      [Option.some(stored("a", now - DAY + 1)), "a", "Replay"]
    ]
    for (const [record, fingerprint, expected] of cases) {
      expect(Idempotency.decide(record, fingerprint, now)._tag).toBe(expected)
    }
  })

  it("replays the stored snapshot itself", () => {
    const decision = Idempotency.decide(Option.some(stored("a", 0)), "a", 1)
    expect(decision).toEqual(Idempotency.Decision.Replay({ response: { status: 200, body: "{\"timer\":null}" } }))
  })
})

describe("Idempotency.normalizeKey", () => {
  it("trims and bounds the key to 1..255 characters", () => {
    expect(Idempotency.normalizeKey(undefined)).toEqual(Option.none())
    expect(Idempotency.normalizeKey("")).toEqual(Option.none())
    expect(Idempotency.normalizeKey("   ")).toEqual(Option.none())
    expect(Idempotency.normalizeKey("  abc ")).toEqual(Option.some("abc"))
    expect(Idempotency.normalizeKey(` ${"x".repeat(255)} `)).toEqual(Option.some("x".repeat(255)))
    expect(Idempotency.normalizeKey("x".repeat(256))).toEqual(Option.none())
    // Characters, not UTF-16 units: only a caller of the core can send these (an HTTP header cannot carry them).
    expect(Idempotency.normalizeKey("𝄞".repeat(255))).toEqual(Option.some("𝄞".repeat(255)))
    expect(Idempotency.normalizeKey("𝄞".repeat(256))).toEqual(Option.none())
  })
})

const json: fc.Arbitrary<unknown> = fc.jsonValue()

/** Reorders every object's keys, recursively: JSON-equal, differently written. */
const shuffled = (value: unknown, seed: number): unknown => {
  if (Array.isArray(value)) return value.map((v) => shuffled(v, seed + 1))
  if (value === null || typeof value !== "object") return value
  const entries = Object.entries(value as Record<string, unknown>)
  const rotated = entries.length === 0 ? entries : [...entries.slice(seed % entries.length), ...entries.slice(0, seed % entries.length)]
  return Object.fromEntries(rotated.reverse().map(([k, v]) => [k, shuffled(v, seed + 1)]))
}

describe("Idempotency.fingerprint", () => {
  it.effect.prop("is equal for JSON-equal bodies whatever the key order", [json, fc.nat()], ([body, seed]) => Effect.gen(function*() {
    const input = (b: unknown) => ({ operation: "startTimer", path: {}, body: b })
    const a = yield* Idempotency.fingerprint(input(body))
    const b = yield* Idempotency.fingerprint(input(JSON.parse(JSON.stringify(shuffled(body, seed)))))
    expect(a).toBe(b)
  }))

  it.effect.prop("differs when the body, the operation or a path parameter differs", [json, json], ([x, y]) => Effect.gen(function*() {
    const fp = (operation: string, timerId: string, body: unknown) =>
      Idempotency.fingerprint({ operation, path: { timerId }, body })
    const same = JSON.stringify(shuffled(x, 0)) === JSON.stringify(shuffled(y, 0))
    expect((yield* fp("startTimer", "t", x)) === (yield* fp("startTimer", "t", y))).toBe(same)
    expect(yield* fp("startTimer", "t", x)).not.toBe(yield* fp("stopTimer", "t", x))
    expect(yield* fp("stopTimer", "t1", x)).not.toBe(yield* fp("stopTimer", "t2", x))
  }))

  /** The canonical form as first written (recursive): fingerprints stored before a change must still match. */
  const reference = (value: unknown): string => {
    if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
    if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`
    const record = value as Record<string, unknown>
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${reference(record[k])}`).join(",")}}`
  }

  it.effect.prop("is the SHA-256 of the canonical JSON, as before", [json, fc.string()], ([body, timerId]) => Effect.gen(function*() {
    const input = { operation: "stopTimer", path: { timerId }, body }
    const expected = createHash("sha256").update(reference({ operation: input.operation, path: input.path, body })).digest("hex")
    expect(yield* Idempotency.fingerprint(input)).toBe(expected)
  }))

  it.effect.prop(
    "is the same canonical JSON on both sides of the depth where the writer changes (32 levels)",
    [json, fc.integer({ min: 24, max: 40 }), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 })],
    ([leaf, depth, inObject]) =>
      Effect.gen(function*() {
        // `depth` levels of arrays and objects (with a second key, so that key order matters) around a JSON leaf.
        let body: unknown = leaf
        for (let level = 0; level < depth; level++) {
          body = inObject[level] === true ? { z: level, a: body } : [body, level]
        }
        const input = { operation: "startTimer", path: {}, body }
        const expected = createHash("sha256").update(reference(input)).digest("hex")
        expect(yield* Idempotency.fingerprint(input)).toBe(expected)
      })
  )

  it.effect.prop("takes bodies of any depth and width (no recursion on the call stack)", [HostileJson.hostile()], ([hostile]) =>
    Effect.gen(function*() {
      const fp = (body: unknown) => Idempotency.fingerprint({ operation: "startTimer", path: {}, body })
      const a = yield* fp(HostileJson.value(hostile))
      expect(a).toMatch(/^[0-9a-f]{64}$/)
      expect(yield* fp(HostileJson.value(hostile))).toBe(a)
      expect(yield* fp([HostileJson.value(hostile)])).not.toBe(a)
    }), { fastCheck: { numRuns: 30 } })

  it.effect("refuses a cyclic body with a TypeError instead of looping", () => Effect.gen(function*() {
    const cyclic: Array<unknown> = []
    cyclic.push(cyclic)
    const exit = yield* Effect.exit(Idempotency.fingerprint({ operation: "startTimer", path: {}, body: cyclic }))
    expect(exit._tag === "Failure" && String(exit.cause).includes("TypeError")).toBe(true)
  }))
})
