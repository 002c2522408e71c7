/**
 * The embedders' handlers: the same answers as `stint serve` byte for byte (status, headers but the date and request
 * id values, bodies) on one database, the mount prefix (below it the spec's paths; outside it `next()` or the spec's
 * 404), and `dispose()` under load (every request in flight answered, later ones refused, then the store released).
 */
import { FiberRoots, Store } from "@stint/core"
import { Handler, OpenApiDocument } from "@stint/http"
import { SqliteStore } from "@stint/sqlite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { build, serve, type Serving, stintJson, tempDir } from "./CliHarness.js"
import { writeJson } from "./CliFixture.js"
import { fetchServer, type Listening, nodeServer, type Reply, send } from "./HandlerHarness.js"
import { fixture, ids, keys } from "./ServerFixture.js"

const dir = tempDir()
const RATE_LIMIT = 100_000
const settings = { rateLimit: { limit: RATE_LIMIT, windowMillis: 60_000 } }
const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
const json = { "content-type": "application/json" }

let counter = 0
const seededFile = async (): Promise<string> => {
  const filename = join(dir.path, `handler-${++counter}.db`)
  await stintJson(["seed", writeJson(join(dir.path, `fixture-${counter}.json`), fixture), "--database", `sqlite:${filename}`])
  return filename
}

beforeAll(build)
afterAll(dir.remove)

/** What may differ between two answers to the same request: the date, the request id, and for mutations new ids and times. */
const normalized = (reply: Reply, mutation: boolean) => {
  const requestId = String(reply.headers["x-request-id"])
  let text = reply.text.replaceAll(requestId, "<request-id>")
  if (mutation) {
    text = text
      .replace(/"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}"/g, "\"<id>\"")
      .replace(/"\d{4}-\d\d-\d\dT[^"]+"/g, "\"<time>\"")
      .replace(/"(durationSeconds|earningsCents)":\d+/g, "\"$1\":0")
  }
  const headers = Object.entries(reply.headers)
    .filter(([name]) => name !== "date")
    .map(([name, value]) => [name, name === "x-request-id" ? "<request-id>" : value] as const)
    .sort(([a], [b]) => a.localeCompare(b))
  return { status: reply.status, headers, text }
}

interface Case {
  readonly method: string
  readonly path: string
  readonly headers?: Record<string, string>
  readonly body?: string
  readonly mutation?: boolean
}

/** Requests covering every route, every transport outcome and the body rules; `tag` keeps idempotency keys apart. */
const cases = (tag: string): ReadonlyArray<Case> => [
  { method: "GET", path: "/healthz" },
  { method: "GET", path: "/readyz" },
  { method: "GET", path: "/api/v1/openapi.json" },
  { method: "GET", path: "/docs" },
  { method: "GET", path: "/nowhere/at/all?x=1" },
  { method: "DELETE", path: "/api/v1/timer" },
  { method: "GET", path: "/api/v1/clients" },
  { method: "GET", path: "/api/v1/clients", headers: bearer(`${keys.member}zz`) },
  { method: "GET", path: "/api/v1/clients", headers: bearer(keys.noScope) },
  { method: "GET", path: "/api/v1/clients", headers: bearer(keys.member) },
  { method: "GET", path: `/api/v1/projects?clientId=${ids.globex}`, headers: bearer(keys.member) },
  { method: "GET", path: "/api/v1/projects?clientId=nope", headers: bearer(keys.member) },
  { method: "GET", path: "/api/v1/time-entries?limit=2", headers: bearer(keys.member) },
  { method: "GET", path: "/api/v1/time-entries?limit=2&limit=3", headers: bearer(keys.member) },
  { method: "GET", path: "/api/v1/timer", headers: bearer(keys.owner) },
  { method: "POST", path: "/api/v1/projects", headers: { ...bearer(keys.owner), "content-type": "text/plain" }, body: "x" },
  { method: "POST", path: "/api/v1/projects", headers: { ...bearer(keys.member), ...json }, body: "{}" },
  { method: "POST", path: "/api/v1/projects", headers: { ...bearer(keys.owner), ...json, "content-encoding": "gzip" }, body: "{}" },
  {
    method: "POST",
    path: "/api/v1/timers/start",
    headers: { ...bearer(keys.owner), ...json, "idempotency-key": `big-${tag}` },
    body: JSON.stringify({ projectId: ids.website, note: "x".repeat(70 * 1024) })
  },
  { method: "POST", path: "/api/v1/timers/start", headers: { ...bearer(keys.owner), ...json, "idempotency-key": `bad-${tag}` }, body: "{" },
  { method: "POST", path: "/api/v1/timers/start", headers: { ...bearer(keys.owner), ...json }, body: "{}" },
  {
    method: "POST",
    path: "/api/v1/timers/start",
    headers: { ...bearer(keys.owner), ...json, "idempotency-key": `start-${tag}` },
    body: JSON.stringify({ projectId: ids.website }),
    mutation: true
  },
  {
    method: "POST",
    path: "/api/v1/timers/start",
    headers: { ...bearer(keys.owner), ...json, "idempotency-key": `start-${tag}` },
    body: JSON.stringify({ projectId: ids.website }),
    mutation: true
  },
  {
    method: "POST",
    path: "/api/v1/timers/start",
    headers: { ...bearer(keys.owner), ...json, "idempotency-key": `start-${tag}` },
    body: JSON.stringify({ projectId: ids.apps })
  },
  { method: "POST", path: `/api/v1/timers/${ids.voided}/stop`, headers: { ...bearer(keys.member), "idempotency-key": `v-${tag}` } },
  { method: "POST", path: "/api/v1/timers/not-an-id/stop", headers: { ...bearer(keys.member), "idempotency-key": `n-${tag}` } }
]

