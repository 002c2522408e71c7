/**
 * The server as an operator sees it: `/healthz`, `/readyz` (and its 503), server faults (500 with nothing internal in
 * the response and the cause in the log), one JSON log line per request, unparseable requests, the served OpenAPI
 * document and `/docs`, graceful shutdown, and `Server.app` embedded elsewhere.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import { describe, expect, it } from "@effect/vitest"
import { Errors, Fixture, MemoryStore, Store } from "@stint/core"
import { ErrorResponses, OpenApiDocument, Server } from "@stint/http"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Http from "node:http"
import * as Net from "node:net"
import { fixture, ids, keys } from "./ServerFixture.js"
import { expectError, type Harness, type Options, rawExchange, rawSegments, stores, withServer } from "./ServerHarness.js"

type StoreShape = Store.Store["Type"]

/** Fault injection: the store with some of its methods replaced. */
const faulty = (change: (store: StoreShape) => Partial<StoreShape>) => (layer: Layer.Layer<Store.Store, unknown>) =>
  Layer.effect(Store.Store, Effect.map(Store.Store, (store): StoreShape => ({ ...store, ...change(store) }))).pipe(
    Layer.provide(layer)
  )

const SECRET = "SQLITE_CORRUPT in /var/lib/secret.db"

/** Every answer held back by `delay` (an observer's wrapper): a request still runs when what follows it arrives. */
const heldBack = (delay: Duration.DurationInput): Options => ({
  observer: { request: (_arrived, self) => Effect.zipRight(Effect.sleep(delay), self) }
})

const lineOf = (h: Harness, requestId: string) => {
  const found = h.logs().filter((line) => line.annotations["requestId"] === requestId)
  expect(found.length).toBe(1)
  return found[0] as (typeof found)[number]
}

