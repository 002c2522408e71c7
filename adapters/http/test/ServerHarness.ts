/**
 * A real Stint server for tests: `Server.layer` on 127.0.0.1 with a free port, over a store given as a parameter
 * (memory, SQLite), loaded with the fixture through the core's `Fixture.load`, its JSON log lines captured. Requests go
 * through `node:http` (so tests control every byte), and every response is checked on the way back: a unique non-empty
 * `X-Request-Id` equal to an error body's `requestId`, no `Retry-After`, and the body validated against the OpenAPI
 * document the server serves.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import { expect } from "@effect/vitest"
import { Fixture, MemoryStore, Settings, type Store } from "@stint/core"
import { type Observer, Server } from "@stint/http"
import { SqliteStore } from "@stint/sqlite"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { mkdtempSync, rmSync } from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as OpenApiValidator from "./OpenApiValidator.js"
import { fixture } from "./ServerFixture.js"

/** A store the tests run on. */
export interface StoreCase {
  readonly name: string
  readonly layer: () => Layer.Layer<Store.Store, unknown>
}

const sqlite: StoreCase = {
  name: "sqlite",
  layer: () =>
    Layer.unwrapScoped(
      Effect.map(
        Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "stint-http-"))),
          (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
        ),
        (dir) => SqliteStore.layer({ filename: join(dir, "stint.db") })
      )
    )
}

/** Every store the HTTP tests run on. */
export const stores: ReadonlyArray<StoreCase> = [{ name: "memory", layer: () => MemoryStore.layerMemory }, sqlite]

/** A request, byte for byte. */
export interface RawRequest {
  readonly method: string
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  /** Sent with a `Content-Length`. */
  readonly body?: string | Buffer
  /** Sent with `Transfer-Encoding: chunked`, one write each. */
  readonly chunks?: ReadonlyArray<Buffer>
}

export interface Reply {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
  readonly requestId: string
  /** The parsed body, typed by the caller: the validator already checked it against the document. */
  readonly body: <A>() => A
}

/** The options of a request to the API. */
export interface ApiOptions {
  readonly key?: string
  readonly idempotencyKey?: string
  readonly json?: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** A JSON log line, as the server prints it. */
export interface LogLine {
  readonly message: string
  readonly logLevel: string
  readonly cause?: string
  readonly annotations: Readonly<Record<string, unknown>>
}

export interface Harness {
  readonly port: number
  readonly send: (request: RawRequest) => Promise<Reply>
  readonly api: (method: string, path: string, options?: ApiOptions) => Promise<Reply>
  /** The id of a fixture key (what the logs show instead of the key). */
  readonly keyIdOf: (key: string) => string
  readonly logs: () => ReadonlyArray<LogLine>
  readonly printed: () => string
  /** Runs an effect against the server's store (admin changes, inspection). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Promise<A>
  /** Closes the server (what SIGTERM does in `stint serve`). */
  readonly close: () => Promise<void>
}

export interface Options {
  /** Policies other than the spec's defaults (a larger rate limit for tests that send many requests). */
  readonly settings?: Partial<Settings.SettingsShape>
  /** Changes the store (fault injection). */
  readonly store?: (layer: Layer.Layer<Store.Store, unknown>) => Layer.Layer<Store.Store, unknown>
  /** Load the fixture. Default: true. */
  readonly fixture?: boolean
  /** More for the server to run with (`Observability.layer`, say). */
  readonly services?: Layer.Layer<never, unknown>
  /** The server's per-request hooks (`Observability.hooks`, say). */
  readonly observer?: Observer.Observer
}

let validator: OpenApiValidator.Validator | undefined
const seenRequestIds = new Set<string>()

const capturingConsole = (lines: Array<string>): Console.Console => {
  const base = Effect.runSync(Console.consoleWith(Effect.succeed))
  return { ...base, unsafe: { ...globalThis.console, log: (...args: ReadonlyArray<unknown>) => lines.push(args.join(" ")) } }
}

/**
 * Writes `bytes` as they are on a connection of its own (an HTTP client would merge or refuse what some tests send)
 * and answers everything received until the connection closes.
 */
export const rawExchange = (port: number, bytes: string): Promise<string> => rawSegments(port, [bytes])

/**
 * `rawExchange` with the bytes written in parts, `gapMillis` apart (so that each part reaches the server as a segment
 * of its own), answering everything received until the connection closes.
 */
export const rawSegments = (port: number, parts: ReadonlyArray<string>, gapMillis = 100): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = Net.connect(port, "127.0.0.1", async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await new Promise((wait) => setTimeout(wait, gapMillis))
        if (!socket.writable) return
        socket.write(part)
      }
    })
    let received = ""
    socket.on("data", (chunk: Buffer) => received += chunk.toString("utf8"))
    socket.on("close", () => resolve(received))
    socket.on("error", reject)
  })

