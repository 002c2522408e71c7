/**
 * What a request comes to, transport aside: the route (or 404, or 405 with `Allow`), the operation called with the raw
 * request, and the spec's answer or error body. Shared by `stint serve`, the embedders' handlers and `Server.app`.
 */
import type { Errors } from "@stint/core"
import { Store } from "@stint/core"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Docs from "../Docs.js"
import * as ErrorResponses from "../ErrorResponses.js"
import * as Handlers from "../Handlers.js"
import * as Metrics from "../Metrics.js"
import * as OpenApiDocument from "../OpenApiDocument.js"
import * as Router from "../Router.js"
import type * as Body from "./body.js"
import * as BodyReader from "./body.js"
import * as Target from "./target.js"

/** A request as any transport hands it over. */
export interface Incoming {
  readonly method: string
  /** The request target as the routes see it: `/api/v1/timer?x=1` (a mount prefix already removed). */
  readonly url: string
  /** A header's value by lower-case name (the first, when repeated). */
  readonly header: (name: string) => string | undefined
  /** The body, read only by the routes that declare one. */
  readonly body: () => Body.Source
  /** The mount prefix the request came through (`/time`), absent at the root: the OpenAPI document names it. */
  readonly prefix?: string | undefined
}

/** What a request came to, before the request id and the log line are added. */
export interface Outcome {
  readonly status: number
  readonly body: string
  readonly contentType: string
  readonly headers?: Readonly<Record<string, string>>
  /** The route template, `null` when no route matched. */
  readonly route: string | null
  /** The error code, when the response is an error. */
  readonly code?: string
  /** Why a 5xx happened; logged, never sent. */
  readonly cause?: Cause.Cause<unknown>
}

type Target =
  | { readonly _tag: "Api"; readonly route: Handlers.ApiRoute }
  | { readonly _tag: "Health" | "Ready" | "Docs" | "OpenApi" }

const router = Router.make<Target>([
  ...Handlers.routes.map((route) => ({
    method: route.method,
    template: route.template,
    handler: { _tag: "Api", route } as const
  })),
  { method: "GET", template: "/healthz", handler: { _tag: "Health" } },
  { method: "GET", template: "/readyz", handler: { _tag: "Ready" } },
  { method: "GET", template: "/docs", handler: { _tag: "Docs" } },
  { method: "GET", template: "/api/v1/openapi.json", handler: { _tag: "OpenApi" } }
])

/** How long `/readyz` waits for `Store.ping`. */
const READY_TIMEOUT = Duration.seconds(5)

const JSON_TYPE = "application/json"

/** An error outcome in the spec's error shape. */
export const failure = (
  requestId: string,
  route: string | null,
  code: ErrorResponses.Code,
  status: number,
  message: string,
  details: Readonly<Record<string, unknown>> = {}
): Outcome => ({
  status,
  body: ErrorResponses.body(code, message, details, requestId),
  contentType: JSON_TYPE,
  route,
  code
})

/** A 500 that logs its cause and sends only the request id. */
export const internalError = (requestId: string, route: string | null, cause: Cause.Cause<unknown>): Outcome => ({
  ...failure(requestId, route, "INTERNAL_ERROR", 500, ErrorResponses.INTERNAL_MESSAGE),
  cause
})

/** The longest path a message quotes; longer ones are cut (a message never grows with what a client sent). */
const QUOTED_PATH_LENGTH = 200

const quotedPath = (path: string): string =>
  path.length <= QUOTED_PATH_LENGTH ? path : `${path.slice(0, QUOTED_PATH_LENGTH)}…`

/** The 404 of a path no route serves. */
export const notFound = (requestId: string, path: string): Outcome =>
  failure(requestId, null, "NOT_FOUND", 404, `No resource at ${quotedPath(path)}.`)

const operationFailure = (
  route: Handlers.ApiRoute,
  requestId: string,
  cause: Cause.Cause<Errors.ApiError>
): Effect.Effect<Outcome> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
  const error = Cause.failureOption(cause)
  if (Option.isSome(error) && error.value._tag !== "StoreError") {
    const code = ErrorResponses.codeOfTag[error.value._tag]
    const { details, message } = error.value
    return Effect.succeed(failure(requestId, route.template, code, ErrorResponses.statusOf[code], message, details))
  }
  return Effect.succeed(internalError(requestId, route.template, cause))
}