for (const store of stores) {
  describe(`health and faults (${store.name})`, () => {
    it("/healthz and /readyz answer without authentication", () =>
      withServer(store)(async (h) => {
        const health = await h.send({ method: "GET", path: "/healthz" })
        expect([health.status, health.text]).toEqual([200, "{\"status\":\"ok\"}"])
        const ready = await h.send({ method: "GET", path: "/readyz" })
        expect([ready.status, ready.text]).toEqual([200, "{\"status\":\"ready\"}"])
        expect(ready.headers["content-type"]).toBe("application/json")
      }))

    it("/readyz is 503 NOT_READY in the error shape when Store.ping fails; the cause is logged, not sent", () =>
      withServer(store, { store: faulty(() => ({ ping: Effect.fail(new Errors.StoreError({ message: SECRET })) })) })(
        async (h) => {
          expect((await h.send({ method: "GET", path: "/healthz" })).status).toBe(200)
          const ready = await h.send({ method: "GET", path: "/readyz" })
          expectError(ready, 503, "NOT_READY")
          expect(ready.text).not.toContain("SQLITE")
          const line = lineOf(h, ready.requestId)
          expect(line.logLevel).toBe("ERROR")
          expect(line.cause).toContain(SECRET)
        }
      ))

    it("a StoreError is 500 INTERNAL_ERROR with only the request id; the log line carries the cause", () =>
      withServer(store, {
        store: faulty(() => ({ listClients: () => Effect.fail(new Errors.StoreError({ message: SECRET })) }))
      })(async (h) => {
        const reply = await h.api("GET", "/api/v1/clients", { key: keys.member })
        expectError(reply, 500, "INTERNAL_ERROR")
        expect(reply.body()).toEqual({
          error: { code: "INTERNAL_ERROR", message: ErrorResponses.INTERNAL_MESSAGE, details: {} },
          requestId: reply.requestId
        })
        const line = lineOf(h, reply.requestId)
        expect(line.logLevel).toBe("ERROR")
        expect(line.annotations).toMatchObject({ status: 500, route: "/api/v1/clients", keyId: h.keyIdOf(keys.member) })
        expect(line.cause).toContain(SECRET)
      }))

    it("a defect is 500 INTERNAL_ERROR without its message or stack; the log line carries it", () =>
      withServer(store, {
        store: faulty((store) => ({
          // Read nothing along with the key (SQLite would read the active entry there), so the timer is read here.
          authenticate: (digest, now, policy) => store.authenticate(digest, now, policy),
          findActiveEntry: () => Effect.die(new Error("kaboom in secret module")),
          withTimerTransaction: () => Effect.die(new TypeError("cannot read secret of undefined")),
          // A store that authenticates inside the timer transaction (SQLite does) starts timers there.
          authenticateInTimerTransaction: () => Effect.die(new TypeError("cannot read secret of undefined"))
        }))
      })(async (h) => {
        const timer = await h.api("GET", "/api/v1/timer", { key: keys.member })
        expectError(timer, 500, "INTERNAL_ERROR")
        const start = await h.api("POST", "/api/v1/timers/start", { key: keys.member, idempotencyKey: "d", json: { projectId: ids.website } })
        expectError(start, 500, "INTERNAL_ERROR")
        for (const reply of [timer, start]) {
          expect(reply.text).not.toMatch(/secret|kaboom|at .*\.ts/)
          expect(lineOf(h, reply.requestId).cause).toMatch(/kaboom|cannot read secret/)
        }
      }))

    it("every operation answers 500 when the key lookup fails", () =>
      withServer(store, {
        store: faulty(() => ({
          authenticate: () => Effect.fail(new Errors.StoreError({ message: SECRET })),
          authenticateInTimerTransaction: () => Effect.fail(new Errors.StoreError({ message: SECRET }))
        }))
      })(async (h) => {
        const calls = [
          h.api("GET", "/api/v1/clients", { key: keys.member }),
          h.api("GET", `/api/v1/projects?clientId=${ids.globex}`, { key: keys.member }),
          h.api("POST", "/api/v1/projects", { key: keys.owner, json: { clientId: ids.globex, name: "P" } }),
          h.api("GET", "/api/v1/timer", { key: keys.member }),
          h.api("POST", "/api/v1/timers/start", { key: keys.member, idempotencyKey: "a", json: { projectId: ids.website } }),
          h.api("POST", `/api/v1/timers/${ids.completed}/stop`, { key: keys.member, idempotencyKey: "b" }),
          h.api("GET", "/api/v1/time-entries", { key: keys.member })
        ]
        for (const reply of await Promise.all(calls)) expectError(reply, 500, "INTERNAL_ERROR")
      }))
  })

  describe(`logs (${store.name})`, () => {
    it("one JSON line per request: request id, method, route template, status, duration, key id; never the key", () =>
      withServer(store)(async (h) => {
        const replies = [
          await h.api("GET", "/api/v1/clients", { key: keys.member }),
          await h.api("POST", `/api/v1/timers/${ids.voided}/stop`, { key: keys.member, idempotencyKey: "x" }),
          await h.api("GET", "/api/v1/clients", { key: keys.noScope }),
          await h.api("GET", "/api/v1/clients", { key: `${keys.member}zz` }),
          await h.send({ method: "GET", path: "/nowhere" }),
          await h.send({ method: "DELETE", path: "/api/v1/timer" }),
          await h.send({ method: "GET", path: "/healthz" })
        ]
        const expected = [
          { method: "GET", route: "/api/v1/clients", status: 200, keyId: h.keyIdOf(keys.member) },
          { method: "POST", route: "/api/v1/timers/:timerId/stop", status: 409, keyId: h.keyIdOf(keys.member), code: "TIMER_VOIDED" },
          { method: "GET", route: "/api/v1/clients", status: 403, keyId: h.keyIdOf(keys.noScope), code: "INSUFFICIENT_SCOPE" },
          { method: "GET", route: "/api/v1/clients", status: 401, keyId: null, code: "INVALID_API_KEY" },
          { method: "GET", route: null, status: 404, keyId: null, code: "NOT_FOUND" },
          { method: "DELETE", route: "/api/v1/timer", status: 405, keyId: null, code: "METHOD_NOT_ALLOWED" },
          { method: "GET", route: "/healthz", status: 200, keyId: null }
        ]
        const requestLines = h.logs().filter((line) => line.message === "request")
        expect(requestLines.length).toBe(replies.length)
        for (const [i, reply] of replies.entries()) {
          const line = lineOf(h, reply.requestId)
          expect(line.annotations).toEqual({ requestId: reply.requestId, durationMs: expect.any(Number), ...expected[i] })
          expect(line.logLevel).toBe("INFO")
          expect(line.annotations["durationMs"]).toBeGreaterThanOrEqual(0)
        }
        expect(h.printed()).not.toMatch(/stint_/)
      }))

    it("every X-Request-Id is different", () =>
      withServer(store)(async (h) => {
        const replies = await Promise.all(Array.from({ length: 60 }, (_, i) =>
          i % 2 === 0 ? h.send({ method: "GET", path: "/healthz" }) : h.api("GET", "/api/v1/timer", { key: keys.owner })))
        expect(new Set(replies.map((r) => r.requestId)).size).toBe(60)
      }))
  })

  describe(`the edges of HTTP (${store.name})`, () => {
    it("a request Node cannot parse is 400 INVALID_REQUEST in the error shape, with X-Request-Id", () =>
      withServer(store)(async (h) => {
        const raw = await rawExchange(h.port, "GET /api/v1/clients HTTP/1.1\r\nHost: x\r\nBroken header\r\n\r\n")
        const [head = "", body = ""] = raw.split("\r\n\r\n")
        expect(head).toMatch(/^HTTP\/1\.1 400 /)
        const requestId = /x-request-id: (.+)/i.exec(head)?.[1]
        expect(JSON.parse(body)).toEqual({
          error: { code: "INVALID_REQUEST", message: expect.any(String), details: {} },
          requestId
        })
        expect(h.logs().some((line) => line.annotations["requestId"] === requestId)).toBe(true)
      }))

    it("a method Node's parser does not know is routed from its request line: 405 with Allow, or 404", () =>
      withServer(store)(async (h) => {
        // HTTP's methods are any token, case-sensitive; Node's parser refuses all but its own list before the server
        // sees the request. The route check (the first of the order) needs only the request line.
        const cases = [
          { line: "FOO /api/v1/clients", status: 405, code: "METHOD_NOT_ALLOWED", allow: "GET", route: "/api/v1/clients" },
          { line: "get /api/v1/timer", status: 405, code: "METHOD_NOT_ALLOWED", allow: "GET", route: "/api/v1/timer" },
          {
            line: `BREW /api/v1/timers/${ids.website}/stop`,
            status: 405,
            code: "METHOD_NOT_ALLOWED",
            allow: "POST",
            route: "/api/v1/timers/:timerId/stop"
          },
          { line: "BREW /nope", status: 404, code: "NOT_FOUND", allow: undefined, route: null }
        ]
        for (const { allow, code, line, route, status } of cases) {
          const raw = await rawExchange(h.port, `${line} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.owner}\r\n\r\n`)
          const [head = "", body = ""] = raw.split("\r\n\r\n")
          expect(head).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
          expect(/\r\nallow: (.+)/i.exec(head)?.[1]).toBe(allow)
          expect(head).toMatch(/\r\nconnection: close(\r\n|$)/i)
          const requestId = /x-request-id: (.+)/i.exec(head)?.[1]
          expect(JSON.parse(body)).toEqual({ error: { code, message: expect.any(String), details: expect.anything() }, requestId })
          const logged = h.logs().find((entry) => entry.annotations["requestId"] === requestId)
          expect(logged?.annotations).toMatchObject({ method: line.split(" ")[0], route, status, keyId: null, code })
        }
        // A request line that is not one (a method with a character no token has) stays unparseable.
        const raw = await rawExchange(h.port, "F(O /api/v1/clients HTTP/1.1\r\nHost: x\r\n\r\n")
        expect(raw).toMatch(/^HTTP\/1\.1 400 /)
        expect(raw).toContain(`"code":"INVALID_REQUEST"`)
        // The line first, its headers in a later segment (after the answer): one answer, the 405.
        const split = await rawSegments(h.port, ["FOO /api/v1/clients HTTP/1.1\r\n", "Host: x\r\n\r\n"])
        expect(split.match(/HTTP\/1\.1 /g)).toHaveLength(1)
        expect(split).toMatch(/^HTTP\/1\.1 405 /)
      }))

    it("an unknown method's headers arriving while its answer is pending get no 400 of their own", () =>
      // Every answer is held back 200 ms (an observer's wrapper), so the headers arrive first and the parser fails on
      // them again: that second failure must not answer the connection before the routes do.
      withServer(store, heldBack("200 millis"))(
        async (h) => {
          const split = await rawSegments(h.port, ["FOO /api/v1/clients HTTP/1.1\r\n", "Host: x\r\n\r\n"], 20)
          expect(split.match(/HTTP\/1\.1 /g)).toHaveLength(1)
          expect(split).toMatch(/^HTTP\/1\.1 405 /)
        }
      ))

    it("an observer's fields end the request's log line, escaped, after the line's own annotations", () =>
      // Any observer's fields (a plain record), not only `Observability`'s ids (which write themselves in).
      withServer(store, {
        observer: { completed: () => Effect.succeed({ tenant: "acme", "quote\"d": "a line\nbreak" }) }
      })(async (h) => {
        const reply = await h.api("GET", "/api/v1/clients", { key: keys.member })
        expect(reply.status).toBe(200)
        const line = lineOf(h, reply.requestId)
        expect(Object.keys(line.annotations).slice(-2)).toEqual(["tenant", "quote\"d"])
        expect(line.annotations).toMatchObject({ status: 200, tenant: "acme", "quote\"d": "a line\nbreak" })
      }))

    it("an unknown method later on a connection keeps the 400: the bytes Node failed on may not be its line", () =>
      withServer(store)(async (h) => {
        // The chunk Node fails on starts with the end of a body it is discarding (a request answered before its body
        // came): a request line inside that body must not be taken for the failing request's.
        const raw = await rawSegments(h.port, [
          "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 36\r\n\r\n",
          "FOO /api/v1/clients HTTP/1.1\r\nX: 123" + "BAR /nothing HTTP/1.1\r\nHost: x\r\n\r\n"
        ])
        const answers = raw.match(/HTTP\/1\.1 \d+/g)
        expect(answers).toEqual(["HTTP/1.1 200", "HTTP/1.1 400"])
        expect(raw).not.toMatch(/\r\nallow:/i)
        // A method split across two segments: the second alone would read as the method "TS".
        const split = await rawSegments(h.port, ["PU", "TS /api/v1/clients HTTP/1.1\r\nHost: x\r\n\r\n"])
        expect(split).toMatch(/^HTTP\/1\.1 400 /)
        expect(h.logs().some((line) => line.annotations["method"] === "FOO" || line.annotations["method"] === "TS"))
          .toBe(false)
      }))

    it("garbage pipelined behind a running start is answered after it: the start's 200, then a 400, then the close", () =>
      withServer(store)(async (h) => {
        const body = JSON.stringify({ projectId: ids.website })
        const start = "POST /api/v1/timers/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
          `Authorization: Bearer ${keys.member}\r\nIdempotency-Key: pipelined\r\nContent-Length: ${body.length}\r\n\r\n${body}`
        // One write: Node parses the start, then fails on what follows while the start is still running.
        const raw = await rawExchange(h.port, `${start}GET / HTTP/9.9\r\nHost: x\r\n\r\n`)
        // Two answers, in order: a 400 first would be read as the start's answer (and a committed start as refused).
        expect(raw.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 400"])
        const [startHead = "", startRest = ""] = raw.split("\r\n\r\n")
        // The start's answer does not close the connection: an answer follows it.
        expect(startHead).not.toMatch(/\r\nconnection: close(\r\n|$)/i)
        const answered = JSON.parse(startRest.slice(0, startRest.indexOf("HTTP/1.1 400"))) as { timer: { id: string } }
        const refusal = raw.slice(raw.indexOf("HTTP/1.1 400"))
        const [refusalHead = "", refusalBody = ""] = refusal.split("\r\n\r\n")
        expect(refusalHead).toMatch(/\r\nconnection: close(\r\n|$)/i)
        const requestId = /x-request-id: (.+)/i.exec(refusalHead)?.[1]
        expect(JSON.parse(refusalBody)).toEqual({
          error: { code: "INVALID_REQUEST", message: "The HTTP request could not be parsed.", details: expect.anything() },
          requestId
        })
        expect(lineOf(h, requestId ?? "").annotations).toMatchObject({ status: 400, code: "INVALID_REQUEST" })
        // The client saw exactly what happened: a retry under the same key replays that answer.
        const retry = await h.api("POST", "/api/v1/timers/start", { key: keys.member, idempotencyKey: "pipelined", json: { projectId: ids.website } })
        expect(retry.headers["idempotent-replayed"]).toBe("true")
        expect(retry.body<{ timer: { id: string } }>().timer.id).toBe(answered.timer.id)
      }))

    it("garbage pipelined behind a request with an unknown Expect waits for its answer too", () =>
      // Node announces such a request as `checkExpectation` only: it must count as running all the same.
      withServer(store, heldBack("100 millis"))(
        async (h) => {
          const raw = await rawExchange(h.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\nGET / HTTP/9.9\r\n\r\n")
          expect(raw.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 400"])
        }
      ))

    it("garbage behind a request that closes its connection, or whose client leaves, gets no 400 and no line", () =>
      withServer(store, heldBack("100 millis"))(
        async (h) => {
          const refusals = () => h.logs().filter((line) => line.annotations["code"] === "INVALID_REQUEST").length
          // The running request said `Connection: close`: nothing may follow its answer.
          const closing = await rawExchange(
            h.port,
            "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET / HTTP/9.9\r\n\r\n"
          )
          expect(closing.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200"])
          // The client leaves before the running request is answered: nobody to answer.
          await new Promise<void>((resolve, reject) => {
            const socket = Net.connect(h.port, "127.0.0.1", () => {
              socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/9.9\r\n\r\n")
              setTimeout(() => socket.destroy(), 20)
            })
            socket.on("close", () => resolve())
            socket.on("error", reject)
          })
          await new Promise((resolve) => setTimeout(resolve, 300))
          expect(refusals()).toBe(0)
        }
      ))

    it("garbage pipelined behind two requests is answered after both, each once, in order", () =>
      // Every answer is held back 100 ms, so that both requests are still running when the parser fails.
      withServer(store, heldBack("100 millis"))(
        async (h) => {
          const get = `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`
          const raw = await rawExchange(h.port, `${get}${get}GET / HTTP/1.1\r\nBad Header: 1\r\n\r\n`)
          expect(raw.match(/HTTP\/1\.1 \d+/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 400"])
          expect(raw.match(/x-request-id: .+/gi)).toHaveLength(3)
        }
      ))

    it("a malformed chunk in a running request's body is that request's 400 INVALID_REQUEST; the connection closes", () =>
      withServer(store)(async (h) => {
        // Node's parser gives up inside the body, which then never ends: the request must not wait for it forever.
        const exchange = (path: string, headers: string) =>
          rawExchange(
            h.port,
            `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n` +
              `${headers}\r\n2\r\n{"\r\nZZ\r\n\r\n`
          )
        const answers = [
          await exchange("/api/v1/timers/start", `Authorization: Bearer ${keys.member}\r\nIdempotency-Key: broken-chunk\r\n`),
          await exchange("/api/v1/projects", `Authorization: Bearer ${keys.owner}\r\n`)
        ]
        for (const raw of answers) {
          const [head = "", body = ""] = raw.split("\r\n\r\n")
          expect(head).toMatch(/^HTTP\/1\.1 400 /)
          expect(head).toMatch(/\r\nconnection: close(\r\n|$)/i)
          const requestId = /x-request-id: (.+)/i.exec(head)?.[1]
          expect(JSON.parse(body)).toEqual({
            error: { code: "INVALID_REQUEST", message: expect.any(String), details: expect.anything() },
            requestId
          })
          expect(lineOf(h, requestId ?? "").annotations["status"]).toBe(400)
        }
        // The refused start stored nothing under its key: the same key now starts a timer afresh.
        const start = await h.api("POST", "/api/v1/timers/start", { key: keys.member, idempotencyKey: "broken-chunk", json: { projectId: ids.website } })
        expect(start.status).toBe(200)
        expect(start.headers["idempotent-replayed"]).toBeUndefined()
        // No cache on the way may keep a user's answer, success or error.
        expect(start.headers["cache-control"]).toBe("no-store")
        for (const raw of answers) expect(raw).toMatch(/\r\ncache-control: no-store\r\n/i)
      }))

    it("serves the OpenAPI document and the /docs page without authentication", () =>
      withServer(store)(async (h) => {
        const document = await h.send({ method: "GET", path: "/api/v1/openapi.json" })
        expect(document.status).toBe(200)
        expect(document.headers["content-type"]).toBe("application/json")
        expect(document.text).toBe(OpenApiDocument.json)
        const docs = await h.send({ method: "GET", path: "/docs" })
        expect(docs.status).toBe(200)
        expect(docs.headers["content-type"]).toBe("text/html; charset=utf-8")
        expect(docs.headers["content-security-policy"]).toContain("default-src 'none'")
        expect(docs.headers["content-security-policy"]).toContain("frame-ancestors 'none'")
        expect(docs.headers["x-content-type-options"]).toBe("nosniff")
      }))

    it("graceful shutdown: stops accepting, finishes the request in flight, then releases the store", async () => {
      const events: Array<string> = []
      const slow = (layer: Layer.Layer<Store.Store, unknown>) =>
        Layer.scoped(
          Store.Store,
          Effect.acquireRelease(
            Effect.map(Store.Store, (store): StoreShape => ({
              ...store,
              listClients: (scope) =>
                Effect.delay(store.listClients(scope), "600 millis").pipe(
                  Effect.tap(() => Effect.sync(() => events.push("request finished")))
                )
            })),
            () => Effect.sync(() => events.push("store released"))
          )
        ).pipe(Layer.provide(layer))
      await withServer(store, { store: slow })(async (h) => {
        const inFlight = h.api("GET", "/api/v1/clients", { key: keys.member })
        await new Promise((resolve) => setTimeout(resolve, 150))
        const closed = h.close()
        await new Promise((resolve) => setTimeout(resolve, 100))
        const refused = await new Promise<string>((resolve) => {
          const socket = Net.connect(h.port, "127.0.0.1")
          socket.on("connect", () => {
            socket.destroy()
            resolve("connected")
          })
          socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"))
        })
        expect(refused).toBe("ECONNREFUSED")
        const reply = await inFlight
        const answeredAt = Date.now()
        await closed
        // The kept-alive connection is closed as soon as its request is answered (not after the 5 s keep-alive).
        expect(Date.now() - answeredAt).toBeLessThan(1500)
        expect(reply.status).toBe(200)
        expect(reply.body<{ clients: ReadonlyArray<unknown> }>().clients.length).toBe(1)
        expect(events).toEqual(["request finished", "store released"])
      })
    })
  })
}

describe("shutdown with a request that never finishes", () => {
  it("closes the request's connection after the shutdown timeout, logs the request as aborted, and completes", async () => {
    const lines: Array<string> = []
    const hung = Layer.effect(
      Store.Store,
      Effect.map(Store.Store, (store): StoreShape => ({ ...store, listClients: () => Effect.never }))
    ).pipe(Layer.provide(MemoryStore.layerMemory))
    const runtime = ManagedRuntime.make(
      Server.layer({ host: "127.0.0.1", port: 0, shutdownTimeout: "200 millis", log: (line) => lines.push(line) })
        .pipe(Layer.provideMerge(hung))
    )
    await runtime.runPromise(Effect.asVoid(Fixture.load(fixture)))
    const address = (await runtime.runPromise(HttpServer.HttpServer)).address
    const port = address._tag === "TcpAddress" ? address.port : 0
    const request = new Promise<string>((resolve) => {
      const outgoing = Http.get({ host: "127.0.0.1", port, path: "/api/v1/clients", headers: { authorization: `Bearer ${keys.member}` } })
      outgoing.on("response", () => resolve("answered"))
      outgoing.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"))
    })
    await new Promise((resolve) => setTimeout(resolve, 150))
    const started = Date.now()
    await runtime.dispose()
    // Not the 30 s default: the configured timeout, then the hung request's connection is closed under it.
    expect(Date.now() - started).toBeLessThan(2000)
    expect(await request).toBe("ECONNRESET")
    // One line per request, also for the one cut off: written before the server's scope closed.
    const logged = lines.map((line) => JSON.parse(line) as { message: string; annotations: Record<string, unknown> })
    expect(logged).toContainEqual(expect.objectContaining({
      message: "request aborted by the client",
      annotations: expect.objectContaining({ method: "GET", path: "/api/v1/clients" })
    }))
  })
})

describe("a client trickling its request", () => {
  it("gets 400 INVALID_REQUEST once requestTimeout has passed, headers or body unfinished, and the connection closes", async () => {
    const lines: Array<string> = []
    const runtime = ManagedRuntime.make(
      Server.layer({ host: "127.0.0.1", port: 0, requestTimeout: "1 second", log: (line) => lines.push(line) })
        .pipe(Layer.provideMerge(MemoryStore.layerMemory))
    )
    try {
      await runtime.runPromise(Effect.asVoid(Fixture.load(fixture)))
      const address = (await runtime.runPromise(HttpServer.HttpServer)).address
      const port = address._tag === "TcpAddress" ? address.port : 0
      const started = Date.now()
      const [headers, body] = await Promise.all([
        // Headers never finished.
        rawExchange(port, `GET /api/v1/clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.member}\r\n`),
        // A body declared 40 bytes long, 10 sent.
        rawExchange(
          port,
          `POST /api/v1/timers/start HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.member}\r\n` +
            `Idempotency-Key: trickle\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"project`
        )
      ])
      // Within the timeout and Node's check of it (every second here), not Node's 300 s.
      expect(Date.now() - started).toBeLessThan(4_000)
      const messages = []
      for (const raw of [headers, body]) {
        const [head = "", text = ""] = raw.split("\r\n\r\n")
        expect(head).toMatch(/^HTTP\/1\.1 400 /)
        const requestId = /x-request-id: (.+)/i.exec(head)?.[1]
        const parsed = JSON.parse(text) as { error: { code: string; message: string }; requestId: string }
        expect(parsed).toMatchObject({ error: { code: "INVALID_REQUEST" }, requestId })
        messages.push(parsed.error.message)
      }
      expect(messages).toEqual(["The HTTP request did not arrive in time.", "The request body could not be read."])
      // Nothing was started under the key: it starts a timer afresh.
      const fresh = await new Promise<number>((resolve, reject) => {
        const request = Http.request({
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/api/v1/timers/start",
          headers: { authorization: `Bearer ${keys.member}`, "idempotency-key": "trickle", "content-type": "application/json" }
        }, (response) => {
          expect(response.headers["idempotent-replayed"]).toBeUndefined()
          response.resume()
          resolve(response.statusCode ?? 0)
        })
        request.on("error", reject)
        request.end(JSON.stringify({ projectId: ids.website }))
      })
      expect(fresh).toBe(200)
    } finally {
      await runtime.dispose()
    }
  })
})

describe("Server.app embedded", () => {
  it("runs as a web handler, bodies included (bounded at 64 KiB)", async () => {
    const runtime = ManagedRuntime.make(MemoryStore.layerMemory)
    try {
      await runtime.runPromise(Fixture.load(fixture))
      const handler = HttpApp.toWebHandlerRuntime(await runtime.runtime())(Server.app)
      const health = await handler(new Request("http://embedded/healthz"))
      expect(health.status).toBe(200)
      expect(health.headers.get("x-request-id")).toEqual(expect.any(String))
      const post = (body: string, contentType = "application/json") =>
        handler(
          new Request("http://embedded/api/v1/projects", {
            method: "POST",
            headers: { authorization: `Bearer ${keys.owner}`, "content-type": contentType },
            body
          })
        )
      const codeOf = async (response: Response) => (await response.json() as { error: { code: string } }).error.code
      const created = await post(JSON.stringify({ clientId: ids.globex, name: "Embedded" }))
      expect(created.status).toBe(201)
      const tooLarge = await post(JSON.stringify({ clientId: ids.globex, name: "x".repeat(70 * 1024) }))
      expect([tooLarge.status, await codeOf(tooLarge)]).toEqual([400, "INVALID_REQUEST"])
      const wrongType = await post(JSON.stringify({ clientId: ids.globex, name: "E" }), "text/plain")
      expect([wrongType.status, await codeOf(wrongType)]).toEqual([400, "INVALID_REQUEST"])
      const missing = await handler(new Request("http://embedded/nope"))
      expect([missing.status, await codeOf(missing)]).toEqual([404, "NOT_FOUND"])
    } finally {
      await runtime.dispose()
    }
  })
})
