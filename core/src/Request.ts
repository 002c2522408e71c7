/**
 * The raw input of a public operation, as a transport received it, and its validation into typed input. Nothing is
 * validated before authentication: the operations decide the order of checks.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { ParseOptions } from "effect/SchemaAST"
import { InvalidRequest } from "./Errors.js"
import * as FastGuard from "./internal/fastGuard.js"
import * as Issues from "./internal/issues.js"
import * as JsonShape from "./internal/jsonShape.js"
import * as RepeatedMember from "./internal/repeatedMember.js"
import { clip } from "./internal/quote.js"

/**
 * A request body as the transport read it: parsed JSON, the reason it could not be read (wrong content type,
 * malformed JSON, too large), or JSON that repeats a member name in one of its objects (`parseJson`), which
 * `JSON.parse` would have quietly reduced to the last of them. `undefined` in `ApiRequest.body` means no body was sent.
 *
 * @since 0.1.0
 */
export type Body =
  | { readonly _tag: "Json"; readonly value: unknown }
  | { readonly _tag: "Unreadable"; readonly reason: string }
  | {
    readonly _tag: "RepeatedMember"
    /** The repeated name. */
    readonly member: string
    /** The body's top-level member holding the object that repeats it; absent when the body object itself does. */
    readonly inside?: string | undefined
  }

/** @since 0.1.0 */
export const json = (value: unknown): Body => ({ _tag: "Json", value })

/** @since 0.1.0 */
export const unreadable = (reason: string): Body => ({ _tag: "Unreadable", reason })

/** @since 0.1.0 */
export const repeatedMember = (member: string, inside?: string | undefined): Body => ({
  _tag: "RepeatedMember",
  member,
  inside
})

/**
 * A body from its JSON text, as a transport should read it: the parsed value; unreadable when the text is not JSON;
 * `RepeatedMember` when the body is an object and an object in it repeats a name (the operations refuse it with
 * `400 INVALID_REQUEST`, as they refuse a repeated query parameter, rather than act on the last value alone).
 *
 * @since 0.1.0
 */
export const parseJson = (text: string): Body => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return unreadable("The request body is not valid JSON.")
  }
  const repeated = RepeatedMember.find(text, value)
  return repeated === undefined ? json(value) : repeatedMember(repeated.member, repeated.inside)
}

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

/**
 * The deepest nesting of arrays and objects a request body may hold, the body object counting as one. The spec's
 * bodies need 1; anything deeper is refused before anything else looks into it.
 *
 * @since 0.1.0
 */
export const MAX_BODY_DEPTH = 64

/**
 * The most values (objects, arrays and leaves) a request body may hold. A 64 KiB JSON text holds fewer; this bounds
 * bodies handed to the operations directly.
 *
 * @since 0.1.0
 */
export const MAX_BODY_VALUES = 100_000

type Decoder = (input: unknown) => Either.Either<unknown, ParseResult.ParseError>

// Decoders are built once per schema (the operations' schemas are module-level constants), not once per request.
const queryDecoders = new WeakMap<object, Decoder>()
const bodyDecoders = new WeakMap<object, Decoder>()
const pathDecoders = new WeakMap<object, Decoder>()

const decoderOf = <A, I>(
  cache: WeakMap<object, Decoder>,
  schema: Schema.Schema<A, I>,
  options: ParseOptions
): (input: unknown) => Either.Either<A, ParseResult.ParseError> => {
  let decoder = cache.get(schema)
  if (decoder === undefined) {
    decoder = Schema.decodeUnknownEither(schema, options)
    cache.set(schema, decoder)
  }
  return decoder as (input: unknown) => Either.Either<A, ParseResult.ParseError>
}

const issues = (error: ParseResult.ParseError) =>
  Issues.format(error).map(({ message, path }) => ({ path, message }))

const shapeMessages = {
  "too deep": `is nested more than ${MAX_BODY_DEPTH} levels deep`,
  "too large": `holds more than ${MAX_BODY_VALUES} values`,
  "not JSON": "is not a JSON value"
} as const

const shapeProblem = (problem: JsonShape.Problem): InvalidRequest => {
  const [first] = problem.path
  const message = shapeMessages[problem.reason]
  if (first === undefined) {
    return new InvalidRequest({ message: `The request body ${message}.`, details: { reason: problem.reason } })
  }
  const field = clip(String(first))
  return new InvalidRequest({
    message: `Invalid field "${field}": ${message}.`,
    details: {
      field,
      reason: problem.reason,
      ...(problem.reason === "too deep" ? { maxDepth: MAX_BODY_DEPTH } : {}),
      issues: [{ path: field, message }]
    }
  })
}

/**
 * Validates the query string: unknown or repeated parameters are refused (naming the parameter), then the values are
 * decoded with `schema`.
 *
 * @since 0.1.0
 */
export const decodeQuery = <A, I>(
  query: ApiRequest["query"],
  schema: Schema.Schema<A, I> & { readonly fields: Schema.Struct.Fields }
): Effect.Effect<A, InvalidRequest> => decodeQueryEither(query, schema)

