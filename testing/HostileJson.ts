/**
 * Generated hostile JSON for the input tests of the core and the server: values nested 1 to 20,000 levels deep
 * (arrays and objects mixed), wide objects with many keys, wide arrays, long strings, and long keys. A `Hostile` is a
 * small description (cheap to shrink) that builds its value or its JSON text on demand, without recursion.
 */
import * as fc from "effect/FastCheck"

/** One level of nesting: an array, or an object holding the next level under `key`. */
export type Level = { readonly _tag: "Array" } | { readonly _tag: "Object"; readonly key: string }

/** A hostile value, described. */
export type Hostile =
  | {
    readonly _tag: "Deep"
    readonly depth: number
    /** The kinds of the levels, repeated from the outside in. */
    readonly pattern: ReadonlyArray<Level>
    readonly leaf: fc.JsonValue
  }
  | { readonly _tag: "WideObject"; readonly keys: number; readonly keyLength: number }
  | { readonly _tag: "WideArray"; readonly items: number; readonly item: fc.JsonValue }
  | { readonly _tag: "LongString"; readonly length: number; readonly unit: string }

const levelAt = (hostile: Extract<Hostile, { _tag: "Deep" }>, i: number): Level =>
  hostile.pattern[i % hostile.pattern.length] ?? { _tag: "Array" }

/** Builds the value (iteratively, from the leaf out). */
export const value = (hostile: Hostile): unknown => {
  switch (hostile._tag) {
    case "Deep": {
      let inner: unknown = hostile.leaf
      for (let i = hostile.depth - 1; i >= 0; i--) {
        const level = levelAt(hostile, i)
        inner = level._tag === "Array" ? [inner] : { [level.key]: inner }
      }
      return inner
    }
    case "WideObject": {
      const record: Record<string, number> = {}
      for (let i = 0; i < hostile.keys; i++) record[`${i}`.padStart(hostile.keyLength, "k")] = i
      return record
    }
    case "WideArray":
      return Array.from({ length: hostile.items }, () => hostile.item)
    case "LongString":
      return hostile.unit.repeat(hostile.length)
  }
}

/** Writes the JSON text (iteratively: `JSON.stringify` itself overflows the stack a few thousand levels down). */
export const text = (hostile: Hostile): string => {
  if (hostile._tag !== "Deep") return JSON.stringify(value(hostile))
  const open: Array<string> = []
  const close: Array<string> = []
  for (let i = 0; i < hostile.depth; i++) {
    const level = levelAt(hostile, i)
    open.push(level._tag === "Array" ? "[" : `{${JSON.stringify(level.key)}:`)
    close.push(level._tag === "Array" ? "]" : "}")
  }
  return `${open.join("")}${JSON.stringify(hostile.leaf)}${close.reverse().join("")}`
}

/** A short name for failure messages. */
export const show = (hostile: Hostile): string => {
  switch (hostile._tag) {
    case "Deep":
      return `Deep(${hostile.depth}, ${
        hostile.pattern.map((l) => l._tag === "Array" ? "[]" : `{${l.key.length}}`).join("")
      })`
    case "WideObject":
      return `WideObject(${hostile.keys} keys of ${hostile.keyLength})`
    case "WideArray":
      return `WideArray(${hostile.items})`
    case "LongString":
      return `LongString(${hostile.length} × ${JSON.stringify(hostile.unit)})`
  }
}

const leaf: fc.Arbitrary<fc.JsonValue> = fc.jsonValue({ maxDepth: 1 })

/** 1 to 20,000 levels, biased towards the interesting depths (around the server's limit, the issue's 5,000). */
export const depth: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 1, max: 100 }),
  fc.constantFrom(63, 64, 65, 5_000, 20_000),
  fc.integer({ min: 1, max: 20_000 })
)

const level: fc.Arbitrary<Level> = fc.oneof(
  fc.constant<Level>({ _tag: "Array" }),
  fc.string({ maxLength: 3 }).map((key): Level => ({ _tag: "Object", key }))
)

/** Any hostile value; `maxLength` bounds wide and long ones (deep ones are bounded by `depth`). */
export const hostile = (maxLength = 40_000): fc.Arbitrary<Hostile> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ _tag: fc.constant("Deep" as const), depth, pattern: fc.array(level, { minLength: 1, maxLength: 4 }), leaf }) },
    {
      weight: 1,
      arbitrary: fc.record({
        _tag: fc.constant("WideObject" as const),
        keys: fc.integer({ min: 1, max: Math.max(1, Math.floor(maxLength / 12)) }),
        keyLength: fc.integer({ min: 1, max: 8 })
      })
    },
    {
      weight: 1,
      arbitrary: fc.record({
        _tag: fc.constant("WideArray" as const),
        items: fc.integer({ min: 1, max: Math.floor(maxLength / 6) }),
        item: leaf.filter((item) => JSON.stringify(item).length <= 4)
      })
    },
    {
      weight: 1,
      arbitrary: fc.record({
        _tag: fc.constant("LongString" as const),
        length: fc.integer({ min: 1, max: maxLength }),
        unit: fc.constantFrom("a", "[", "{", "😀", "\"", "\\")
      })
    }
  )
