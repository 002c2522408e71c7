/**
 * Finds a member name that an object of a JSON text repeats. `JSON.parse` keeps the last value of a repeated name and
 * drops the others without a word (`{"note":"a","note":"b"}` parses to `{note: "b"}`), so a request body or a fixture
 * that repeats one would lose what its writer wrote; the core refuses it instead, as it refuses a repeated query
 * parameter.
 *
 * After `JSON.parse` accepted the text: first a count (`repeatsNone`: the names the text writes against the members
 * the parsed value holds), and only when they differ one pass that finds the repeat: strings are skipped whole (a name
 * is compared after unescaping, so `"a"` and `"\u0061"` are one name), each open object keeps the names seen so far
 * and each open array counts its elements, so that the repeat is named by its whole path.
 */

/** The repeated name, and the body's top-level member holding the object that repeats it (none: the body itself). */
export interface Repeated {
  readonly member: string
  readonly inside: string | undefined
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const COLON = 0x3a
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** An open object (its names so far, and the member being read) or an open array (the element being read). */
interface Level {
  readonly names: Set<string> | null
  /** The object's current member name, or the array's current index. */
  at: string | number
}

/**
 * The offset of the quote that closes the string opening at `start` in `text` (valid JSON): the next quote not escaped,
 * that is, not preceded by an odd number of backslashes. Found by `indexOf`, which is many times faster than a loop
 * over the characters of long strings (a note, say).
 */
const stringEnd = (text: string, start: number): number => {
  let end = text.indexOf("\"", start + 1)
  for (;;) {
    // Only in a text that is not JSON: the scan ends there.
    if (end === -1) return text.length
    let backslashes = 0
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return end
    end = text.indexOf("\"", end + 1)
  }
}

/** A name with escapes, as JSON reads it (as written, in a text that is not JSON). */
const unescaped = (name: string): string => {
  try {
    return JSON.parse(name) as string
  } catch {
    return name
  }
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** How many member names `text` (valid JSON) writes: the strings followed by `:`. Jumps from string to string. */
const namesWritten = (text: string): number => {
  let names = 0
  let i = text.indexOf("\"")
  while (i !== -1) {
    let next = stringEnd(text, i) + 1
    while (isSpace(text.charCodeAt(next))) next++
    if (text.charCodeAt(next) === COLON) names++
    i = text.indexOf("\"", next)
  }
  return names
}

/** How many members the objects of `value` (a parsed JSON value) hold, all depths together; no recursion. */
const membersHeld = (value: unknown): number => {
  let members = 0
  const pending: Array<unknown> = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next !== "object" || next === null) continue
    if (Array.isArray(next)) {
      for (const element of next) pending.push(element)
    } else {
      // Own names only: `for … in` would also count what anything added to `Object.prototype`, one more member per
      // object, and so accept a text that repeats one.
      const object = next as Record<string, unknown>
      const names = Object.keys(object)
      members += names.length
      for (const name of names) pending.push(object[name])
    }
  }
  return members
}

/**
 * Whether no object of `text` repeats a name, told by counting when `value` is what `JSON.parse` made of it: the
 * parsed objects hold one member per distinct name, so they hold as many as the text writes exactly when no object
 * repeats one. Two or three times cheaper than `findPath`, which then only runs to say where a repeat is.
 */
export const repeatsNone = (text: string, value: unknown): boolean => namesWritten(text) === membersHeld(value)

/**
 * The path of the first repeated member name in `text`, which must be valid JSON: member names and array indices from
 * the outermost value in, the repeated name last (`[2, "note"]` for `[{}, {}, {"note": 1, "note": 2}]`). `undefined`
 * when every object's names differ. Of a text that is not JSON, the answer means nothing, but it comes (one pass).
 */
export const findPath = (text: string): Array<string | number> | undefined => {
  // Innermost last.
  const open: Array<Level> = []
  // Whether the next string is a member name: just after `{`, or after `,` inside an object.
  let nameNext = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      if (nameNext) {
        const level = open[open.length - 1]
        const names = level?.names
        if (level !== undefined && names != null) {
          const raw = text.slice(i + 1, end)
          const name = raw.includes("\\") ? unescaped(text.slice(i, end + 1)) : raw
          level.at = name
          if (names.has(name)) return open.map((level) => level.at)
          names.add(name)
        }
        nameNext = false
      }
      i = end
    } else if (c === OPEN_BRACE) {
      open.push({ names: new Set(), at: "" })
      nameNext = true
    } else if (c === OPEN_BRACKET) {
      open.push({ names: null, at: 0 })
      nameNext = false
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      open.pop()
    } else if (c === COMMA) {
      const level = open[open.length - 1]
      if (level === undefined) continue
      if (level.names === null) level.at = (level.at as number) + 1
      else nameNext = true
    }
  }
  return undefined
}

/**
 * `findPath`, told first by counting (`repeatsNone`) when `parsed`, what `JSON.parse` made of `text`, is given.
 */
export const repeatedPath = (text: string, parsed?: unknown): Array<string | number> | undefined =>
  parsed !== undefined && repeatsNone(text, parsed) ? undefined : findPath(text)

/**
 * The first repeated member name of `text`, which must be valid JSON (`value` is what `JSON.parse` made of it);
 * `undefined` when every object's names differ, or when `text` is not an object (a body that is no object is refused
 * as such, whatever it holds).
 */
export const find = (text: string, value: unknown): Repeated | undefined => {
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value)
  const path = isObject ? repeatedPath(text, value) : undefined
  if (path === undefined) return undefined
  // The top level is an object, so the first step is a name, and so is the last (the repeated one).
  return { member: String(path[path.length - 1]), inside: path.length === 1 ? undefined : String(path[0]) }
}
