/**
 * Bounded quoting of client input for messages, error details and logs: a value is named by its kind and size, and a
 * string by at most a few dozen characters, so that no message grows with what a client sent and nothing here
 * recurses into the value.
 */

/** How many code points of a string a message quotes. */
export const QUOTED_CODE_POINTS = 40

/** The first `max` code points of `text`, with `…` when something was cut (never splits a surrogate pair). */
export const clip = (text: string, max: number = QUOTED_CODE_POINTS): string => {
  if (text.length <= max) return text
  let out = ""
  let n = 0
  for (const c of text) {
    if (n === max) return `${out}…`
    out += c
    n++
  }
  return out
}

const codePoints = (text: string): number => {
  let n = 0
  for (const _ of text) n++
  return n
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

const keyCount = (value: object): number | undefined => {
  try {
    return Object.keys(value).length
  } catch {
    return undefined
  }
}

/**
 * A short description of any value: primitives as JSON writes them, a string quoted and clipped (with its length when
 * clipped), an array or object by its size only. Never throws, never recurses.
 */
export const describe = (value: unknown): string => {
  switch (typeof value) {
    case "string": {
      const clipped = clip(value)
      return clipped === value ? JSON.stringify(value) : `${JSON.stringify(clipped)} (${plural(codePoints(value), "character")})`
    }
    case "number":
    case "boolean":
    case "undefined":
      return String(value)
    case "bigint":
      return `${value}n`
    case "symbol":
      return "a symbol"
    case "function":
      return "a function"
    case "object": {
      if (value === null) return "null"
      if (Array.isArray(value)) return `an array of ${plural(value.length, "item")}`
      const keys = keyCount(value)
      return keys === undefined ? "an object" : `an object with ${plural(keys, "key")}`
    }
  }
}
