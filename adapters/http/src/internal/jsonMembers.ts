/**
 * A JSON file read as its top-level members, with bounded memory: `indexMembers` skims the whole file once, checking
 * the top-level structure and noting where each member's value lies; `ElementReader` then yields the elements of one
 * array member, parsed, a chunk of the file at a time. Only one chunk (and one element that straddles two) is ever in
 * memory, whatever the size of the file; every value is parsed by `JSON.parse`, so nothing invalid gets through, and
 * checked for a member name one of its objects repeats (which `JSON.parse` would quietly read as its last value).
 */
import { FixtureSource } from "@stint/core"
import {
  BACKSLASH,
  CHUNK_BYTES,
  CLOSE_BRACE,
  COLON,
  COMMA,
  FileWindow,
  inside,
  isSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  readRange,
  scan
} from "./jsonScan.js"

/** The largest single value (an array element, or a member that is not an array) read into memory. */
export const MAX_VALUE_BYTES = 16 << 20

/** The file is not JSON, or not JSON this reader can take in bounded memory. */
export class JsonFileError extends Error {}

/** An object in the file names a member twice: `path` is where (`$.timeEntries[2].note`). */
export class RepeatedMemberError extends Error {
  constructor(readonly path: string) {
    super(`${path} appears more than once`)
  }
}

/** `$.name`, then each step of `rest`: `[3]` for an index, `.note` for a name (as the core writes fixture paths). */
const pathOf = (name: string, rest: ReadonlyArray<string | number>): string => {
  let path = `$.${name}`
  for (const step of rest) path += typeof step === "number" ? `[${step}]` : `.${step}`
  return path
}

/**
 * Fails when an object of `text` repeats a member name: `text` is valid JSON (`value` is what `JSON.parse` made of
 * it), the value at `$.name` and then `at`.
 */
const refuseRepeats = (text: string, value: unknown, name: string, at: ReadonlyArray<number> = []): void => {
  const repeated = FixtureSource.repeatedMember(text, value)
  if (repeated !== undefined) throw new RepeatedMemberError(pathOf(name, [...at, ...repeated]))
}

/** Where one top-level member's value lies: an array's elements, or any other value's bytes. */
export interface MemberPlace {
  readonly name: string
  /** `array`: `start` is just after `[`, `end` is the offset of `]`. `value`: the value's bytes are `[start, end)`. */
  readonly kind: "array" | "value"
  readonly start: number
  readonly end: number
}

/** The document: an object's members, or any other value (read whole, if small enough). */
export type DocumentPlace =
  | { readonly _tag: "Object"; readonly members: ReadonlyArray<MemberPlace> }
  | { readonly _tag: "Other"; readonly value: unknown }

const parse = (text: string, where: string): unknown => {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new JsonFileError(`${error instanceof Error ? error.message : String(error)} ${where}`)
  }
}

const utf8 = (bytes: Buffer) => bytes.toString("utf8")

/** Skims the whole file: the top-level object's members and where their values lie. */
export const indexMembers = (fd: number, size: number): DocumentPlace => {
  const file = new FileWindow(fd, size)
  const at = (position: number) => `at byte ${position}`
  const skipSpace = (position: number) => {
    while (isSpace(file.byte(position))) position++
    return position
  }
  const expect = (position: number, byte: number, what: string) => {
    if (file.byte(position) !== byte) {
      throw new JsonFileError(file.byte(position) === -1 ? `unexpected end of the file` : `expected ${what} ${at(position)}`)
    }
  }
  // The end of the string that opens at `position` (just past its closing quote).
  const stringEnd = (position: number) => {
    let i = position + 1
    for (;;) {
      const c = file.byte(i)
      if (c === -1) throw new JsonFileError("unexpected end of the file inside a string")
      if (c === BACKSLASH) i += 2
      else if (c === QUOTE) return i + 1
      else i++
      if (i - position > MAX_VALUE_BYTES) throw new JsonFileError(`a string longer than ${MAX_VALUE_BYTES} bytes ${at(position)}`)
    }
  }
  // The end of the object or array that opens at `position` (the offset of its closing bracket).
  const closing = (position: number) => {
    const state = inside()
    let from = position + 1
    for (;;) {
      const { base, data } = file.chunkAt(from)
      if (data.length === 0) throw new JsonFileError(`unexpected end of the file (unclosed value ${at(position)})`)
      const found = scan(data, from - base, state)
      if (found >= 0) return base + found
      from = base + data.length
    }
  }
  // The end of the value that starts at `position` (just past it).
  const valueEnd = (position: number) => {
    const c = file.byte(position)
    if (c === QUOTE) return stringEnd(position)
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return closing(position) + 1
    let i = position
    for (;;) {
      const d = file.byte(i)
      if (d === -1 || d === COMMA || d === CLOSE_BRACE || isSpace(d)) return i
      i++
      if (i - position > MAX_VALUE_BYTES) throw new JsonFileError(`invalid value ${at(position)}`)
    }
  }

  let position = 0
  // A UTF-8 byte order mark is allowed (and skipped), as decoding the file as text would.
  if (file.byte(0) === 0xef && file.byte(1) === 0xbb && file.byte(2) === 0xbf) position = 3
  position = skipSpace(position)
  if (file.byte(position) !== OPEN_BRACE) {
    if (size > MAX_VALUE_BYTES) throw new JsonFileError("the document is not a JSON object")
    return { _tag: "Other", value: parse(utf8(file.read(position, size)), "") }
  }
  const members: Array<MemberPlace> = []
  position = skipSpace(position + 1)
  if (file.byte(position) === CLOSE_BRACE) position++
  else {
    for (;;) {
      expect(position, QUOTE, "a property name")
      const nameEnd = stringEnd(position)
      const name = parse(utf8(file.read(position, nameEnd)), at(position)) as string
      position = skipSpace(nameEnd)
      expect(position, COLON, "':'")
      position = skipSpace(position + 1)
      if (file.byte(position) === OPEN_BRACKET) {
        const end = closing(position)
        members.push({ name, kind: "array", start: position + 1, end })
        position = end + 1
      } else {
        const end = valueEnd(position)
        if (end === position) throw new JsonFileError(`expected a value ${at(position)}`)
        members.push({ name, kind: "value", start: position, end })
        position = end
      }
      position = skipSpace(position)
      if (file.byte(position) === COMMA) {
        position = skipSpace(position + 1)
        continue
      }
      expect(position, CLOSE_BRACE, "',' or '}'")
      position++
      break
    }
  }
  position = skipSpace(position)
  if (position < size) throw new JsonFileError(`unexpected data after the end of the object ${at(position)}`)
  return { _tag: "Object", members }
}

