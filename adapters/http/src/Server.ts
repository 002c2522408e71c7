/**
 * The HTTP server: `layer`, Stint's request pipeline on Node's HTTP server on a host and port with graceful shutdown
 * (what `stint serve` runs), and `app`, the same pipeline as an `HttpApp` for `@effect/platform` users.
 *
 * @since 0.1.0
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import { ServeError } from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Store } from "@stint/core"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import type * as Stream from "node:stream"
import * as Body from "./internal/body.js"
import * as Dispatch from "./internal/dispatch.js"
import * as LogWriter from "./internal/logWriter.js"
import * as NodeIo from "./internal/node.js"
import * as Pipeline from "./internal/pipeline.js"
import * as Shutdown from "./internal/shutdown.js"
import type * as Observer from "./Observer.js"

const withoutFraming = (headers: Readonly<Record<string, string>>): Record<string, string> => {
  const rest: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (name !== "content-type" && name !== "content-length") rest[name] = value
  }
  return rest
}

/** How long the requests cut off at the shutdown deadline may take to end as aborted. */
const ABORTED_GRACE_MILLIS = 1_000

/**
 * The whole service as an `HttpApp` (for `HttpServer.serve`, a router, or `HttpApp.toWebHandler`), on the same
 * pipeline as `layer` and the handlers of `Handler`: the seven operations under `/api/v1`, `/healthz`, `/readyz`,
 * `/docs` and `/api/v1/openapi.json`; `404 NOT_FOUND` for any other path, `405 METHOD_NOT_ALLOWED` with `Allow` for a
 * known path with another method. Every response carries `X-Request-Id`, and each request is logged once
 * (`Effect.log`, annotated with `requestId`, `method`, `route`, `status`, `durationMs`, `keyId`, and `code` for errors;
 * 5xx at error level with the cause). Never fails.
 *
 * @since 0.1.0
 */
export const app: HttpApp.Default<never, Store.Store> = Effect.flatMap(
  HttpServerRequest.HttpServerRequest,
  (request) => {
    const requestId = randomUUID()
    const incoming: Pipeline.Incoming = {
      method: request.method,
      url: request.url,
      header: (name) => request.headers[name],
      body: () => Body.fromPlatform(request)
    }
    return Pipeline.handle(incoming, requestId, undefined).pipe(
      Effect.onInterrupt(() =>
        Effect.logInfo("request aborted by the client").pipe(
          // The path only: a query string may hold what a client should not have sent there (a key, say).
          Effect.annotateLogs({ requestId, method: request.method, path: request.url.split("?")[0] ?? "" })
        )
      ),
      Effect.tap((answered) =>
        (answered.level === LogLevel.Error ? Effect.logError("request", answered.cause) : Effect.logInfo("request"))
          .pipe(
            Effect.annotateLogs(answered.annotations),
            // A broken logger must not take the response with it.
            Effect.catchAllCause(() => Effect.void)
          )
      ),
      Effect.map(({ response }) =>
        HttpServerResponse.text(response.body, {
          status: response.status,
          contentType: response.headers["content-type"] ?? "application/json",
          headers: withoutFraming(response.headers)
        })
      )
    )
  }
)

/**
 * Where the request log lines go: each JSON line, without its newline.
 *
 * @since 0.1.0
 */
export type LogSink = (line: string) => void

/**
 * Options of `layer`.
 *
 * @since 0.1.0
 */
export interface Options {
  readonly host: string
  readonly port: number
  /** How long in-flight requests may take to finish once shutdown begins; then their connections close. Default 30 s. */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
  /**
   * How long a client may take to send a whole request, its headers and its body (at most 64 KiB); past it (checked
   * about every second) the request is answered 400 `INVALID_REQUEST` and its connection closed, so that a client
   * trickling bytes cannot hold a connection for long. Default 30 s (Node's own default is 300 s).
   */
  readonly requestTimeout?: Duration.DurationInput | undefined
  /** Hooks into every request (metrics, traces). */
  readonly observer?: Observer.Observer | undefined
  /** Where the request log goes. Default: standard output, buffered (flushed within 20 ms, at shutdown and exit). */
  readonly log?: LogSink | undefined
}

const DEFAULT_REQUEST_TIMEOUT = Duration.seconds(30)

const listen = (server: Http.Server, host: string, port: number): Effect.Effect<void, ServeError> =>
  Effect.async<void, ServeError>((resume) => {
    const onError = (cause: unknown) => resume(Effect.fail(new ServeError({ cause })))
    server.once("error", onError)
    server.listen(port, host, () => {
      server.off("error", onError)
      resume(Effect.void)
    })
  })

const addressOf = (server: Http.Server): HttpServer.Address => {
  const address = server.address()
  return typeof address === "string" || address === null
    ? { _tag: "UnixAddress", path: String(address) }
    : { _tag: "TcpAddress", hostname: address.address, port: address.port }
}

/**
 * Serves Stint with Node's HTTP server on `host` and `port` (`0` picks a free port; read the bound address from
 * `HttpServer.HttpServer`, whose `serve` is not available: this server runs Stint's pipeline only). Each request runs
 * as one fiber on the runtime the layer is built in (its `Store`, `Settings`, clock and minimum log level), and is
 * logged as one JSON line (`Logger.json`'s shape). When the layer's scope closes, the server stops accepting, lets
 * in-flight requests finish (up to `shutdownTimeout`, 30 seconds by default), closes its connections, flushes the log,
 * and only then releases the `Store`.
 *
 * @since 0.1.0
 */
