/**
 * The spec's formats against generated valid and invalid strings, each checked with an oracle written differently
 * from the implementation (structure and `Date` instead of one regular expression).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { Schemas } from "@stint/core"

const is = <A, I>(schema: Schema.Schema<A, I>) => (value: unknown) => Either.isRight(Schema.decodeUnknownEither(schema)(value))

const hex = "0123456789abcdefABCDEF"
const hexChars = (n: number) => fc.string({ unit: fc.constantFrom(...hex), minLength: n, maxLength: n })

/** The UUID rule, written as structure checks rather than one regular expression. */
const uuidOracle = (s: string): boolean => {
  const lower = s.toLowerCase()
  if (lower === "00000000-0000-0000-0000-000000000000" || lower === "ffffffff-ffff-ffff-ffff-ffffffffffff") return true
  const parts = s.split("-")
  if (parts.length !== 5 || parts.map((p) => p.length).join() !== "8,4,4,4,12") return false
  if (![...parts.join("")].every((c) => hex.includes(c))) return false
  return "12345678".includes(parts[2]?.[0] ?? "") && "89abAB".includes(parts[3]?.[0] ?? "")
}

const validUuid = fc.tuple(
  hexChars(8),
  hexChars(4),
  fc.constantFrom(..."12345678"),
  hexChars(3),
  fc.constantFrom(..."89abAB"),
  hexChars(3),
  hexChars(12)
).map(([a, b, v, c, w, d, e]) => `${a}-${b}-${v}${c}-${w}${d}-${e}`)

/** Near-misses: one character of a valid UUID replaced, inserted or removed. */
const mutatedUuid = fc.tuple(validUuid, fc.nat(), fc.constantFrom(..."0123456789abcdefxyzABCXYZ-_ "), fc.constantFrom("replace", "insert", "delete"))
  .map(([uuid, at, char, how]) => {
    const i = at % uuid.length
    return how === "replace"
      ? uuid.slice(0, i) + char + uuid.slice(i + 1)
      : how === "insert"
      ? uuid.slice(0, i) + char + uuid.slice(i)
      : uuid.slice(0, i) + uuid.slice(i + 1)
  })

describe("Uuid", () => {
  it.prop("accepts every UUID with version 1-8 and variant 8/9/a/b, in either case", [validUuid], ([uuid]) => {
    expect(is(Schemas.Uuid)(uuid)).toBe(true)
  })

  it.prop("agrees with the structural oracle on near-misses", [mutatedUuid], ([candidate]) => {
    expect(is(Schemas.Uuid)(candidate)).toBe(uuidOracle(candidate))
  }, { fastCheck: { numRuns: 2000 } })

  it("accepts the nil and max UUIDs and refuses other special cases", () => {
    expect(is(Schemas.Uuid)("00000000-0000-0000-0000-000000000000")).toBe(true)
    expect(is(Schemas.Uuid)("ffffffff-ffff-ffff-ffff-ffffffffffff")).toBe(true)
    expect(is(Schemas.Uuid)("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")).toBe(true)
    expect(is(Schemas.Uuid)("00000000-0000-0000-0000-000000000001")).toBe(false) // version 0
    expect(is(Schemas.Uuid)("0190a6b2-1234-9abc-8def-0123456789ab")).toBe(false) // version 9
    expect(is(Schemas.Uuid)("0190a6b2-1234-7abc-cdef-0123456789ab")).toBe(false) // variant c
    expect(is(Schemas.Uuid)("0190a6b2-1234-7abc-8def-0123456789ab")).toBe(true)
    expect(is(Schemas.Uuid)("{0190a6b2-1234-7abc-8def-0123456789ab}")).toBe(false)
    expect(is(Schemas.Uuid)("0190a6b212347abc8def0123456789ab")).toBe(false)
  })
})

describe("Color", () => {
  it.prop("accepts # and six hex digits", [hexChars(6)], ([digits]) => {
    expect(is(Schemas.Color)(`#${digits}`)).toBe(true)
  })
  it.prop("refuses anything else", [fc.string({ maxLength: 9 })], ([s]) => {
    expect(is(Schemas.Color)(s)).toBe(/^#[0-9a-fA-F]{6}$/.test(s) && s.length === 7)
  }, { fastCheck: { numRuns: 1000, examples: [["#12345"], ["#1234567"], ["123456"], ["#12345g"], ["#ABCDEF"]] } })
})

const pad = (n: number, width: number) => String(n).padStart(width, "0")

/** Calendar validity through `Date`, an oracle independent of the implementation's month table. */
const calendarValid = (y: number, m: number, d: number) => {
  const date = new Date(0)
  date.setUTCFullYear(y, m - 1, d)
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
}

const dateParts = fc.record({
  y: fc.integer({ min: 1, max: 9999 }),
  m: fc.integer({ min: 1, max: 12 }),
  d: fc.integer({ min: 1, max: 31 }),
  h: fc.integer({ min: 0, max: 23 }),
  mi: fc.integer({ min: 0, max: 59 }),
  s: fc.integer({ min: 0, max: 59 }),
  frac: fc.option(fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: 9 }), { nil: undefined }),
  offset: fc.option(fc.tuple(fc.constantFrom(1, -1), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })), {
    nil: undefined
  })
})

