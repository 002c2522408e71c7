/**
 * A request target split into its path and its query pairs, exactly as WHATWG URL parsing splits it
 * (`new URL(target, "http://localhost")`: `pathname`, and `searchParams` in order, repeats kept, percent-decoded),
 * but for one thing: a backslash in the path is a character, not a `/` (`literalBackslashes`).
 *
 * Almost every target the API sees is plain (`/api/v1/timer`, `/api/v1/time-entries?limit=20&cursor=…`): only
 * characters URL parsing leaves as they are, no dot segment, no fragment. Those are split directly, without building a
 * `URL`; anything else goes through `URL`. `test/Target.test.ts` checks both paths give the same answer.
 */

/** The parts of a request target. */
export interface Target {
  readonly path: string
  readonly query: ReadonlyArray<readonly [string, string]>
}

/** Characters no part of URL parsing changes in a path (no percent-encoding, no backslash, no fragment). */
const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&()*+,;=:@%/]*$/
/** The same for a query (where `?` may appear again). */
const PLAIN_QUERY = /^[A-Za-z0-9\-._~!$&()*+,;=:@%/?]*$/

/** Whether URL parsing would take `path` as it is: plain characters and no `.`/`..` segment (encoded or not). */
export const isPlainPath = (path: string): boolean =>
  PLAIN_PATH.test(path) && !path.includes("/.") && !path.includes("%2e") && !path.includes("%2E")

const NO_PAIRS: ReadonlyArray<readonly [string, string]> = []

/**
 * `target` with each backslash before its query encoded (`%5C`). URL parsing reads a backslash in an http URL's path
 * as `/`, as browsers do with what users type; in a request target it is no separator (HTTP does not allow it there
 * at all). Read as `/`, `/api\v1\clients` would reach a route that a proxy in front, checking paths by HTTP's rules,
 * took for another path. Encoded, it stays a character of its segment, and names no route.
 */
const literalBackslashes = (target: string): string => {
  const mark = target.indexOf("?")
  const path = mark === -1 ? target : target.slice(0, mark)
  return path.includes("\\") ? path.replaceAll("\\", "%5C") + target.slice(path.length) : target
}

/**
 * `target` as URL parsing reads it (origin-form against a placeholder origin), backslashes in its path kept as
 * characters; `undefined` when it is no URL.
 */
const toUrl = (target: string): URL | undefined => {
  const literal = literalBackslashes(target)
  try {
    return new URL(literal.startsWith("/") ? `http://localhost${literal}` : literal)
  } catch {
    return undefined
  }
}

const viaUrl = (target: string): Target | undefined => {
  const parsed = toUrl(target)
  return parsed === undefined ? undefined : { path: parsed.pathname, query: [...parsed.searchParams] }
}

/** The path and query of `target`, `undefined` when it is no URL at all. */
export const parse = (target: string): Target | undefined => {
  const mark = target.indexOf("?")
  const path = mark === -1 ? target : target.slice(0, mark)
  if (!isPlainPath(path)) return viaUrl(target)
  if (mark === -1) return { path, query: NO_PAIRS }
  const query = target.slice(mark + 1)
  // `URLSearchParams` drops one leading `?` of its input, which URL parsing keeps as part of the first name.
  if (!PLAIN_QUERY.test(query) || query.startsWith("?")) return viaUrl(target)
  return { path, query: query === "" ? NO_PAIRS : [...new URLSearchParams(query)] }
}

/** The WHATWG URL split, always: what `parse` must agree with. */
export const parseWithUrl = viaUrl

/**
 * `target` (origin-form, or absolute-form as a proxy sends it) below the mount `prefix` (`/time`, no trailing slash),
 * as the origin-form target to route, or `undefined` when it is outside: its path as URL parsing resolves it (dot
 * segments removed), each of the prefix's segments compared after percent-decoding, as Stint's routes compare theirs.
 * A plain target is split without building a `URL`.
 */
export const below = (prefix: string, target: string): string | undefined => {
  if (prefix === "") return target
  const mark = target.indexOf("?")
  const path = mark === -1 ? target : target.slice(0, mark)
  if (isPlainPath(path) && !path.includes("%")) {
    if (!path.startsWith(prefix)) return undefined
    const rest = target.slice(prefix.length)
    if (rest === "") return "/"
    if (rest.startsWith("/")) return rest
    if (rest.startsWith("?")) return `/${rest}`
    return undefined
  }
  const url = toUrl(target)
  if (url === undefined) return undefined
  const wanted = prefix.split("/")
  const segments = url.pathname.split("/")
  for (let i = 1; i < wanted.length; i++) {
    const segment = segments[i]
    const want = wanted[i] ?? ""
    if (segment === undefined || decoded(segment) !== (decoded(want) ?? want)) return undefined
  }
  return `/${segments.slice(wanted.length).join("/")}${url.search}`
}

const decoded = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}
