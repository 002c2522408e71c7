/**
 * `Request.parseJson` and the scan under it: a JSON object that names a member twice in one of its objects is a
 * `RepeatedMember` body (named by the member and, when deeper, the top-level field it sits in), every other JSON text
 * parses as `JSON.parse` reads it, and `decodeBody` refuses the repeat with `400 INVALID_REQUEST` naming it.
 * `FixtureSource.repeatedMember`, the same scan for fixture readers, names a repeat by its whole path.
 */
import { describe, expect, it } from "@effect/vitest"
import { FixtureSource, Request, Schemas } from "@stint/core"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"

/** `text` with one more member `name` appended to its top-level object (`text` is the JSON of a non-empty object). */
const appended = (text: string, name: string, value: unknown) =>
  `${text.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`

const objectWithKeys = fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { minKeys: 1, maxKeys: 8 })

describe("Request.parseJson", () => {
  it("reads every JSON text without a repeated name as JSON.parse does, in any layout", () =>
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 5 }), fc.boolean(), (value, spaced) => {
      const text = spaced ? JSON.stringify(value, null, 2) : JSON.stringify(value)
      expect(Request.parseJson(text)).toEqual(Request.json(JSON.parse(text)))
    })))

  it("names a member the top-level object repeats, whatever the names and values around it", () =>
    fc.assert(fc.property(objectWithKeys, fc.nat(), fc.jsonValue({ maxDepth: 2 }), (object, pick, value) => {
      const names = Object.keys(object)
      const name = names[pick % names.length] ?? ""
      expect(Request.parseJson(appended(JSON.stringify(object), name, value))).toEqual(
        Request.repeatedMember(name)
      )
    })))

  it("names a repeat deeper down by the top-level field it sits in, even one of the same name", () =>
    fc.assert(fc.property(objectWithKeys, fc.nat(), fc.string(), (object, pick, field) => {
      const names = Object.keys(object)
      const name = names[pick % names.length] ?? ""
      const inner = appended(JSON.stringify(object), name, null)
      expect(Request.parseJson(`{${JSON.stringify(field)}:[1,${inner}]}`)).toEqual(Request.repeatedMember(name, field))
      expect(Request.parseJson(`{${JSON.stringify(name)}:${inner}}`)).toEqual(Request.repeatedMember(name, name))
    })))

  it("leaves a body that is no object to be refused as such, whatever it holds", () =>
    fc.assert(fc.property(objectWithKeys, fc.nat(), (object, pick) => {
      const names = Object.keys(object)
      const inner = appended(JSON.stringify(object), names[pick % names.length] ?? "", null)
      for (const text of [`[${inner}]`, ` [1,{"a":{}},${inner}]`]) {
        expect(Request.parseJson(text)).toEqual(Request.json(JSON.parse(text)))
      }
    })))

  it("compares names as JSON reads them, not as written", () => {
    expect(Request.parseJson(` \n{"a":1,"\\u0061":2}`)).toEqual(Request.repeatedMember("a"))
    expect(Request.parseJson(`{"\\"":1,"\\u0022":2}`)).toEqual(Request.repeatedMember("\""))
    // Names that only look alike, strings that hold what looks like a repeat, and one name in several objects.
    for (const text of [`{"a":1,"A":2,"a ":3}`, `{"a":"{\\"a\\":1,\\"a\\":2}","b":"a"}`, `[{"a":1},{"a":2}]`,
      `{"a":{"a":{"a":[]}},"b":{"a":1}}`]) {
      expect(Request.parseJson(text)).toEqual(Request.json(JSON.parse(text)))
    }
  })

  it("is unreadable when the text is not JSON", () => {
    for (const text of ["", "{", "{\"a\":1,\"a\":2", "{'a':1}", "[1,]"]) {
      expect(Request.parseJson(text)).toEqual(Request.unreadable("The request body is not valid JSON."))
    }
  })
})

describe("decodeBody of a repeated member", () => {
  const refusal = (body: Request.Body) =>
    Effect.flip(Request.decodeBody(body, Schemas.StartTimerBody)).pipe(
      Effect.map((error) => ({ message: error.message, details: error.details }))
    )

  it.effect("is 400 INVALID_REQUEST naming the field, and the member when it sits deeper", () =>
    Effect.gen(function*() {
      expect(yield* refusal(Request.repeatedMember("note"))).toEqual({
        message: "Invalid field \"note\": it is repeated.",
        details: { field: "note", reason: "repeated" }
      })
      expect(yield* refusal(Request.repeatedMember("a", "note"))).toEqual({
        message: "Invalid field \"note\": an object in it repeats the member \"a\".",
        details: { field: "note", member: "a", reason: "repeated" }
      })
      expect(yield* refusal(Request.repeatedMember("note", "note"))).toEqual({
        message: "Invalid field \"note\": an object in it repeats the member \"note\".",
        details: { field: "note", member: "note", reason: "repeated" }
      })
    }))

  it.effect("quotes a long name clipped, as every refusal quotes client input", () =>
    Effect.gen(function*() {
      const long = "n".repeat(10_000)
      const { details, message } = yield* refusal(Request.repeatedMember(long, long))
      expect(message.length).toBeLessThan(300)
      expect(JSON.stringify(details).length).toBeLessThan(300)
      const top = yield* refusal(Request.repeatedMember(long))
      expect(top.message.length).toBeLessThan(300)
      expect(JSON.stringify(top.details).length).toBeLessThan(300)
    }))
})

