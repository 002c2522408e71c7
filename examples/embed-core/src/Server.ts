/**
 * A team's own Node `http` server with Stint's core inside: the server routes requests and reads raw input, the core
 * (`Operations.*`) decides everything else, over whatever `Store` layer the server is given.
 *
 * @since 0.1.0
 */
import { type Errors, FiberRoots, Operations, Request, type Store } from "@stint/core"
import * as Cause from "effect/Cause"
import type * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

type Failure = { readonly code: string; readonly message: string; readonly details?: unknown }
type Operation = (request: Request.ApiRequest) => Effect.Effect<unknown, Failure, Store.Store>

interface Route {
  readonly method: "GET" | "POST"
  /** The path, with at most one `:param`. */
  readonly path: string
  readonly operation: Operation
  readonly created?: boolean
  /** Start and stop answer a `TimerMutation`: exact JSON bytes and whether they were replayed. */
  readonly mutation?: boolean
}

const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/api/v1/clients", operation: Operations.listClients },
  { method: "GET", path: "/api/v1/projects", operation: Operations.listProjects },
  { method: "POST", path: "/api/v1/projects", operation: Operations.createProject, created: true },
  { method: "GET", path: "/api/v1/timer", operation: Operations.getActiveTimer },
  { method: "POST", path: "/api/v1/timers/start", operation: Operations.startTimer, mutation: true },
  { method: "POST", path: "/api/v1/timers/:timerId/stop", operation: Operations.stopTimer, mutation: true },
  { method: "GET", path: "/api/v1/time-entries", operation: Operations.listTimeEntries }
]

/** The HTTP status of each error code the core can answer (the core knows codes, the transport knows statuses). */
const statusOf: Readonly<Record<string, number>> = {
  INVALID_REQUEST: 400,
  INVALID_CURSOR: 400,
  IDEMPOTENCY_KEY_REQUIRED: 400,
  INVALID_API_KEY: 401,
  INSUFFICIENT_SCOPE: 403,
  FORBIDDEN: 403,
  RESOURCE_NOT_FOUND: 404,
  PROJECT_NOT_FOUND: 404,
  TIMER_NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409,
  TIMER_VOIDED: 409,
  TIMER_ALREADY_STOPPED: 409,
  API_KEY_RATE_LIMITED: 429
}

/** The route's path parameters when `pathname` matches its path, else `undefined`. */
const match = (route: Route, pathname: string): Record<string, string> | undefined => {
  const want = route.path.split("/")
  const got = pathname.split("/")
  if (want.length !== got.length) return undefined
  const params: Record<string, string> = {}
  for (const [i, part] of want.entries()) {
    const value = got[i] ?? ""
    if (part.startsWith(":")) params[part.slice(1)] = safeDecode(value)
    else if (part !== value) return undefined
  }
  return params
}

const safeDecode = (value: string): string => {
  try {
    return decodeURIComponent(value)
  } catch {
    return value // not percent-decodable: the core refuses it as it is
  }
}

const MAX_BODY_BYTES = 64 * 1024

/** The body as the core wants it: `undefined` when empty, parsed JSON, or why it could not be read. */
const readBody = async (req: IncomingMessage): Promise<Request.Body | undefined> => {
  const chunks: Array<Buffer> = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size <= MAX_BODY_BYTES) chunks.push(chunk) // past the limit, the rest is read and dropped
  }
  if (size === 0) return undefined
  if (size > MAX_BODY_BYTES) return Request.unreadable("The body is over 64 KiB.")
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase()
  if (type !== "application/json") return Request.unreadable("The body must be sent as application/json.")
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks))
  } catch {
    return Request.unreadable("The body is not valid UTF-8.")
  }
  // Parsed as the core wants it: a member name repeated in an object is refused, not read as its last value.
  return Request.parseJson(text)
}
type Headers = Record<string, string>

const send = (res: ServerResponse, requestId: string, status: number, text: string, headers: Headers = {}) =>
  res.writeHead(status, { "content-type": "application/json", "x-request-id": requestId, ...headers }).end(text)

