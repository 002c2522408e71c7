/**
 * base64url without padding (RFC 4648 §5), with a strict decoder: it refuses characters outside the alphabet and
 * non-canonical trailing bits, so that every distinct string decodes to distinct bytes.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

const LOOKUP: ReadonlyMap<string, number> = new Map([...ALPHABET].map((c, i) => [c, i]))

/** Encodes bytes as base64url without padding. */
export const encode = (bytes: Uint8Array): string => {
  let out = ""
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number)
    out += ALPHABET.charAt((n >> 18) & 63) + ALPHABET.charAt((n >> 12) & 63) + ALPHABET.charAt((n >> 6) & 63) + ALPHABET.charAt(n & 63)
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = (bytes[i] as number) << 16
    out += ALPHABET.charAt((n >> 18) & 63) + ALPHABET.charAt((n >> 12) & 63)
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8)
    out += ALPHABET.charAt((n >> 18) & 63) + ALPHABET.charAt((n >> 12) & 63) + ALPHABET.charAt((n >> 6) & 63)
  }
  return out
}

/** Decodes base64url without padding; `undefined` for anything that `encode` could not have produced. */
export const decode = (input: string): Uint8Array | undefined => {
  if (input.length % 4 === 1) return undefined
  const out = new Uint8Array(Math.floor((input.length * 3) / 4))
  let buffer = 0
  let bits = 0
  let o = 0
  for (const c of input) {
    const v = LOOKUP.get(c)
    if (v === undefined) return undefined
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
