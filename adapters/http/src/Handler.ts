/**
 * Stint's whole API as handlers to mount in any server: a Web-standard `fetch` (`(request: Request) =>
 * Promise<Response>`: Hono, Bun, Deno, Next.js route handlers) and a Node `node` (`(req, res, next?)`: node:http,
 * Express, Fastify's raw hooks), built from a `Store` layer, answering exactly as `stint serve` does.
 *
 * @since 0.1.0
 */
import { Settings, type Store } from "@stint/core"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import type * as Http from "node:http"
import * as Body from "./internal/body.js"
import * as Dispatch from "./internal/dispatch.js"
import * as LogWriter from "./internal/logWriter.js"
import * as NodeIo from "./internal/node.js"
import * as Pipeline from "./internal/pipeline.js"
import * as Target from "./internal/target.js"
import * as NodeHashing from "./NodeHashing.js"
import type * as Observer from "./Observer.js"

/**
 * Options of the handlers.
 *
 * @since 0.1.0
 */
export interface Options {
  /**
   * Where the API is mounted, e.g. `"/time"`: `/time/api/v1/timer` is the spec's `/api/v1/timer`. Paths outside it
   * go to `next()` in the Node handler (the spec's 404 without `next`), and get the spec's 404 from the Web handler.
   * What is below it is decided on the path as routing sees it: dot segments resolved, an absolute-form target's path,
   * each segment compared after percent-decoding (`/%74ime/api/v1/timer` is below `/time`, `/time/../about` is not).
   * Default: none (the spec's paths at the root). Leave it out when the framework strips the prefix itself
   * (Express's `app.use("/time", stint.node)`).
   */
  readonly prefix?: string | undefined
  /** Policies other than the spec's (e.g. another rate limit). Default: `Settings.defaults`. */
  readonly settings?: Partial<Settings.SettingsShape> | undefined
  /**
   * Where the one JSON log line per request goes: `true` (default) standard output, buffered; `false` nowhere; or a
   * function given each line.
   */
  readonly log?: boolean | ((line: string) => void) | undefined
  /** Hooks into every request (metrics, traces). */
  readonly observer?: Observer.Observer | undefined
  /** How long `dispose` lets in-flight requests run before interrupting them. Default 30 s. */
  readonly shutdownTimeout?: Duration.DurationInput | undefined
}

/**
 * The Node handler: `(req, res, next?)`. Outside the mount prefix it calls `next()` (or answers the spec's 404 when
 * there is no `next`).
 *
 * @since 0.1.0
 */
export type NodeHandler = (
  request: Http.IncomingMessage,
  response: Http.ServerResponse,
  next?: (error?: unknown) => void
) => void

/**
 * The Web-standard handler.
 *
 * @since 0.1.0
 */
export type FetchHandler = (request: Request) => Promise<Response>

/**
 * Stint's API as handlers, owning the store's resources.
 *
 * @since 0.1.0
 */
export interface StintHandler {
  /** The Web-standard handler. */
  readonly fetch: FetchHandler
  /** The Node handler. */
  readonly node: NodeHandler
  /** Completes once the store is open (requests wait for it anyway); rejects with the reason it cannot be. */
  readonly ready: () => Promise<void>
  /**
   * Stops taking requests (later ones get `503 NOT_READY`), lets in-flight requests finish (up to `shutdownTimeout`,
   * then interrupts them), flushes the log, and closes the store's resources. Idempotent.
   */
  readonly dispose: () => Promise<void>
}

/** A prefix as a path: `"time/"` → `"/time"`, `"/"` or `""` → `""`. */
const normalizePrefix = (prefix: string | undefined): string => {
  if (prefix === undefined) return ""
  const trimmed = prefix.replace(/\/+$/, "")
  return trimmed === "" ? "" : trimmed.startsWith("/") ? trimmed : `/${trimmed}`
}

const sinkOf = (log: Options["log"]): LogWriter.LineWriter =>
  log === false
    ? { write: () => {}, flush: () => {}, close: () => {} }
    : typeof log === "function"
    ? LogWriter.make({ sink: log, maxChars: 0 })
    : LogWriter.stdout()