const sendError = (
  res: ServerResponse,
  requestId: string,
  status: number,
  error: Failure,
  headers: Headers = {}
) => {
  // The core's errors are class instances whose `code` is a getter: copy the three fields, never spread.
  const body = { error: { code: error.code, message: error.message, details: error.details ?? {} }, requestId }
  send(res, requestId, status, JSON.stringify(body), headers)
}

/**
 * A running embedded server.
 *
 * @since 0.1.0
 */
export interface Embedded {
  /** `http://HOST:PORT`. */
  readonly url: string
  /**
   * Runs an Effect of the core on the server's store: admin operations (`Admin.*`), or `Fixture.load(fixture)` to
   * create a workspace and an API key.
   */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Promise<A>
  /** Stops accepting connections, waits for requests in flight, then releases the store. */
  readonly close: () => Promise<void>
}

/**
 * Starts the server on `port` (0 picks a free one) over `store`.
 *
 * @since 0.1.0
 */
export const start = async (options: {
  readonly store: Layer.Layer<Store.Store, Errors.StoreError>
  readonly port?: number | undefined
  readonly host?: string | undefined
}): Promise<Embedded> => {
  // Each request below runs as a root fiber: keep them in a list, not in effect's `Set`, which holds finished ones
  // into V8's old generation (see FiberRoots).
  FiberRoots.install()
  const runtime = ManagedRuntime.make(options.store)
  await runtime.runtime() // open the store now: a bad database fails here, not on the first request

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const requestId = randomUUID()
    const url = new URL(`http://localhost${req.url ?? "/"}`) // never `new URL(req.url, base)`: "//x/…" names a host
    const candidates = routes.flatMap((route) => {
      const path = match(route, url.pathname)
      return path === undefined ? [] : [{ route, path }]
    })
    const found = candidates.find(({ route }) => route.method === req.method)
    if (found === undefined) {
      if (candidates.length === 0) {
        return sendError(res, requestId, 404, { code: "NOT_FOUND", message: "No such path." })
      }
      const allow = candidates.map(({ route }) => route.method).join(", ")
      return sendError(res, requestId, 405, { code: "METHOD_NOT_ALLOWED", message: "Method not allowed." }, { allow })
    }
    const { path, route } = found
    const header = (name: string) => {
      const value = req.headers[name]
      return Array.isArray(value) ? value.join(", ") : value
    }
    const request: Request.ApiRequest = {
      authorization: header("authorization"),
      idempotencyKey: header("idempotency-key"),
      query: [...url.searchParams],
      path,
      body: req.method === "POST" ? await readBody(req) : undefined
    }
    const exit = await runtime.runPromiseExit(route.operation(request))
    if (Exit.isSuccess(exit)) {
      if (route.mutation === true) {
        const mutation = exit.value as Operations.TimerMutation
        return send(res, requestId, 200, mutation.json, mutation.replayed ? { "idempotent-replayed": "true" } : {})
      }
      return send(res, requestId, route.created === true ? 201 : 200, JSON.stringify(exit.value))
    }
    const failure = Cause.failureOption(exit.cause)
    const status = Option.isSome(failure) ? statusOf[failure.value.code] : undefined
    if (Option.isSome(failure) && status !== undefined) return sendError(res, requestId, status, failure.value)
    console.error(requestId, Cause.pretty(exit.cause)) // a StoreError or a defect: log it, answer without details
    return sendError(res, requestId, 500, { code: "INTERNAL_ERROR", message: "Internal error." })
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(error)
      if (!res.headersSent) sendError(res, randomUUID(), 500, { code: "INTERNAL_ERROR", message: "Internal error." })
    })
  })
  const host = options.host ?? "127.0.0.1"
  // A port in use comes as an `error` event: reject with it (and close the store), rather than crash the process.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject)
      resolve()
    })
  }).catch(async (error: unknown) => {
    await runtime.dispose()
    throw error
  })
  const { port } = server.address() as AddressInfo // listening on TCP, so the address is an AddressInfo
  return {
    url: `http://${host}:${port}`,
    run: (effect) => runtime.runPromise(effect),
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()))
        server.closeIdleConnections()
      })
      await runtime.dispose()
    }
  }
}