const rawSend = (port: number, agent: Http.Agent, request: RawRequest) =>
  new Promise<{ status: number; headers: Http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const outgoing = Http.request(
      {
        host: "127.0.0.1",
        port,
        agent,
        method: request.method,
        path: request.path,
        headers: {
          // Node's client frames a GET body only when told its length.
          ...(request.body === undefined ? {} : { "content-length": String(Buffer.byteLength(request.body)) }),
          ...request.headers,
          ...(request.chunks === undefined ? {} : { "transfer-encoding": "chunked" })
        }
      },
      (incoming) => {
        const chunks: Array<Buffer> = []
        incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
        incoming.on("error", reject)
        incoming.on("end", () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString("utf8")
          }))
      }
    )
    outgoing.on("error", reject)
    if (request.chunks !== undefined) {
      for (const chunk of request.chunks) outgoing.write(chunk)
      outgoing.end()
    } else {
      outgoing.end(request.body)
    }
  })

/** The checks every response passes. */
const checkReply = (
  request: RawRequest,
  raw: { status: number; headers: Http.IncomingHttpHeaders; text: string }
): Reply => {
  const requestId = raw.headers["x-request-id"]
  if (typeof requestId !== "string" || requestId === "") throw new Error("X-Request-Id is missing")
  if (seenRequestIds.has(requestId)) throw new Error(`X-Request-Id ${requestId} was sent twice`)
  seenRequestIds.add(requestId)
  if (raw.headers["retry-after"] !== undefined) throw new Error("Retry-After was sent")
  // The path as the server routes it: dot segments resolved (RFC 3986), percent-encoding kept.
  const path = new URL(`http://localhost${request.path}`).pathname
  const isJson = (raw.headers["content-type"] ?? "").startsWith("application/json")
  const parsed: unknown = isJson ? JSON.parse(raw.text) : undefined
  if (isJson && path !== "/api/v1/openapi.json") {
    if (validator === undefined) throw new Error("The validator is not ready")
    validator.check(request.method, path, raw.status, raw.headers, parsed)
    if (raw.status >= 400) {
      const echoed = (parsed as { readonly requestId?: unknown }).requestId
      if (echoed !== requestId) throw new Error(`requestId ${String(echoed)} differs from X-Request-Id ${requestId}`)
    }
  }
  return { ...raw, requestId, body: <A>() => parsed as A }
}

/**
 * Starts a server on `store`, runs `test`, and stops the server.
 */
export const withServer = (store: StoreCase, options: Options = {}) => async (test: (harness: Harness) => Promise<void>) => {
  const lines: Array<string> = []
  const storeLayer = options.store === undefined ? store.layer() : options.store(store.layer())
  const runtime = ManagedRuntime.make(
    Server.layer({ host: "127.0.0.1", port: 0, log: (line) => lines.push(line), observer: options.observer }).pipe(
      Layer.provideMerge(storeLayer),
      Layer.provide(Layer.succeed(Settings.Settings, { ...Settings.defaults, ...options.settings })),
      Layer.provide(options.services ?? Layer.empty),
      Layer.provide(Console.setConsole(capturingConsole(lines)))
    )
  )
  const agent = new Http.Agent({ keepAlive: true })
  let closed = false
  try {
    const server = await runtime.runPromise(HttpServer.HttpServer)
    if (server.address._tag !== "TcpAddress") throw new Error("expected a TCP address")
    const port = server.address.port
    const keyIds = new Map<string, string>()
    if (options.fixture !== false) {
      const summary = await runtime.runPromise(Fixture.load(fixture))
      for (const key of summary.apiKeys) keyIds.set(key.key, key.id)
    }
    if (validator === undefined) {
      const served = await rawSend(port, agent, { method: "GET", path: "/api/v1/openapi.json" })
      validator = OpenApiValidator.make(JSON.parse(served.text))
    }
    const send = async (request: RawRequest) => checkReply(request, await rawSend(port, agent, request))
    const harness: Harness = {
      port,
      send,
      api: (method, path, { headers, idempotencyKey, json, key } = {}) =>
        send({
          method,
          path,
          headers: {
            ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
            ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
            ...(json === undefined ? {} : { "content-type": "application/json" }),
            ...headers
          },
          ...(json === undefined ? {} : { body: JSON.stringify(json) })
        }),
      keyIdOf: (key) => {
        const found = keyIds.get(key)
        if (found === undefined) throw new Error("not a fixture key")
        return found
      },
      logs: () => lines.flatMap((line) => line.startsWith("{") ? [JSON.parse(line) as LogLine] : []),
      printed: () => lines.join("\n"),
      run: (effect) => runtime.runPromise(effect),
      close: async () => {
        closed = true
        await runtime.dispose()
      }
    }
    await test(harness)
  } finally {
    agent.destroy()
    if (!closed) await runtime.dispose()
  }
}

/** Asserts the spec's error body, exactly: status, code, a message, `details` (containing `details` if given). */
export const expectError = (
  reply: Reply,
  status: number,
  code: string,
  details?: Readonly<Record<string, unknown>>
): void => {
  expect({ status: reply.status, code: reply.body<ErrorBody>().error?.code }).toEqual({ status, code })
  expect(reply.headers["content-type"]).toBe("application/json")
  const body = reply.body<ErrorBody>()
  expect(Object.keys(body).sort()).toEqual(["error", "requestId"])
  expect(Object.keys(body.error).sort()).toEqual(["code", "details", "message"])
  expect(body.error.message.length).toBeGreaterThan(0)
  expect(typeof body.error.details).toBe("object")
  if (details !== undefined) expect(body.error.details).toMatchObject(details)
  expect(body.requestId).toBe(reply.requestId)
}

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly details: Record<string, unknown> }
  readonly requestId: string
}
