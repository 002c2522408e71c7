/**
 * Route matching by method and path template (`/api/v1/timers/:timerId/stop`), with the three outcomes the decisions
 * page needs: a route, a known path served with other methods (405 with `Allow`), or an unknown path (404).
 *
 * @since 0.1.0
 */

/**
 * A route: a method, a path template whose `:name` segments are parameters, and what to do.
 *
 * @since 0.1.0
 */
export interface Route<A> {
  readonly method: string
  readonly template: string
  readonly handler: A
}

/**
 * What a method and path hit.
 *
 * @since 0.1.0
 */
export type Match<A> =
  | {
    readonly _tag: "Found"
    readonly route: Route<A>
    /** Percent-decoded path parameters. */
    readonly params: Readonly<Record<string, string>>
  }
  | {
    readonly _tag: "MethodNotAllowed"
    /** The path's template, for logs. */
    readonly template: string
    /** The methods the path is served with, for the `Allow` header. */
    readonly allow: ReadonlyArray<string>
  }
  | { readonly _tag: "NotFound" }

type Segment = { readonly _tag: "Literal"; readonly value: string } | { readonly _tag: "Param"; readonly name: string }

const compile = (template: string): ReadonlyArray<Segment> =>
  template.split("/").slice(1).map((part) =>
    part.startsWith(":") ? { _tag: "Param", name: part.slice(1) } : { _tag: "Literal", value: part }
  )

const decode = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    // A malformed escape names no literal segment; as a parameter it is passed on verbatim for the core to refuse.
    return segment
  }
}

const matchPath = (
  segments: ReadonlyArray<Segment>,
  parts: ReadonlyArray<string>
): Record<string, string> | undefined => {
  if (segments.length !== parts.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]
    const part = parts[i]
    if (segment === undefined || part === undefined) return undefined
    if (segment._tag === "Literal") {
      if (segment.value !== part) return undefined
    } else {
      if (part === "") return undefined
      params[segment.name] = part
    }
  }
  return params
}

/**
 * Compiles routes into a matcher of a method and a raw path (no query string). A path matches a template when it has
 * as many segments, equal literal segments and non-empty parameters, after percent-decoding each segment.
 *
 * @since 0.1.0
 */
export const make = <A>(routes: ReadonlyArray<Route<A>>): (method: string, path: string) => Match<A> => {
  const compiled = routes.map((route) => ({ route, segments: compile(route.template) }))
  return (method, path) => {
    const parts = path.split("/").slice(1).map(decode)
    let allow: Array<string> = []
    let template = ""
    for (const { route, segments } of compiled) {
      const params = matchPath(segments, parts)
      if (params === undefined) continue
      if (route.method === method) return { _tag: "Found", route, params }
      if (!allow.includes(route.method)) allow = [...allow, route.method]
      template = route.template
    }
    return allow.length === 0 ? { _tag: "NotFound" } : { _tag: "MethodNotAllowed", template, allow }
  }
}