/** Runs an operation with the raw request and writes its success or its error. */
const callOperation = (
  route: Handlers.ApiRoute,
  incoming: Incoming,
  query: ReadonlyArray<readonly [string, string]>,
  params: Readonly<Record<string, string>>,
  requestId: string
): Effect.Effect<Outcome, never, Store.Store> => {
  const run = (body: Parameters<Handlers.Handler>[0]["body"]) =>
    Effect.matchCauseEffect(
      route.handler({
        authorization: incoming.header("authorization"),
        idempotencyKey: incoming.header("idempotency-key"),
        query,
        path: params,
        body
      }),
      {
        onSuccess: (reply): Effect.Effect<Outcome> =>
          Effect.succeed({
            status: route.successStatus,
            // Successes are plain JSON values (their Schema types equal their encoded forms): no re-validation here;
            // the HTTP tests check every answer against the OpenAPI document instead.
            body: reply._tag === "Raw" ? reply.json : JSON.stringify(reply.value),
            contentType: JSON_TYPE,
            ...(reply._tag === "Raw" && reply.replayed ? { headers: { "idempotent-replayed": "true" } } : {}),
            route: route.template
          }),
        onFailure: (cause) => operationFailure(route, requestId, cause)
      }
    )
  return route.readsBody ? Effect.flatMap(BodyReader.read(incoming.body()), run) : run(undefined)
}

/** The ping's failure counter, for a ping cut off by the timeout (interrupted, so its own observation counts none). */
const PING_LABELS = Metrics.labels(["method", "ping"])

const ready = (requestId: string, route: string): Effect.Effect<Outcome, never, Store.Store> =>
  Store.Store.pipe(
    Effect.flatMap((store) => store.ping),
    Effect.timeoutFail({
      duration: READY_TIMEOUT,
      onTimeout: () => {
        // A database that stops answering is a store failure like one that refuses: count it.
        Metrics.storeCallFailures.unsafeUpdate(1, PING_LABELS)
        return "Store.ping timed out"
      }
    }),
    Effect.matchCause({
      onSuccess: (): Outcome => ({ status: 200, body: JSON.stringify({ status: "ready" }), contentType: JSON_TYPE, route }),
      onFailure: (cause): Outcome => ({
        ...failure(requestId, route, "NOT_READY", 503, "The service cannot use its database."),
        cause
      })
    })
  )

const healthBody = JSON.stringify({ status: "ok" })
const docsHeaders = {
  // `default-src` does not cover framing, the base URL or form targets: the page allows none of them either.
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
}

/**
 * Routes a request and runs what it asks for. Fails only by interruption; every other failure is an outcome (a 500
 * for a defect or a store fault).
 */
export const dispatch = (incoming: Incoming, requestId: string): Effect.Effect<Outcome, never, Store.Store> => {
  const target = Target.parse(incoming.url)
  if (target === undefined) return Effect.succeed(failure(requestId, null, "NOT_FOUND", 404, "Unknown path."))
  const match = router(incoming.method, target.path)
  // A message names the path as the client sent it, mount prefix included.
  const shown = incoming.prefix === undefined ? target.path : `${incoming.prefix}${target.path}`
  switch (match._tag) {
    case "NotFound":
      return Effect.succeed(notFound(requestId, shown))
    case "MethodNotAllowed":
      return Effect.succeed({
        ...failure(
          requestId,
          match.template,
          "METHOD_NOT_ALLOWED",
          405,
          `${quotedPath(shown)} does not support ${incoming.method}; it supports ${match.allow.join(", ")}.`,
          { allow: match.allow }
        ),
        headers: { allow: match.allow.join(", ") }
      })
    case "Found":
      break
  }
  const route = match.route.template
  const handler = match.route.handler
  switch (handler._tag) {
    case "Api":
      return callOperation(handler.route, incoming, target.query, match.params, requestId)
    case "Health":
      return Effect.succeed({ status: 200, body: healthBody, contentType: JSON_TYPE, route })
    case "OpenApi":
      return Effect.succeed({
        status: 200,
        body: OpenApiDocument.jsonAt(incoming.prefix ?? ""),
        contentType: JSON_TYPE,
        route
      })
    case "Docs":
      return Effect.succeed({
        status: 200,
        body: Docs.html,
        contentType: "text/html; charset=utf-8",
        headers: docsHeaders,
        route
      })
    case "Ready":
      return ready(requestId, route)
  }
}

/** Runs `dispatch`, turning any defect it lets through into a 500 (interruption stays interruption). */
export const safely = (incoming: Incoming, requestId: string): Effect.Effect<Outcome, never, Store.Store> =>
  Effect.catchAllCause(
    Effect.suspend(() => dispatch(incoming, requestId)),
    (cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.succeed(internalError(requestId, null, cause))
  )
