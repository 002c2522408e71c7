/**
 * What `fetch` can send as a header value: Latin-1 characters (a `ByteString`) without NUL, CR or LF. A value outside
 * that makes `fetch` throw before anything is sent, which is no network failure and must not be retried as one; the
 * client refuses such a value itself, naming the first character that cannot go (often an invisible one, pasted along
 * with a key: U+200B, U+FEFF).
 */

/** Why `value` cannot be a header value, or `undefined` when it can. */
export const problem = (value: string): string | undefined => {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (code > 0xff || code === 0x00 || code === 0x0a || code === 0x0d) {
      return `holds U+${code.toString(16).toUpperCase().padStart(4, "0")} at index ${i}, which an HTTP header cannot carry`
    }
  }
  return undefined
}