/** Parses a member that is not an array. */
export const readValue = (fd: number, place: MemberPlace): unknown => {
  if (place.end - place.start > MAX_VALUE_BYTES) {
    throw new JsonFileError(`$.${place.name} is larger than ${MAX_VALUE_BYTES} bytes`)
  }
  const text = utf8(readRange(fd, place.start, place.end))
  const value = parse(text, `in $.${place.name}`)
  refuseRepeats(text, value, place.name)
  return value
}

/**
 * Yields the elements of one array member, parsed, a chunk of the file at a time. `next` returns the elements that
 * end in the next chunk (possibly none), or `undefined` after the last.
 */
export class ElementReader {
  private position: number
  private carry: Buffer = Buffer.alloc(0)
  private readonly state = inside()
  private count = 0
  private separated = false
  private done = false

  constructor(private readonly fd: number, private readonly place: MemberPlace) {
    this.position = place.start
  }

  next(): ReadonlyArray<unknown> | undefined {
    if (this.done) return undefined
    const { end, name } = this.place
    if (this.position >= end) {
      this.done = true
      const last = utf8(this.carry)
      if (last.trim() === "") {
        if (this.separated) throw new JsonFileError(`a missing element in $.${name}[${this.count}]`)
        return undefined
      }
      const element = parse(last, `in $.${name}[${this.count}]`)
      refuseRepeats(last, element, name, [this.count])
      return [element]
    }
    const chunk = readRange(this.fd, this.position, Math.min(end, this.position + CHUNK_BYTES))
    this.position += chunk.length
    const data = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk])
    const commas: Array<number> = []
    scan(data, this.carry.length, this.state, commas)
    const last = commas[commas.length - 1]
    if (last === undefined) {
      this.carry = data
      if (data.length > MAX_VALUE_BYTES) {
        throw new JsonFileError(`$.${name}[${this.count}] is larger than ${MAX_VALUE_BYTES} bytes`)
      }
      return []
    }
    this.separated = true
    const elements = this.parseGroup(data, commas)
    this.carry = Buffer.from(data.subarray(last + 1))
    return elements
  }

  /**
   * The elements before the last comma: parsed together (or one by one to say which one is not JSON), then checked
   * for a repeated member name.
   */
  private parseGroup(data: Buffer, commas: ReadonlyArray<number>): ReadonlyArray<unknown> {
    const text = `[${data.toString("utf8", 0, commas[commas.length - 1] ?? 0)}]`
    let elements: ReadonlyArray<unknown> | undefined
    try {
      elements = JSON.parse(text) as ReadonlyArray<unknown>
    } catch {
      elements = undefined
    }
    if (elements?.length !== commas.length) {
      let start = 0
      for (const comma of commas) {
        parse(data.toString("utf8", start, comma), `in $.${this.place.name}[${this.count}]`)
        this.count++
        start = comma + 1
      }
      throw new JsonFileError(`invalid elements in $.${this.place.name}`)
    }
    // The group is one array: a repeat's first step is its element's index within the group.
    const repeated = FixtureSource.repeatedMember(text, elements)
    if (repeated !== undefined) {
      const [index = 0, ...rest] = repeated
      throw new RepeatedMemberError(pathOf(this.place.name, [this.count + Number(index), ...rest]))
    }
    this.count += elements.length
    return elements
  }
}