interface Core {
  readonly runner: () => Pipeline.Runner | Promise<Pipeline.Runner>
  readonly closing: () => boolean
  readonly writer: LogWriter.LineWriter
}

/** The answer when the store could not be opened: a 500 in the error shape, the cause in the log. */
const unavailable = (
  writer: LogWriter.LineWriter,
  incoming: Pipeline.Incoming,
  error: unknown,
  respond: (response: Pipeline.Outgoing) => void
): void => {
  const requestId = randomUUID()
  const cause = Cause.die(error)
  const answered = Pipeline.answerNow(incoming, requestId, Dispatch.internalError(requestId, null, cause))
  respond(answered.response)
  writer.write(Pipeline.logLine("request", answered.level, answered.annotations, answered.cause, "#0"))
}

const shuttingDown = (requestId: string) =>
  Dispatch.failure(requestId, null, "NOT_READY", 503, "The service is shutting down.")

const webIncoming = (request: Request, url: string, prefix: string): Pipeline.Incoming => ({
  method: request.method,
  url,
  header: (name) => request.headers.get(name) ?? undefined,
  body: () => Body.fromWeb(request),
  ...(prefix === "" ? {} : { prefix })
})

const toResponse = (outgoing: Pipeline.Outgoing): Response =>
  new Response(outgoing.body, { status: outgoing.status, headers: outgoing.headers })

const handlers = (core: Core, prefix: string): { readonly fetch: FetchHandler; readonly node: NodeHandler } => {
  const answerWeb = (incoming: Pipeline.Incoming, runner: Pipeline.Runner): Promise<Response> =>
    new Promise((resolve) => {
      if (core.closing()) return runner.answer(incoming, shuttingDown, (out) => resolve(toResponse(out)))
      runner.run(incoming, (out) => resolve(toResponse(out)))
    })
  const fetch: FetchHandler = async (request) => {
    const url = new URL(request.url)
    const target = Target.below(prefix, `${url.pathname}${url.search}`)
    let runner: Pipeline.Runner
    try {
      runner = await core.runner()
    } catch (error) {
      return new Promise((resolve) =>
        unavailable(core.writer, webIncoming(request, target ?? url.pathname, prefix), error, (out) => resolve(toResponse(out)))
      )
    }
    if (target === undefined) {
      const outside = webIncoming(request, `${url.pathname}${url.search}`, "")
      return new Promise((resolve) =>
        runner.answer(outside, (id) => Dispatch.notFound(id, url.pathname), (out) => resolve(toResponse(out)))
      )
    }
    return answerWeb(webIncoming(request, target, prefix), runner)
  }
  const serveNode = (runner: Pipeline.Runner, request: Http.IncomingMessage, response: Http.ServerResponse, target: string) => {
    if (!core.closing()) return NodeIo.serve(runner, request, response, target, prefix)
    runner.answer(NodeIo.incoming(request, target, prefix), shuttingDown, (out) => NodeIo.write(response, out))
  }
  const node: NodeHandler = (request, response, next) => {
    const raw = request.url ?? "/"
    const target = Target.below(prefix, raw)
    if (target === undefined && next !== undefined) return next()
    const run = (runner: Pipeline.Runner) =>
      target === undefined
        ? runner.answer(
          NodeIo.incoming(request, raw),
          (id) => Dispatch.notFound(id, raw.split("?")[0] ?? raw),
          (out) => NodeIo.write(response, out)
        )
        : serveNode(runner, request, response, target)
    const ready = core.runner()
    if (!(ready instanceof Promise)) return run(ready)
    ready.then(run, (error: unknown) =>
      unavailable(core.writer, NodeIo.incoming(request, target ?? raw), error, (out) => NodeIo.write(response, out)))
  }
  return { fetch, node }
}

