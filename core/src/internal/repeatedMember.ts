/**
 * Finds a member name that an object of a JSON text repeats. `JSON.parse` keeps the last value of a repeated name and
 * drops the others without a word (`{"note":"a","note":"b"}` parses to `{note: "b"}`), so a request body that repeats
 * one would lose what its sender wrote; the core refuses it instead, as it refuses a repeated query parameter.
 *
 * One pass over the text, after `JSON.parse` accepted it: strings are skipped whole (a name is compared after
 * unescaping, so `"a"` and `"\u0061"` are one name), each open object keeps the names seen so far.
 */

/** The repeated name, and the body's top-level member holding the object that repeats it (none: the body itself). */
export interface Repeated {
  readonly member: string
  readonly inside: string | undefined
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/**
 * The first repeated member name of `text`, which must be valid JSON; `undefined` when every object's names differ, or
 * when `text` is not an object (a body that is no object is refused as such, whatever it holds).
 */
export const find = (text: string): Repeated | undefined => {
  if (text.trimStart().charCodeAt(0) !== OPEN_BRACE) return undefined
  // One entry per open object (its names) or array (`null`), innermost last.
  const open: Array<Set<string> | null> = []
  // Whether the next string is a member name: just after `{`, or after `,` inside an object.
  let nameNext = false
  let topLevelField: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      let end = i + 1
      let escaped = false
      for (let d = text.charCodeAt(end); d !== QUOTE; d = text.charCodeAt(end)) {
        if (d === BACKSLASH) {
          escaped = true
          end += 2
        } else {
          end += 1
        }
      }
      const names = open[open.length - 1]
      if (nameNext && names != null) {
        const name = escaped ? JSON.parse(text.slice(i, end + 1)) as string : text.slice(i + 1, end)
        if (open.length === 1) topLevelField = name
        if (names.has(name)) return { member: name, inside: open.length === 1 ? undefined : topLevelField }
        names.add(name)
        nameNext = false
      }
      i = end
    } else if (c === OPEN_BRACE) {
      open.push(new Set())
      nameNext = true
    } else if (c === OPEN_BRACKET) {
      open.push(null)
      nameNext = false
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      open.pop()
    } else if (c === COMMA) {
      nameNext = open[open.length - 1] != null
    }
  }
  return undefined
}
