/**
 * One request, one answer: sends an operation's request through the `HttpClient` within the per-request timeout and
 * reads the answer as the spec writes it. A success is decoded with the operation's Schema; an error body becomes the
 * error class of its code; anything else (a body that does not decode, a code the operation never answers, a
 * gateway's page) is an `UnexpectedResponse`, never a wrong value.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Schemas from "@stint/core/Schemas"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Issue from "./issue.js"
import {
  byCode,
  type ErrorCode,
  type ErrorOf,
  NetworkError,
  RequestTimeout,
  type TransportError,
  UnexpectedResponse
} from "../Errors.js"
import type { Resolved } from "../Options.js"
import type { Operation } from "./operations.js"

/** What varies between two requests of one operation. */
export interface Request {
  /** The path, parameters filled in. */
  readonly path: string
  readonly query?: URLSearchParams | undefined
  /** JSON text, sent as it is on every try. */
  readonly body?: string | undefined
  readonly idempotencyKey?: string | undefined
}

/** A decoded success. */
export interface Answer<A> {
  readonly value: A
  /** `Idempotent-Replayed: true`. */
  readonly replayed: boolean
}

interface Raw {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly text: string
}

const decodeErrorBody = Schema.decodeUnknownEither(Schemas.ErrorBody)

const parseJson = (text: string): Either.Either<unknown, string> => {
  try {
    return Either.right(JSON.parse(text))
  } catch {
    return Either.left(`the body is not JSON: ${JSON.stringify(text.slice(0, 200))}`)
  }
}

const isCode = (code: string): code is ErrorCode => Object.hasOwn(byCode, code)

/** Reads an answer the way the spec writes it. */
const interpret = <A, Codes extends ErrorCode>(
  operation: Operation<A, Codes>,
  raw: Raw
): Either.Either<Answer<A>, ErrorOf<Codes> | UnexpectedResponse> => {
  const headerId = raw.headers["x-request-id"]
  const unexpected = (reason: string, requestId = headerId) =>
    Either.left(new UnexpectedResponse(raw.status, requestId, reason))
  const json = parseJson(raw.text)
  if (raw.status === operation.status) {
    return Either.match(json, {
      onLeft: (reason) => unexpected(reason),
      onRight: (value) =>
        Either.match(Schema.decodeUnknownEither(operation.success)(value), {
          onLeft: (issue) =>
            unexpected(
              `the body does not match ${operation.name}'s Schema: ${Issue.summary(issue)}`
            ),
          onRight: (decoded) =>
            Either.right({ value: decoded, replayed: raw.headers["idempotent-replayed"] === "true" })
        })
    })
  }
  const body = Either.flatMap(json, (value) =>
    Either.mapLeft(decodeErrorBody(value), () => "not the spec's error body")
  )
  if (Either.isLeft(body)) return unexpected(body.left)
  const { error, requestId } = body.right
  const code = error.code
  if (!isCode(code) || !(operation.errors as ReadonlyArray<string>).includes(code)) {
    return unexpected(`${operation.name} never answers ${code}: ${error.message}`, requestId)
  }
  const failure = new byCode[code]({ message: error.message, requestId, details: error.details })
  if (failure.status !== raw.status) return unexpected(`${code} comes with ${failure.status}`, requestId)
  return Either.left(failure as ErrorOf<Codes>)
}

/** Sends one request of `operation` and reads its answer. */
export const send = <A, Codes extends ErrorCode>(
  http: HttpClient.HttpClient,
  config: Resolved,
  operation: Operation<A, Codes>,
  request: Request
): Effect.Effect<Answer<A>, ErrorOf<Codes> | TransportError> => {
  const search = request.query?.toString() ?? ""
  const query = search === "" ? "" : `?${search}`
  const base = HttpClientRequest.make(operation.method)(`${config.baseUrl}${request.path}${query}`).pipe(
    HttpClientRequest.setHeaders({
      accept: "application/json",
      authorization: `Bearer ${config.apiKey}`,
      ...(request.idempotencyKey === undefined ? {} : { "idempotency-key": request.idempotencyKey })
    })
  )
  const outgoing = request.body === undefined
    ? base
    : HttpClientRequest.bodyText(base, request.body, "application/json")
  return http.execute(outgoing).pipe(
    Effect.flatMap((response) =>
      Effect.map(response.text, (text): Raw => ({ status: response.status, headers: response.headers, text }))
    ),
    Effect.mapError((error) => new NetworkError(error.cause ?? error)),
    Effect.timeoutFail({
      duration: config.timeoutMillis,
      onTimeout: () => new RequestTimeout(config.timeoutMillis)
    }),
    Effect.flatMap((raw) => interpret(operation, raw))
  )
}

/**
 * Whether a failure leaves the outcome unknown: no answer, no answer in time, a 500, or a 5xx that is not even the
 * spec's (a gateway's).
 */
export const isUncertain = (error: { readonly _tag: string; readonly status?: number }): boolean =>
  error._tag === "NetworkError" || error._tag === "RequestTimeout" || error._tag === "InternalError" ||
  (error._tag === "UnexpectedResponse" && (error.status ?? 0) >= 500)