describe("Timestamp", () => {
  it.prop("accepts calendar-valid date-times and parses them to the right instant", [dateParts], ([p]) => {
    const offset = p.offset === undefined
      ? "Z"
      : `${p.offset[0] === 1 ? "+" : "-"}${pad(p.offset[1], 2)}:${pad(p.offset[2], 2)}`
    const text = `${pad(p.y, 4)}-${pad(p.m, 2)}-${pad(p.d, 2)}T${pad(p.h, 2)}:${pad(p.mi, 2)}:${pad(p.s, 2)}${
      p.frac === undefined ? "" : `.${p.frac}`
    }${offset}`
    const valid = calendarValid(p.y, p.m, p.d)
    expect(is(Schemas.Timestamp)(text)).toBe(valid)
    if (valid) {
      const base = new Date(0)
      base.setUTCFullYear(p.y, p.m - 1, p.d)
      base.setUTCHours(p.h, p.mi, p.s, p.frac === undefined ? 0 : Number(p.frac.slice(0, 3).padEnd(3, "0")))
      const offsetMinutes = p.offset === undefined ? 0 : p.offset[0] * (p.offset[1] * 60 + p.offset[2])
      expect(Schemas.parseTimestamp(text)).toBe(base.getTime() - offsetMinutes * 60_000)
    }
  }, { fastCheck: { numRuns: 2000 } })

  it("knows leap years", () => {
    expect(Schemas.parseTimestamp("2026-02-29T00:00:00Z")).toBeUndefined()
    expect(Schemas.parseTimestamp("2028-02-29T00:00:00Z")).toBe(Date.UTC(2028, 1, 29))
    expect(Schemas.parseTimestamp("2100-02-29T00:00:00Z")).toBeUndefined()
    expect(Schemas.parseTimestamp("2000-02-29T00:00:00Z")).toBe(Date.UTC(2000, 1, 29))
    expect(Schemas.parseTimestamp("2026-04-31T00:00:00Z")).toBeUndefined()
  })

  it("requires seconds and an offset, and refuses out-of-range fields", () => {
    for (
      const bad of [
        "2026-01-02T03:04Z",
        "2026-01-02T03:04:05",
        "2026-01-02 03:04:05Z",
        "2026-01-02T24:00:00Z",
        "2026-01-02T03:60:00Z",
        "2026-01-02T03:04:60Z",
        "2026-13-02T03:04:05Z",
        "2026-00-02T03:04:05Z",
        "2026-01-00T03:04:05Z",
        "2026-01-02T03:04:05+2400",
        "2026-01-02T03:04:05+24:00",
        "2026-01-02T03:04:05.Z",
        "26-01-02T03:04:05Z",
        ""
      ]
    ) expect([bad, is(Schemas.Timestamp)(bad)]).toEqual([bad, false])
    expect(Schemas.parseTimestamp("2026-01-02T03:04:05.123456+01:30")).toBe(Date.UTC(2026, 0, 2, 1, 34, 5, 123))
  })

  /** The rule as a regular expression and `Date`: what the character-by-character parser must agree with. */
  const reference = (input: string): number | undefined => {
    const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/.exec(input)
    if (m === null) return undefined
    const [y, mo, d, h, mi, sec, oh, om] = [1, 2, 3, 4, 5, 6, 9, 10].map((i) => Number(m[i]))
    if (!calendarValid(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) {
      return undefined
    }
    if (m[8] !== undefined && (Number(oh) > 23 || Number(om) > 59)) return undefined
    const date = new Date(0)
    date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d))
    date.setUTCHours(Number(h), Number(mi), Number(sec), m[7] === undefined ? 0 : Number(m[7].slice(1, 4).padEnd(3, "0")))
    const offset = m[8] === undefined ? 0 : (m[8] === "-" ? -1 : 1) * (Number(oh) * 60 + Number(om))
    return date.getTime() - offset * 60_000
  }
  const stamp = fc.tuple(dateParts, fc.constantFrom("T", "t"), fc.constantFrom("Z", "z", "+", "-")).map(([p, t, zone]) =>
    `${pad(p.y % 10_000, 4)}-${pad(p.m, 2)}-${pad(p.d, 2)}${t}${pad(p.h, 2)}:${pad(p.mi, 2)}:${pad(p.s, 2)}${
      p.frac === undefined ? "" : `.${p.frac}`
    }${zone === "Z" || zone === "z" ? zone : `${zone}${pad(p.offset?.[1] ?? 0, 2)}:${pad(p.offset?.[2] ?? 0, 2)}`}`
  )
  const edit = fc.tuple(fc.nat(), fc.constantFrom(..."0123456789-:.+TtZz x\u0660"), fc.constantFrom("replace", "insert", "delete"))
  it.prop("parses exactly what the regular expression and Date do, near-misses included", [
    stamp,
    fc.array(edit, { maxLength: 3 }),
    fc.constantFrom(0, 24, 59, 60, 99)
  ], ([text, edits, big]) => {
    let edited = text
    for (const [at, c, kind] of edits) {
      const i = at % (edited.length + 1)
      edited = kind === "replace"
        ? edited.slice(0, i) + c + edited.slice(i + 1)
        : kind === "insert"
        ? edited.slice(0, i) + c + edited.slice(i)
        : edited.slice(0, i) + edited.slice(i + 1)
    }
    for (const candidate of [edited, edited.replace(/:\d\d$/, `:${big}`), `00${edited.slice(2)}`]) {
      expect([candidate, Schemas.parseTimestamp(candidate)]).toEqual([candidate, reference(candidate)])
    }
  }, { fastCheck: { numRuns: 5000 } })

  it("is written in UTC with Z and milliseconds", () => {
    expect(Schemas.formatTimestamp(Date.UTC(2026, 10, 22, 3, 43, 5, 123))).toBe("2026-11-22T03:43:05.123Z")
    expect(Schemas.formatTimestamp(Date.UTC(2026, 10, 22))).toBe("2026-11-22T00:00:00.000Z")
  })

  it.prop("writes exactly what Date's toISOString writes, for any instant", [fc.oneof(
    fc.integer({ min: Schemas.MIN_INSTANT, max: Schemas.MAX_INSTANT }),
    // Around the edges of days, months, leap years, centuries and the writable range.
    fc.tuple(
      fc.constantFrom(Schemas.MIN_INSTANT, Schemas.MAX_INSTANT, 0, Date.UTC(2000, 1, 29), Date.UTC(1900, 2, 1), Date.UTC(2100, 1, 28), Date.UTC(1600, 0, 1)),
      fc.integer({ min: -172_800_001, max: 172_800_001 })
    ).map(([at, offset]) => at + offset),
    // Outside the writable range, and not whole milliseconds: written as Date writes them.
    fc.integer({ min: -8_640_000_000_000_000, max: 8_640_000_000_000_000 }),
    fc.double({ min: -1e15, max: 1e15, noNaN: true })
  )], ([millis]) => {
    expect(Schemas.formatTimestamp(millis)).toBe(new Date(millis).toISOString())
  }, { fastCheck: { numRuns: 20_000 } })
})