/** Runs the cases, then stops the timer they started, so that the next target starts from the same state. */
const runCases = async (url: string, tag: string) => {
  const replies: Array<ReturnType<typeof normalized>> = []
  let started: string | undefined
  for (const request of cases(tag)) {
    const reply = await send(url, request)
    if (request.mutation === true && started === undefined) started = (JSON.parse(reply.text) as { timer: { id: string } }).timer.id
    replies.push(normalized(reply, request.mutation === true))
  }
  const stop = await send(url, {
    method: "POST",
    path: `/api/v1/timers/${started}/stop`,
    headers: { ...bearer(keys.owner), "idempotency-key": `stop-${tag}` }
  })
  expect(stop.status).toBe(200)
  return replies
}

describe("the handlers answer as stint serve does", () => {
  let served: Serving
  let handler: Handler.StintHandler
  let viaNode: Listening
  let viaFetch: Listening
  const logs: Array<string> = []

  beforeAll(async () => {
    const filename = await seededFile()
    served = await serve(["--port", "0", "--database", `sqlite:${filename}`], {
      env: { STINT_RATE_LIMIT: String(RATE_LIMIT) }
    })
    handler = Handler.make(SqliteStore.layer({ filename }), { settings, log: (line) => logs.push(line) })
    viaNode = await nodeServer(handler.node)
    viaFetch = await fetchServer(handler.fetch)
  }, 60_000)

  afterAll(async () => {
    served.kill()
    await viaNode.close()
    await viaFetch.close()
    await handler.dispose()
  })

  it("the same status, headers and bodies on one database, through the Node and the Web handler", async () => {
    const expected = await runCases(served.url, "serve")
    const node = await runCases(viaNode.url, "node")
    const web = await runCases(viaFetch.url, "web")
    expect(expected.map((reply) => reply.status)).toContain(200)
    for (const [i, reply] of expected.entries()) {
      expect({ case: i, ...node[i] }).toEqual({ case: i, ...reply })
      expect({ case: i, ...web[i] }).toEqual({ case: i, ...reply })
    }
    // One JSON log line per request, in `stint serve`'s shape.
    const lines = logs.map((line) => JSON.parse(line) as { message: string; annotations: Record<string, unknown> })
    // (Each run ends with the stop of its timer.)
    expect(lines.length).toBe(2 * (cases("").length + 1))
    expect(lines.every((line) => line.message === "request")).toBe(true)
    expect(served.lines.filter((line) => line.startsWith("{")).length).toBeGreaterThan(0)
    // The runner keeps effect's root fibers (a request's fiber is one) in a list, not in effect's `Set`.
    expect(FiberRoots.installed()).toBe(true)
  })
})

