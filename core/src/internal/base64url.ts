/**
 * base64url without padding (RFC 4648 §5), with a strict decoder: it refuses characters outside the alphabet and
 * non-canonical trailing bits, so that every distinct string decodes to distinct bytes.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** The sextet of each character code below 128, -1 for codes outside the alphabet. */
const LOOKUP = new Int8Array(128).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i

const CODES: ReadonlyArray<number> = Array.from(ALPHABET, (c) => c.charCodeAt(0))

const code = (sextet: number): number => CODES[sextet & 63] as number

/** Encodes bytes as base64url without padding (the characters' codes first, one string made of them at the end). */
export const encode = (bytes: Uint8Array): string => {
  const codes: Array<number> = []
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number)
    codes.push(code(n >> 18), code(n >> 12), code(n >> 6), code(n))
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = (bytes[i] as number) << 16
    codes.push(code(n >> 18), code(n >> 12))
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8)
    codes.push(code(n >> 18), code(n >> 12), code(n >> 6))
  }
  let out = ""
  for (let at = 0; at < codes.length; at += CHUNK) out += String.fromCharCode(...codes.slice(at, at + CHUNK))
  return out
}

/** Codes per `String.fromCharCode` call: far below any engine's limit on arguments. */
const CHUNK = 4096

/** Decodes base64url without padding; `undefined` for anything that `encode` could not have produced. */
export const decode = (input: string): Uint8Array | undefined => {
  if (input.length % 4 === 1) return undefined
  const out = new Uint8Array(Math.floor((input.length * 3) / 4))
  let buffer = 0
  let bits = 0
  let o = 0
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i)
    const v = c < 128 ? LOOKUP[c] as number : -1
    if (v < 0) return undefined
    buffer = (buffer << 6) | v
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[o++] = (buffer >> bits) & 0xff
    }
  }
  // Leftover bits must be zero, or two strings would decode to the same bytes.
  if ((buffer & ((1 << bits) - 1)) !== 0) return undefined
  return out
}