describe("integers and lengths", () => {
  it("Cents spans 0..2147483647 integers", () => {
    expect([0, 1, 2147483647].map(is(Schemas.Cents))).toEqual([true, true, true])
    expect([-1, 2147483648, 1.5, Number.NaN, "1"].map(is(Schemas.Cents))).toEqual([false, false, false, false, false])
  })

  it("counts code points, not UTF-16 units", () => {
    const astral = "😀" // two UTF-16 units, one code point
    expect(is(Schemas.ProjectName)(astral.repeat(200))).toBe(true)
    expect(is(Schemas.ProjectName)(astral.repeat(201))).toBe(false)
    expect(is(Schemas.ProjectName)("")).toBe(false)
    expect(is(Schemas.Note)(astral.repeat(500))).toBe(true)
    expect(is(Schemas.Note)("a".repeat(501))).toBe(false)
  })

  it("Project refuses additional properties", () => {
    const project = { id: "0190a6b2-1234-7abc-8def-0123456789ab", clientId: "0190a6b2-1234-7abc-8def-0123456789ac", name: "W", color: "#000000" }
    expect(is(Schemas.Project)(project)).toBe(true)
    expect(is(Schemas.Project)({ ...project, archived: false })).toBe(false)
  })

  it("limit is 1..100 without sign, leading zero, fraction or exponent", () => {
    const limit = is(Schemas.LimitParam)
    expect(["1", "20", "99", "100"].map(limit)).toEqual([true, true, true, true])
    expect(["0", "101", "010", "+5", "-1", "1.0", "1e2", " 5", "", "1000"].map(limit)).toEqual(
      Array(10).fill(false)
    )
  })
})

describe("well-formed text", () => {
  it("refuses unpaired surrogates, which no database stores as sent", () => {
    for (const schema of [Schemas.ProjectName, Schemas.Note, Schemas.NonEmptyName]) {
      expect(is(schema)("a\ud800b")).toBe(false)
      expect(is(schema)("\udc00")).toBe(false)
      expect(is(schema)("x\ud83d")).toBe(false)
      expect(is(schema)("😀 ok")).toBe(true)
    }
  })
})