describe("a mount prefix", () => {
  let handler: Handler.StintHandler
  let viaNode: Listening
  let viaFetch: Listening

  beforeAll(async () => {
    handler = Handler.make(SqliteStore.layer({ filename: await seededFile() }), { prefix: "/time/", log: false })
    viaNode = await nodeServer(handler.node, (_, response) => {
      response.writeHead(200, { "content-type": "text/plain" })
      response.end("the app's own route")
    })
    viaFetch = await fetchServer(handler.fetch)
  }, 60_000)

  afterAll(async () => {
    await viaNode.close()
    await viaFetch.close()
    await handler.dispose()
  })

  it("serves the spec's paths below it, with the spec's 404 and 405 for what is not there", async () => {
    for (const url of [viaNode.url, viaFetch.url]) {
      const clients = await send(url, { method: "GET", path: "/time/api/v1/clients", headers: bearer(keys.member) })
      expect(clients.status).toBe(200)
      expect(JSON.parse(clients.text)).toEqual({ clients: [expect.objectContaining({ id: ids.globex })], canCreateProjects: false })
      expect((await send(url, { method: "GET", path: "/time/healthz?probe=1" })).text).toBe("{\"status\":\"ok\"}")
      const missing = await send(url, { method: "GET", path: "/time/api/v1/nope" })
      expect(missing.status).toBe(404)
      // Messages name the path as the client sent it, the prefix included.
      expect(JSON.parse(missing.text)).toMatchObject({ error: { code: "NOT_FOUND", message: "No resource at /time/api/v1/nope." } })
      const wrongMethod = await send(url, { method: "PUT", path: "/time/api/v1/timer" })
      expect([wrongMethod.status, wrongMethod.headers["allow"]]).toEqual([405, "GET"])
      expect(JSON.parse(wrongMethod.text)).toMatchObject({
        error: { code: "METHOD_NOT_ALLOWED", message: "/time/api/v1/timer does not support PUT; it supports GET." }
      })
      // The spec's paths without the prefix are not the API's.
      expect((await send(url, { method: "GET", path: "/api/v1/clients", headers: bearer(keys.member) })).text)
        .not.toContain("\"clients\":")
    }
  })

  it("names it in the OpenAPI document (its server; the paths stay the spec's) and links the document from /docs relatively", async () => {
    const atRoot = JSON.parse(OpenApiDocument.json) as { servers: ReadonlyArray<{ url: string }>; paths: object }
    expect(atRoot.servers.map((server) => server.url)).toEqual(["/"])
    for (const url of [viaNode.url, viaFetch.url]) {
      const reply = await send(url, { method: "GET", path: "/time/api/v1/openapi.json" })
      expect(reply.status).toBe(200)
      const document = JSON.parse(reply.text) as { servers: ReadonlyArray<{ url: string }>; paths: object }
      expect(document.servers.map((server) => server.url)).toEqual(["/time"])
      expect(Object.keys(document.paths)).toEqual(Object.keys(atRoot.paths))
      // The page's link, resolved against the page's own address, is the document under the prefix.
      const page = await send(url, { method: "GET", path: "/time/docs" })
      const link = /Machine-readable: <a href="([^"]+)"/.exec(page.text)?.[1]
      expect(new URL(link ?? "", `${url}/time/docs`).pathname).toBe("/time/api/v1/openapi.json")
    }
  })

  it("decides what is below it as it routes: dot segments resolved, segments percent-decoded, absolute-form targets", async () => {
    const origin = new URL(viaNode.url)
    const below = ["/time/api/v1/%74imer", "/%74ime/api/v1/timer", "/x/../time/api/v1/timer", `http://${origin.host}/time/api/v1/timer`]
    for (const path of below) {
      const reply = await send(viaNode.url, { method: "GET", path, headers: bearer(keys.member) })
      expect([path, reply.status, reply.headers["x-request-id"] !== undefined], reply.text).toEqual([path, 200, true])
      expect(JSON.parse(reply.text)).toEqual({ timer: null })
    }
    // Resolved to a path outside it: the app's own.
    for (const path of ["/time/../about", "/time/%2e%2e/about", `http://${origin.host}/about`]) {
      const own = await send(viaNode.url, { method: "GET", path })
      expect([path, own.status, own.text]).toEqual([path, 200, "the app's own route"])
    }
  })

  it("passes what is outside it to next() in the Node handler; the Web handler answers the spec's 404", async () => {
    for (const path of ["/", "/about", "/timex/healthz", "/api/v1/clients"]) {
      const own = await send(viaNode.url, { method: "GET", path })
      expect([own.status, own.text]).toEqual([200, "the app's own route"])
      const web = await send(viaFetch.url, { method: "GET", path })
      expect(web.status).toBe(404)
      const body = JSON.parse(web.text) as { error: { code: string; details: object }; requestId: string }
      expect(body).toEqual({ error: { code: "NOT_FOUND", message: expect.any(String), details: {} }, requestId: web.headers["x-request-id"] })
    }
  })

  it("without next, the Node handler answers the spec's 404 outside it", async () => {
    const bare = await nodeServer(handler.node)
    try {
      const reply = await send(bare.url, { method: "GET", path: "/elsewhere" })
      expect(reply.status).toBe(404)
      expect(JSON.parse(reply.text)).toMatchObject({ error: { code: "NOT_FOUND" }, requestId: reply.headers["x-request-id"] })
    } finally {
      await bare.close()
    }
  })
})

