/**
 * The byte-level part of reading a large JSON file a piece at a time: a resumable scanner that follows strings and
 * nesting across chunk boundaries (reporting the commas directly inside the array being scanned, and where that array
 * closes), and a window of the file read on demand. Structural characters of JSON are ASCII and never occur inside a
 * multi-byte UTF-8 sequence, so scanning bytes is exact; the values between the boundaries are left to `JSON.parse`.
 */
import { readSync } from "node:fs"

/** How much of the file is read at a time. */
export const CHUNK_BYTES = 1 << 16

/** The structural bytes of JSON (and the ones `jsonMembers.ts` reads around them). */
export const QUOTE = 0x22
export const BACKSLASH = 0x5c
export const COMMA = 0x2c
export const COLON = 0x3a
export const OPEN_BRACE = 0x7b
export const CLOSE_BRACE = 0x7d
export const OPEN_BRACKET = 0x5b
export const CLOSE_BRACKET = 0x5d

/** Where the scanner stands: nesting depth, inside a string or not, bytes still to skip after an escape. */
export interface ScanState {
  depth: number
  inString: boolean
  skip: number
}

/** The state just inside an array's `[` (or an object's `{`). */
export const inside = (): ScanState => ({ depth: 1, inString: false, skip: 0 })

/**
 * Scans `data` from `from`, pushing onto `commas` (when given) the index of every comma at depth 1. Returns the index
 * of the bracket or brace that brings the depth to 0, or -1 when `data` ends first (`state` then says where to go on
 * in the next chunk).
 */
export const scan = (data: Uint8Array, from: number, state: ScanState, commas?: Array<number>): number => {
  let depth = state.depth
  let inString = state.inString
  let i = from + state.skip
  const length = data.length
  while (i < length) {
    const c = data[i]
    if (inString) {
      if (c === BACKSLASH) i += 2
      else {
        if (c === QUOTE) inString = false
        i++
      }
      continue
    }
    if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) {
        state.depth = 0
        state.inString = false
        state.skip = 0
        return i
      }
    } else if (c === COMMA && depth === 1 && commas !== undefined) commas.push(i)
    i++
  }
  state.depth = depth
  state.inString = inString
  state.skip = i - length
  return -1
}

/** Whether `c` is JSON whitespace. */
export const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** A read-only window on a file, reloaded a chunk at a time around the position asked for. */
export class FileWindow {
  private buffer: Buffer = Buffer.alloc(0)
  private base = 0

  constructor(readonly fd: number, readonly size: number) {}

  /** The byte at `position`, or -1 at the end of the file. */
  byte(position: number): number {
    if (position >= this.size) return -1
    if (position < this.base || position >= this.base + this.buffer.length) this.load(position)
    return this.buffer[position - this.base] ?? -1
  }

  /** The chunk holding `position` and its file offset (empty at the end of the file). */
  chunkAt(position: number): { readonly data: Buffer; readonly base: number } {
    if (position >= this.size) return { data: Buffer.alloc(0), base: position }
    if (position < this.base || position >= this.base + this.buffer.length) this.load(position)
    return { data: this.buffer, base: this.base }
  }

  /** The bytes `[start, end)`, read anew. */
  read(start: number, end: number): Buffer {
    return readRange(this.fd, start, end)
  }

  private load(position: number) {
    this.buffer = readRange(this.fd, position, Math.min(this.size, position + CHUNK_BYTES))
    this.base = position
  }
}

/** Reads the bytes `[start, end)` of the file. */
export const readRange = (fd: number, start: number, end: number): Buffer => {
  const buffer = Buffer.allocUnsafe(Math.max(0, end - start))
  let filled = 0
  while (filled < buffer.length) {
    const n = readSync(fd, buffer, filled, buffer.length - filled, start + filled)
    if (n === 0) break
    filled += n
  }
  return filled === buffer.length ? buffer : buffer.subarray(0, filled)
}