/** One step from a value down to the one inside it: an array element with its neighbours, or an object member. */
type Step =
  | { readonly kind: "array"; readonly before: ReadonlyArray<unknown>; readonly after: ReadonlyArray<unknown> }
  | { readonly kind: "object"; readonly name: string; readonly others: Readonly<Record<string, unknown>> }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant("array" as const),
    before: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    after: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 })
  }),
  fc.record({
    kind: fc.constant("object" as const),
    name: fc.string(),
    others: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  })
)

/** `inner` wrapped in `steps` (the outermost first), written compactly or indented, and the path down to it. */
const wrapped = (steps: ReadonlyArray<Step>, inner: string, spaced: boolean) => {
  const write = (value: unknown) => spaced ? JSON.stringify(value, null, 2) : JSON.stringify(value)
  let text = inner
  const path: Array<string | number> = []
  for (const s of [...steps].reverse()) {
    if (s.kind === "array") {
      text = `[${[...s.before.map(write), text, ...s.after.map(write)].join(spaced ? ",\n " : ",")}]`
      path.unshift(s.before.length)
    } else {
      const others = Object.entries(s.others).filter(([name]) => name !== s.name)
      const members = [
        ...others.map(([name, value]) => `${JSON.stringify(name)}:${write(value)}`),
        `${JSON.stringify(s.name)}:${text}`
      ]
      text = `{${members.join(spaced ? ", " : ",")}}`
      path.unshift(s.name)
    }
  }
  return { text, path }
}

describe("FixtureSource.repeatedMember", () => {
  it("finds nothing in any JSON text that repeats no name, of any shape and layout", () =>
    fc.assert(fc.property(fc.jsonValue({ maxDepth: 5 }), fc.boolean(), (value, spaced) => {
      const text = spaced ? JSON.stringify(value, null, 2) : JSON.stringify(value)
      expect(FixtureSource.repeatedMember(text)).toBeUndefined()
      // Told by counting, given the parsed value.
      expect(FixtureSource.repeatedMember(text, JSON.parse(text))).toBeUndefined()
    })))

  it("names a repeat by its whole path: the names and indices down to its object, then the name", () =>
    fc.assert(
      fc.property(fc.tuple(fc.array(step, { maxLength: 5 }), objectWithKeys, fc.nat()), fc.boolean(), (
        [steps, object, pick],
        spaced
      ) => {
        const names = Object.keys(object)
        const name = names[pick % names.length] ?? ""
        const { path, text } = wrapped(steps, appended(JSON.stringify(object), name, "again"), spaced)
        expect(FixtureSource.repeatedMember(text)).toEqual([...path, name])
        expect(FixtureSource.repeatedMember(text, JSON.parse(text))).toEqual([...path, name])
      })
    ))

  it("counts members of values nested 20,000 deep without recursion, and still names the repeat there", () => {
    const inner = `{"a":1,"b":{"c":[]},"a":2}`
    for (const [open, close, path] of [["[", "]", 0], ["{\"k\":", "}", "k"]] as const) {
      const text = `${open.repeat(20_000)}${inner}${close.repeat(20_000)}`
      const down = Array<string | number>(20_000).fill(path)
      expect(FixtureSource.repeatedMember(text, JSON.parse(text))).toEqual([...down, "a"])
      const plain = text.replace(`,"a":2`, "")
      expect(FixtureSource.repeatedMember(plain, JSON.parse(plain))).toBeUndefined()
    }
  })

  it("counts own members only, so a property added to Object.prototype hides no repeat", () => {
    const prototype = Object.prototype as Record<string, unknown>
    prototype["added"] = 1
    try {
      const text = `[{"a":1,"a":2},{"b":{"c":3}}]`
      expect(FixtureSource.repeatedMember(text, JSON.parse(text))).toEqual([0, "a"])
      expect(Request.parseJson(`{"note":"x","note":"y"}`)).toEqual(Request.repeatedMember("note"))
    } finally {
      delete prototype["added"]
    }
  })

  it("answers at once, neither throwing nor looping, for a text that is not JSON", () =>
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(..."{}[],:\"\\au ") }), (text) => {
      const found = FixtureSource.repeatedMember(text)
      expect(found === undefined || Array.isArray(found)).toBe(true)
    })))

  it("tells where strings end by their escapes, and compares names as JSON reads them", () => {
    // Names ending in an escaped backslash, a value ending in an escaped quote, an escaped name equal to a plain one.
    expect(FixtureSource.repeatedMember(String.raw`[0,{"a\\":1,"b":"\\\"","a\\":2}]`)).toEqual([1, "a\\"])
    expect(FixtureSource.repeatedMember(String.raw`{"x":["\\",{"\u0061":1,"a":2}]}`)).toEqual(["x", 1, "a"])
    // A string holding what looks like a repeat.
    expect(FixtureSource.repeatedMember(String.raw`["\\\"{\"a\":1,\"a\":2}",{"a":1}]`)).toBeUndefined()
  })
})