// The native SHA-256 and HMAC of `node:crypto` (as `stint serve` uses), not the core's portable default: every request
// hashes its key, and every mutation its fingerprint.
const storeLayer = <E>(store: Layer.Layer<Store.Store, E>, options: Options) =>
  Layer.mergeAll(
    store,
    NodeHashing.layer,
    Layer.succeed(Settings.Settings, { ...Settings.defaults, ...options.settings }),
    Logger.json
  )

/**
 * Stint's API as handlers over the `Store` that `store` builds (e.g. `SqliteStore.layer(...)`, `PgStore.layer(...)`,
 * `MemoryStore.layerMemory`). The store is opened on first use (or `ready()`) and closed by `dispose()`, after the
 * requests in flight have been answered. Each request is answered exactly as `stint serve` answers it: same routes,
 * order of checks, error bodies, headers (`X-Request-Id`, `Idempotent-Replayed`, `Allow`), body limits, `/healthz`,
 * `/readyz`, `/docs` and `/api/v1/openapi.json`, and the same JSON log line.
 *
 * ```ts
 * import { Handler } from "@stint/http"
 * import { SqliteStore } from "@stint/sqlite"
 * const stint = Handler.make(SqliteStore.layer({ filename: "stint.db" }), { prefix: "/time" })
 * expressApp.use(stint.node)                        // or: honoApp.mount("/time", stint.fetch) without `prefix`
 * process.on("SIGTERM", () => stint.dispose())
 * ```
 *
 * @since 0.1.0
 */
export const make = <E>(store: Layer.Layer<Store.Store, E>, options: Options = {}): StintHandler => {
  const managed = ManagedRuntime.make(storeLayer(store, options))
  const writer = sinkOf(options.log)
  const timeout = Duration.decode(options.shutdownTimeout ?? Duration.seconds(30))
  let runner: Pipeline.Runner | undefined
  let starting: Promise<Pipeline.Runner> | undefined
  let closing = false
  let disposed: Promise<void> | undefined
  const start = (): Pipeline.Runner | Promise<Pipeline.Runner> =>
    runner ?? (starting ??= managed.runtime().then((runtime: Runtime.Runtime<Store.Store>) => {
      runner = Pipeline.runner(runtime, { log: writer, observer: options.observer })
      return runner
    }))
  const core: Core = { runner: start, closing: () => closing, writer }
  const dispose = (): Promise<void> =>
    disposed ??= (async () => {
      closing = true
      const current = runner ?? (starting === undefined ? undefined : await starting.catch(() => undefined))
      if (current !== undefined) {
        let timer: ReturnType<typeof setTimeout> | undefined
        const expired = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            current.interruptAll()
            resolve()
          }, Duration.toMillis(timeout))
        })
        await Promise.race([current.whenIdle(), expired])
        clearTimeout(timer)
        await current.whenIdle()
      }
      writer.close()
      await managed.dispose()
    })()
  return {
    ...handlers(core, normalizePrefix(options.prefix)),
    ready: async () => {
      await start()
    },
    dispose
  }
}

/**
 * `make` for Effect users: the handlers in a scope. The store is built in the scope; when the scope closes, in-flight
 * requests finish first (up to `shutdownTimeout`), then the store's resources are released.
 *
 * @since 0.1.0
 */
export const scoped = <E>(
  store: Layer.Layer<Store.Store, E>,
  options: Options = {}
): Effect.Effect<Omit<StintHandler, "dispose" | "ready">, E, Scope.Scope> =>
  Effect.gen(function*() {
    const runtime: Runtime.Runtime<Store.Store> = yield* Layer.toRuntime(storeLayer(store, options))
    const writer = sinkOf(options.log)
    const runner = Pipeline.runner(runtime, { log: writer, observer: options.observer })
    let closing = false
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        closing = true
        await runner.whenIdle()
      }).pipe(
        Effect.timeout(options.shutdownTimeout ?? Duration.seconds(30)),
        Effect.catchAll(() =>
          Effect.promise(() => {
            runner.interruptAll()
            return runner.whenIdle()
          })
        ),
        Effect.ensuring(Effect.sync(() => writer.close()))
      )
    )
    return handlers({ runner: () => runner, closing: () => closing, writer }, normalizePrefix(options.prefix))
  })