/**
 * A store whose active-timer reads take 300 ms, recording when each finishes and when the store is released. It reads
 * nothing along with the key (SQLite would read the active entry there), so every timer read is `findActiveEntry`.
 */
const slowStore = (filename: string, events: Array<string>) =>
  Layer.scoped(
    Store.Store,
    Effect.acquireRelease(
      Effect.map(Store.Store, (store): Store.Store["Type"] => ({
        ...store,
        authenticate: (digest, now, policy) => store.authenticate(digest, now, policy),
        findActiveEntry: (...args) =>
          Effect.sync(() => events.push("read started")).pipe(
            Effect.zipRight(Effect.delay(store.findActiveEntry(...args), "300 millis")),
            Effect.tap(() => Effect.sync(() => events.push("read finished")))
          )
      })),
      () => Effect.sync(() => events.push("store released"))
    )
  ).pipe(Layer.provide(SqliteStore.layer({ filename })))

/** Completes once `count` reads are in flight. */
const readsStarted = async (events: ReadonlyArray<string>, count: number): Promise<void> => {
  while (events.filter((event) => event === "read started").length < count) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe("dispose()", () => {
  it("under load: every request in flight is answered, later ones get 503 NOT_READY, then the store is released", async () => {
    const events: Array<string> = []
    const handler = Handler.make(slowStore(await seededFile(), events), { settings, log: false })
    const server = await nodeServer(handler.node)
    try {
      await handler.ready()
      const inFlight = Array.from({ length: 40 }, (_, i) =>
        send(server.url, { method: "GET", path: "/api/v1/timer", headers: bearer(i % 2 === 0 ? keys.member : keys.owner) }))
      await readsStarted(events, 40)
      const disposed = handler.dispose().then(() => events.push("disposed"))
      await new Promise((resolve) => setTimeout(resolve, 20))
      const late = await send(server.url, { method: "GET", path: "/api/v1/timer", headers: bearer(keys.member) })
      expect(late.status).toBe(503)
      expect(JSON.parse(late.text)).toMatchObject({ error: { code: "NOT_READY" }, requestId: late.headers["x-request-id"] })
      const replies = await Promise.all(inFlight)
      await disposed
      expect(replies.map((reply) => reply.status)).toEqual(Array.from({ length: 40 }, () => 200))
      expect(events.filter((event) => event !== "read started"))
        .toEqual([...Array.from({ length: 40 }, () => "read finished"), "store released", "disposed"])
      // Disposing again is a no-op.
      await handler.dispose()
    } finally {
      await server.close()
    }
  })

  it("the scoped variant finishes in-flight requests when its scope closes, then releases the store", async () => {
    const events: Array<string> = []
    const filename = await seededFile()
    let server: Listening | undefined
    const replies = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const handler = yield* Handler.scoped(slowStore(filename, events), { settings, log: false })
      server = yield* Effect.promise(() => nodeServer(handler.node))
      const url = server.url
      const replies = Array.from({ length: 10 }, () =>
        send(url, { method: "GET", path: "/api/v1/timer", headers: bearer(keys.member) }))
      yield* Effect.promise(() => readsStarted(events, 10))
      return replies
    })))
    events.push("scope closed")
    expect((await Promise.all(replies)).map((reply) => reply.status)).toEqual(Array.from({ length: 10 }, () => 200))
    await server?.close()
    expect(events.filter((event) => event !== "read started"))
      .toEqual([...Array.from({ length: 10 }, () => "read finished"), "store released", "scope closed"])
  })
})

describe("a store that cannot open", () => {
  it("answers 500 INTERNAL_ERROR in the error shape; ready() rejects", async () => {
    const broken = Layer.effect(Store.Store, Effect.dieMessage("cannot open"))
    const logs: Array<string> = []
    const handler = Handler.make(broken, { log: (line) => logs.push(line) })
    await expect(handler.ready()).rejects.toBeDefined()
    const reply = await handler.fetch(new Request("http://embedded/healthz"))
    expect(reply.status).toBe(500)
    expect(await reply.json()).toMatchObject({ error: { code: "INTERNAL_ERROR" }, requestId: reply.headers.get("x-request-id") })
    expect(reply.headers.get("cache-control")).toBe("no-store")
    expect(logs.some((line) => line.includes("cannot open"))).toBe(true)
    await handler.dispose()
  })
})
