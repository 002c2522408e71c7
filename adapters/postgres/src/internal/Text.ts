/**
 * Strings the way JavaScript holds them, in PostgreSQL `text`, which cannot hold U+0000 nor a lone UTF-16 surrogate:
 * an injective escape that leaves every other string unchanged.
 *
 * U+FFFF (a noncharacter, never found in real text) starts an escape: it is followed by the four lowercase hex digits
 * of the escaped UTF-16 code unit. U+0000, lone surrogates and U+FFFF itself are escaped; nothing else is.
 */

const ESCAPE = "\uffff"
const NEEDS_ESCAPE = /\u0000|\uffff|\p{Cs}/u
const NEEDS_ESCAPE_ALL = /\u0000|\uffff|\p{Cs}/gu
const ESCAPED = /\uffff([0-9a-f]{4})/g

/** The stored form of `value`. */
export const encode = (value: string): string =>
  NEEDS_ESCAPE.test(value)
    ? value.replace(NEEDS_ESCAPE_ALL, (unit) => ESCAPE + unit.charCodeAt(0).toString(16).padStart(4, "0"))
    : value

/** The string `encode` stored. */
export const decode = (stored: string): string =>
  stored.includes(ESCAPE) ? stored.replace(ESCAPED, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : stored

/** `encode` for a nullable value. */
export const encodeNullable = (value: string | null): string | null => value === null ? null : encode(value)

/** `decode` for a nullable value. */
export const decodeNullable = (stored: string | null): string | null => stored === null ? null : decode(stored)
