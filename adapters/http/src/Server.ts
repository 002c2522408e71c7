/**
 * The HTTP server: `app`, an `HttpApp` derived from the `HttpApi` definition that hands each request raw to the core
 * and writes the spec's responses, and `layer`, a Node server on a host and port with graceful shutdown.
 *
 * @since 0.1.0
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Authentication, Store } from "@stint/core"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import * as Docs from "./Docs.js"
import * as ErrorResponses from "./ErrorResponses.js"
import * as Handlers from "./Handlers.js"
import * as Body from "./internal/body.js"
import * as Shutdown from "./internal/shutdown.js"
import * as OpenApiDocument from "./OpenApiDocument.js"
import * as Router from "./Router.js"

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

/** What a request came to, before the request id and the log line are added. */
interface Outcome {
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

const JSON_TYPE = "application/json"

const failure = (
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

const internalError = (requestId: string, route: string | null, cause: Cause.Cause<unknown>): Outcome => ({
  ...failure(requestId, route, "INTERNAL_ERROR", 500, ErrorResponses.INTERNAL_MESSAGE),
  cause
})

/** Splits a request target into its path and its query pairs (in order, repeats kept, percent-decoded). */
const parseTarget = (
  url: string
): { readonly path: string; readonly query: ReadonlyArray<readonly [string, string]> } | undefined => {
  try {
    const parsed = new URL(url.startsWith("/") ? `http://localhost${url}` : url)
    return { path: parsed.pathname, query: [...parsed.searchParams] }
  } catch {
    return undefined
  }
}

/** Runs an operation with the raw request and writes its success or its error. */
const callOperation = (
  route: Handlers.ApiRoute,
  request: HttpServerRequest.HttpServerRequest,
  query: ReadonlyArray<readonly [string, string]>,
  params: Readonly<Record<string, string>>,
  requestId: string
): Effect.Effect<Outcome, never, Store.Store> =>
  Effect.gen(function*() {
    const body = route.readsBody ? yield* Body.read(request) : undefined
    const exit = yield* Effect.exit(
      Effect.flatMap(
        route.handler({
          authorization: request.headers["authorization"],
          idempotencyKey: request.headers["idempotency-key"],
          query,
          path: params,
          body
        }),
        (reply) =>
          reply._tag === "Raw"
            ? Effect.succeed({ json: reply.json, replayed: reply.replayed })
            // Successes are plain JSON values (their Schema types equal their encoded forms): no re-validation here;
            // the HTTP tests check every answer against the OpenAPI document instead.
            : Effect.succeed({ json: JSON.stringify(reply.value), replayed: false })
      )
    )
    if (Exit.isSuccess(exit)) {
      const { json, replayed } = exit.value
      return {
        status: route.successStatus,
        body: json,
        contentType: JSON_TYPE,
        headers: replayed ? { "idempotent-replayed": "true" } : {},
        route: route.template
      }
    }
    const cause = exit.cause
    if (Cause.isInterruptedOnly(cause)) return yield* Effect.interrupt
    const error = Cause.failureOption(cause)
    if (Option.isSome(error) && error.value._tag !== "StoreError") {
      const code = ErrorResponses.codeOfTag[error.value._tag]
      const { details, message } = error.value
      return failure(requestId, route.template, code, ErrorResponses.statusOf[code], message, details)
    }
    return internalError(requestId, route.template, cause)
  })

const dispatch = (
  request: HttpServerRequest.HttpServerRequest,
  requestId: string
): Effect.Effect<Outcome, never, Store.Store> => {
  const target = parseTarget(request.url)
  if (target === undefined) return Effect.succeed(failure(requestId, null, "NOT_FOUND", 404, "Unknown path."))
  const match = router(request.method, target.path)
  switch (match._tag) {
    case "NotFound":
      return Effect.succeed(failure(requestId, null, "NOT_FOUND", 404, `No resource at ${target.path}.`))
    case "MethodNotAllowed":
      return Effect.succeed({
        ...failure(
          requestId,
          match.template,
          "METHOD_NOT_ALLOWED",
          405,
          `${target.path} does not support ${request.method}; it supports ${match.allow.join(", ")}.`,
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
      return callOperation(handler.route, request, target.query, match.params, requestId)
    case "Health":
      return Effect.succeed({ status: 200, body: JSON.stringify({ status: "ok" }), contentType: JSON_TYPE, route })
    case "OpenApi":
      return Effect.succeed({ status: 200, body: OpenApiDocument.json, contentType: JSON_TYPE, route })
    case "Docs":
      return Effect.succeed({
        status: 200,
        body: Docs.html,
        contentType: "text/html; charset=utf-8",
        headers: { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" },
        route
      })
    case "Ready":
      return Store.Store.pipe(
        Effect.flatMap((store) => store.ping),
        Effect.timeoutFail({ duration: READY_TIMEOUT, onTimeout: () => "Store.ping timed out" }),
        Effect.matchCause({
          onSuccess: (): Outcome => ({ status: 200, body: JSON.stringify({ status: "ready" }), contentType: JSON_TYPE, route }),
          onFailure: (cause): Outcome => ({
            ...failure(requestId, route, "NOT_READY", 503, "The service cannot reach its database."),
            cause
          })
        })
      )
  }
}

/**
 * The whole service as an `HttpApp` (for `HttpServer.serve`, a router, or `HttpApp.toWebHandler`): the seven
 * operations under `/api/v1`, `/healthz`, `/readyz`, `/docs` and `/api/v1/openapi.json`; `404 NOT_FOUND` for any
 * other path, `405 METHOD_NOT_ALLOWED` with `Allow` for a known path with another method. Every response carries
 * `X-Request-Id`, and each request is logged once (`Effect.log`, annotated with `requestId`, `method`, `route`,
 * `status`, `durationMs`, `keyId`, and `code` for errors; 5xx at error level with the cause). Never fails.
 *
 * @since 0.1.0
 */
export const app: HttpApp.Default<never, Store.Store> = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const requestId = randomUUID()
  const started = yield* Clock.currentTimeNanos
  const outcome = yield* dispatch(request, requestId).pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.succeed(internalError(requestId, null, cause))
    ),
    Effect.onInterrupt(() =>
      Effect.logInfo("request aborted by the client").pipe(
        // The path only: a query string may hold what a client should not have sent there (a key, say).
        Effect.annotateLogs({ requestId, method: request.method, path: request.url.split("?")[0] ?? "" })
      )
    )
  )
  const keyId = yield* FiberRef.get(Authentication.authenticatedKeyId)
  const durationMs = Number((yield* Clock.currentTimeNanos) - started) / 1e6
  const annotations = {
    requestId,
    method: request.method,
    route: outcome.route,
    status: outcome.status,
    durationMs: Math.round(durationMs * 1000) / 1000,
    keyId: Option.getOrNull(keyId),
    ...(outcome.code === undefined ? {} : { code: outcome.code })
  }
  yield* (outcome.status >= 500
    ? Effect.logError("request", outcome.cause ?? Cause.empty)
    : Effect.logInfo("request")).pipe(
      Effect.annotateLogs(annotations),
      // A broken logger must not take the response with it.
      Effect.catchAllCause(() => Effect.void)
    )
  return HttpServerResponse.text(outcome.body, {
    status: outcome.status,
    contentType: outcome.contentType,
    headers: { ...outcome.headers, "x-request-id": requestId }
  })
})

/**
 * Serves `app` with Node's HTTP server on `host` and `port` (`0` picks a free port; read the bound address from
 * `HttpServer.HttpServer`). Request logs are JSON lines. When the layer's scope closes, the server stops accepting,
 * lets in-flight requests finish (up to `shutdownTimeout`, 30 seconds by default), closes its connections, and only
 * then releases the `Store`.
 *
 * @since 0.1.0
 */
export const layer = (options: {
  readonly host: string
  readonly port: number
  /** How long in-flight requests may take to finish once shutdown begins; then their connections close. Default 30 s. */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
}): Layer.Layer<HttpServer.HttpServer, ServeError, Store.Store> =>
  Layer.scoped(
    HttpServer.HttpServer,
    Effect.gen(function*() {
      const server = Http.createServer()
      const tracker = Shutdown.track(server)
      const httpServer = yield* NodeHttpServer.make(() => server, { host: options.host, port: options.port })
      yield* httpServer.serve(app)
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())
      server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
        // Garbage behind a request still running on this connection: answer that request, then close. A 400 here
        // would be read as the running request's answer (and a committed start taken for a refused one).
        if (tracker.busy(socket)) return tracker.closeWhenIdle(socket)
        const requestId = randomUUID()
        if (!Shutdown.answerClientError(socket, requestId)) return
        runFork(
          Effect.logInfo("request").pipe(Effect.annotateLogs({
            requestId,
            method: null,
            route: null,
            status: 400,
            keyId: null,
            code: "INVALID_REQUEST",
            reason: error.code ?? "malformed HTTP request"
          }))
        )
      })
      yield* Effect.addFinalizer(() => tracker.drain(options.shutdownTimeout ?? Duration.seconds(30)))
      return httpServer
    }).pipe(Effect.provide(Logger.json))
  )