/**
 * `decodeQuery`, its answer as a value: for an operation that looks at a valid query before its turn comes to
 * refuse an invalid one (`Operations.listTimeEntries` reads ahead with it).
 *
 * @since 0.1.0
 */
export const decodeQueryEither = <A, I>(
  query: ApiRequest["query"],
  schema: Schema.Schema<A, I> & { readonly fields: Schema.Struct.Fields }
): Either.Either<A, InvalidRequest> => {
  const allowed = Object.keys(schema.fields)
  const seen: Record<string, string> = {}
  for (const [name, value] of query ?? []) {
    if (!allowed.includes(name)) {
      const parameter = clip(name)
      return Either.left(
        new InvalidRequest({
          message: `Unknown query parameter "${parameter}".`,
          details: { parameter, reason: "unknown" }
        })
      )
    }
    if (Object.hasOwn(seen, name)) {
      return Either.left(
        new InvalidRequest({
          message: `Query parameter "${name}" is repeated.`,
          details: { parameter: name, reason: "repeated" }
        })
      )
    }
    seen[name] = value
  }
  // Valid input as the Schema would return it: no need to run its decoder (which words the problems otherwise).
  if (FastGuard.of(schema as Schema.Schema<A, I, never>)?.(seen) === true) return Either.right(seen as A)
  return Either.mapLeft(decoderOf(queryDecoders, schema, { errors: "all" })(seen), (error) => {
    const found = issues(error)
    const parameter = found[0]?.path ?? ""
    return new InvalidRequest({
      message: `Invalid query parameter "${parameter}".`,
      details: { parameter, issues: found }
    })
  })
}

/**
 * Unknown properties, found in one pass over the keys and at most `Issues.MAX_ISSUES` reported: with effect's own
 * check (`errors: "all"`), a 58 KiB body of 6,000 unknown keys took about 60 ms and was answered with 560 KB of issues.
 */
const unknownProperties = (value: object, fields: Schema.Struct.Fields): InvalidRequest | undefined => {
  const expected = Object.keys(fields)
  const unknown = Object.keys(value).filter((key) => !expected.includes(key))
  const [first] = unknown
  if (first === undefined) return undefined
  const message = `is unexpected, expected: ${expected.map((key) => JSON.stringify(key)).join(" | ")}`
  const found = unknown.slice(0, Issues.MAX_ISSUES).map((key) => ({ path: clip(key), message }))
  return new InvalidRequest({
    message: `Invalid field "${clip(first)}": ${message}`,
    details: { field: clip(first), issues: found }
  })
}

const repeatedProblem = (member: string, inside: string | undefined): InvalidRequest => {
  const name = clip(member)
  if (inside === undefined) {
    return new InvalidRequest({
      message: `Invalid field "${name}": it is repeated.`,
      details: { field: name, reason: "repeated" }
    })
  }
  const field = clip(inside)
  return new InvalidRequest({
    message: `Invalid field "${field}": an object in it repeats the member "${name}".`,
    details: { field, member: name, reason: "repeated" }
  })
}

/**
 * Validates a JSON object body with `schema` (unknown and repeated properties refused), naming the offending field.
 * Before the schema looks into it, the body must be a plain JSON tree at most `MAX_BODY_DEPTH` deep with at most
 * `MAX_BODY_VALUES` values; messages and `details` quote client input only clipped, so their size never depends on
 * the body.
 *
 * @since 0.1.0
 */
export const decodeBody = <A, I>(
  body: Body | undefined,
  schema: Schema.Schema<A, I> & { readonly fields: Schema.Struct.Fields }
): Effect.Effect<A, InvalidRequest> => {
  if (body === undefined) {
    return Effect.fail(new InvalidRequest({ message: "A JSON request body is required.", details: { reason: "missing" } }))
  }
  if (body._tag === "Unreadable") {
    return Effect.fail(new InvalidRequest({ message: clip(body.reason, 200), details: { reason: "unreadable" } }))
  }
  if (body._tag === "RepeatedMember") return Effect.fail(repeatedProblem(body.member, body.inside))
  const value = body.value
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return Effect.fail(
      new InvalidRequest({ message: "The request body must be a JSON object.", details: { reason: "not an object" } })
    )
  }
  const problem = JsonShape.check(value, { maxDepth: MAX_BODY_DEPTH, maxNodes: MAX_BODY_VALUES })
  if (problem !== undefined) return Effect.fail(shapeProblem(problem))
  const unknown = unknownProperties(value, schema.fields)
  if (unknown !== undefined) return Effect.fail(unknown)
  if (FastGuard.of(schema as Schema.Schema<A, I, never>)?.(value) === true) return Effect.succeed(value as A)
  return Either.match(
    decoderOf(bodyDecoders, schema, { errors: "all", onExcessProperty: "error" })(value),
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
  Either.match(decoderOf(pathDecoders, schema, {})(path?.[name]), {
    onLeft: () =>
      Effect.fail(new InvalidRequest({ message: `Invalid path parameter "${name}".`, details: { parameter: name } })),
    onRight: Effect.succeed
  })