export const layer = (options: Options): Layer.Layer<HttpServer.HttpServer, ServeError, Store.Store> =>
  Layer.scoped(
    HttpServer.HttpServer,
    Effect.gen(function*() {
      const writer = options.log === undefined
        ? LogWriter.stdout()
        : LogWriter.make({ sink: options.log, maxChars: 0 })
      // Added first, so it runs last: after the drain, every line is out.
      yield* Effect.addFinalizer(() => Effect.sync(() => writer.close()))
      const runtime = yield* Effect.runtime<Store.Store>()
      const runner = Pipeline.runner(runtime, { log: writer, observer: options.observer })
      const serve = (request: Http.IncomingMessage, response: Http.ServerResponse) => {
        // Node would answer a bare 400 itself (no body, no X-Request-Id, no log line): the spec's 400 instead.
        if (request.headers.host === undefined && request.httpVersionMajor === 1 && request.httpVersionMinor >= 1) {
          return runner.answer(
            NodeIo.incoming(request, request.url ?? "/"),
            (id) => Dispatch.failure(id, null, "INVALID_REQUEST", 400, "An HTTP/1.1 request needs a Host header."),
            (out) => NodeIo.write(response, out)
          )
        }
        NodeIo.serve(runner, request, response, request.url ?? "/")
      }
      const requestTimeout = Duration.toMillis(options.requestTimeout ?? DEFAULT_REQUEST_TIMEOUT)
      const server = Http.createServer({
        requireHostHeader: false,
        requestTimeout,
        headersTimeout: requestTimeout,
        connectionsCheckingInterval: Math.min(1_000, requestTimeout)
      }, serve)
      // Node keeps the first 2,000 header lines of a request and drops the rest without a word (an `Authorization`
      // or `Idempotency-Key` among them would be lost). Their size is capped anyway (16 KiB, the 400 below): no count.
      server.maxHeadersCount = 0
      // An `Expect` other than `100-continue`: Node would answer a bare 417; HTTP lets a server ignore an expectation
      // it does not know, so the request is served as any other, announced as any other (Node announces it only as
      // `checkExpectation`): the drain and the answer to garbage pipelined behind it count it as running.
      server.on("checkExpectation", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
        server.emit("request", request, response)
      })
      // `CONNECT` (a proxy's method): Node hands over the socket and would close it without a word. No route serves
      // it: the spec's 404, or 405 with `Allow` for a known path, and the connection closed.
      server.on("connect", (request: Http.IncomingMessage, socket: Stream.Duplex) => {
        socket.on("error", () => {})
        runner.run(NodeIo.incoming(request, request.url ?? "/"), (out) => void NodeIo.writeRaw(socket, out))
      })
      const tracker = Shutdown.track(server)
      /**
       * Connections whose unparseable request is being answered: by the routes (a method Node's parser does not know),
       * or with a 400 once the requests before it have been answered (pipelined garbage).
       */
      const answering = new WeakSet<Stream.Duplex>()
      /** Answers a request Node could not parse with the spec's 400 and closes its connection; logs it. */
      const refuse = (error: NodeJS.ErrnoException, socket: Stream.Duplex) => {
        const requestId = randomUUID()
        const message = error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "The HTTP request did not arrive in time."
          : "The HTTP request could not be parsed."
        if (!Shutdown.answerClientError(socket, requestId, message) || !runner.logs(LogLevel.Info)) return
        writer.write(Pipeline.logLine("request", LogLevel.Info, {
          requestId,
          method: null,
          route: null,
          status: 400,
          keyId: null,
          code: "INVALID_REQUEST",
          reason: error.code ?? "malformed HTTP request"
        }, Cause.empty, "#0"))
      }
      server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
        // Being answered already (below): more bytes of the same request make the parser fail again.
        if (answering.has(socket)) return
        if (tracker.busy(socket)) {
          // The client closed its side in the middle of a request's body: it abandoned the request, which ends as
          // aborted (its connection destroyed, its handling interrupted), not as a 400 nobody reads.
          if (error.code === "HPE_INVALID_EOF_STATE" || error.code === "ECONNRESET") return socket.destroy()
          // Garbage inside the body of the last request Node parsed (a malformed chunk): that body will never end,
          // so its request reads it as unreadable (400 INVALID_REQUEST in its own answer) instead of waiting for it
          // forever; then the connection closes.
          const running = tracker.running(socket)
          if (running !== undefined && !running.complete) {
            Body.breakBody(running)
            return tracker.closeWhenIdle(socket)
          }
          // Garbage behind requests parsed whole (pipelined): a request of its own, answered in its turn, once those
          // before it have been. A 400 now would be read as the running request's answer (and a committed start
          // taken for a refused one).
          answering.add(socket)
          return tracker.whenIdle(socket, () => refuse(error, socket))
        }
        // A method Node's parser does not know: answered by the routes (404, or 405 with `Allow`), then closed.
        const unknown = error.code === "HPE_INVALID_METHOD"
          ? NodeIo.unknownMethod((error as { readonly rawPacket?: unknown }).rawPacket, socket)
          : undefined
        if (unknown !== undefined) {
          answering.add(socket)
          return void runner.run(unknown, (out) => void NodeIo.writeRaw(socket, out))
        }
        refuse(error, socket)
      })
      yield* listen(server, options.host, options.port)
      yield* Effect.addFinalizer(() =>
        Effect.zipRight(
          tracker.drain(options.shutdownTimeout ?? Duration.seconds(30)),
          // Requests cut off at the deadline (their connections closed) end as aborted, each with its log line,
          // before the log and the store close.
          Effect.promise(() => {
            runner.interruptAll()
            return runner.whenIdle()
          }).pipe(Effect.timeoutOption(ABORTED_GRACE_MILLIS))
        )
      )
      return HttpServer.make({
        address: addressOf(server),
        serve: () => Effect.dieMessage("Stint's server serves its own pipeline only; use Server.app with your own server")
      })
    }).pipe(Effect.provide(Logger.json))
  )
