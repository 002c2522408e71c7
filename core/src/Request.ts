/**
 * The raw input of a public operation, as a transport received it, and its validation into typed input. Nothing is
 * validated before authentication: the operations decide the order of checks.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InvalidRequest } from "./Errors.js"

/**
 * A request body as the transport read it: parsed JSON, or the reason it could not be read (wrong content type,
 * malformed JSON, too large). `undefined` in `ApiRequest.body` means no body was sent.
 *
 * @since 0.1.0
 */
export type Body =
  | { readonly _tag: "Json"; readonly value: unknown }
  | { readonly _tag: "Unreadable"; readonly reason: string }

/** @since 0.1.0 */
export const json = (value: unknown): Body => ({ _tag: "Json", value })

/** @since 0.1.0 */
export const unreadable = (reason: string): Body => ({ _tag: "Unreadable", reason })

/**
 * Everything a transport hands to an operation. Fields an operation does not use are ignored (a GET's body, a stop's
 * body).
 *
 * @since 0.1.0
 */
export interface ApiRequest {
  /** The `Authorization` header, verbatim. */
  readonly authorization?: string | undefined
  /** The `Idempotency-Key` header, verbatim. */
  readonly idempotencyKey?: string | undefined
  /** Query parameters in order, repeats kept, names and values percent-decoded. */
  readonly query?: ReadonlyArray<readonly [name: string, value: string]> | undefined
  /** Path parameters, percent-decoded. */
  readonly path?: Readonly<Record<string, string>> | undefined
  readonly body?: Body | undefined
}

const issues = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message
  }))

/**
 * Validates the query string: unknown or repeated parameters are refused (naming the parameter), then the values are
 * decoded with `schema`.
 *
 * @since 0.1.0
 */
export const decodeQuery = <A, I>(
  query: ApiRequest["query"],
  schema: Schema.Schema<A, I> & { readonly fields: Schema.Struct.Fields }
): Effect.Effect<A, InvalidRequest> => {
  const allowed = Object.keys(schema.fields)
  const seen: Record<string, string> = {}
  for (const [name, value] of query ?? []) {
    if (!allowed.includes(name)) {
      return Effect.fail(
        new InvalidRequest({
          message: `Unknown query parameter "${name}".`,
          details: { parameter: name, reason: "unknown" }
        })
      )
    }
    if (Object.hasOwn(seen, name)) {
      return Effect.fail(
        new InvalidRequest({
          message: `Query parameter "${name}" is repeated.`,
          details: { parameter: name, reason: "repeated" }
        })
      )
    }
    seen[name] = value
  }
  return Either.match(Schema.decodeUnknownEither(schema, { errors: "all" })(seen), {
    onLeft: (error) => {
      const found = issues(error)
      const parameter = found[0]?.path ?? ""
      return Effect.fail(
        new InvalidRequest({
          message: `Invalid query parameter "${parameter}".`,
          details: { parameter, issues: found }
        })
      )
    },
    onRight: Effect.succeed
  })
}

/**
 * Validates a JSON object body with `schema` (unknown properties refused), naming the offending field.
 *
 * @since 0.1.0
 */
export const decodeBody = <A, I>(body: Body | undefined, schema: Schema.Schema<A, I>): Effect.Effect<A, InvalidRequest> => {
  if (body === undefined) {
    return Effect.fail(new InvalidRequest({ message: "A JSON request body is required.", details: { reason: "missing" } }))
  }
  if (body._tag === "Unreadable") {
    return Effect.fail(new InvalidRequest({ message: body.reason, details: { reason: "unreadable" } }))
  }
  const value = body.value
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return Effect.fail(
      new InvalidRequest({ message: "The request body must be a JSON object.", details: { reason: "not an object" } })
    )
  }
  return Either.match(
    Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(value),
    {
      onLeft: (error) => {
        const found = issues(error)
        const field = found[0]?.path ?? ""
        return Effect.fail(
          new InvalidRequest({ message: `Invalid field "${field}": ${found[0]?.message ?? "invalid"}`, details: { field, issues: found } })
        )
      },
      onRight: Effect.succeed
    }
  )
}

/**
 * Validates one path parameter with `schema`.
 *
 * @since 0.1.0
 */
export const decodePathParam = <A>(
  path: ApiRequest["path"],
  name: string,
  schema: Schema.Schema<A, string>
): Effect.Effect<A, InvalidRequest> =>
  Either.match(Schema.decodeUnknownEither(schema)(path?.[name]), {
    onLeft: () =>
      Effect.fail(new InvalidRequest({ message: `Invalid path parameter "${name}".`, details: { parameter: name } })),
    onRight: Effect.succeed
  })
