/**
 * Every error code of every operation over HTTP, with its exact status and body (spec sections 4, 5, 7 and 8).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Net from "node:net"
import { ids, keys } from "./ServerFixture.js"
import { type ApiOptions, expectError, type Harness, rawExchange, stores, withServer } from "./ServerHarness.js"

/** One valid request per operation (valid apart from what a test changes). */
const operations: Record<string, { readonly method: string; readonly path: string } & ApiOptions> = {
  listClients: { method: "GET", path: "/api/v1/clients" },
  listProjects: { method: "GET", path: `/api/v1/projects?clientId=${ids.globex}` },
  createProject: { method: "POST", path: "/api/v1/projects", json: { clientId: ids.globex, name: "New" } },
  getActiveTimer: { method: "GET", path: "/api/v1/timer" },
  startTimer: { method: "POST", path: "/api/v1/timers/start", json: { projectId: ids.website }, idempotencyKey: "k1" },
  stopTimer: { method: "POST", path: `/api/v1/timers/${ids.completed}/stop`, idempotencyKey: "k2" },
  listTimeEntries: { method: "GET", path: "/api/v1/time-entries" }
}

const call = (h: Harness, name: string, options: ApiOptions = {}) => {
  const operation = operations[name]
  if (operation === undefined) throw new Error(name)
  const { method, path, ...defaults } = operation
  return h.api(method, path, { ...defaults, ...options })
}

const withQuery = (path: string, query: string) => path + (path.includes("?") ? "&" : "?") + query

for (const store of stores) {
  describe(`errors over HTTP (${store.name})`, () => {
    it("401 INVALID_API_KEY on every operation: missing, other scheme, malformed, unknown, expired, revoked, removed member", () =>
      withServer(store)(async (h) => {
        const refused: ReadonlyArray<Readonly<Record<string, string>>> = [
          {},
          { authorization: `Basic ${keys.owner}` },
          { authorization: "Bearer" },
          { authorization: "Bearer stint_short" },
          { authorization: `Bearer ${keys.owner.replace("stint_", "other_")}` },
          { authorization: `Bearer ${keys.owner}x` },
          { authorization: `Bearer ${keys.expired}` },
          { authorization: `Bearer ${keys.revoked}` },
          { authorization: `Bearer ${keys.removed}` },
          { cookie: `session=${keys.owner}; apiKey=${keys.owner}` }
        ]
        for (const name of Object.keys(operations)) {
          for (const headers of refused) {
            expectError(await call(h, name, { headers }), 401, "INVALID_API_KEY")
          }
        }
      }))

    it("401 when the key is only in the query string (query parameters never authenticate)", () =>
      withServer(store)(async (h) => {
        for (const [name, { method, path }] of Object.entries(operations)) {
          const reply = await h.api(method, withQuery(path, `api_key=${keys.owner}`), {
            ...(operations[name]?.json === undefined ? {} : { json: operations[name]?.json })
          })
          expectError(reply, 401, "INVALID_API_KEY")
        }
      }))

    it("a 401's message says how to send the key unless a Bearer token was sent, and that it is malformed when it is", () =>
      withServer(store)(async (h) => {
        const how = "Send your API key as \"Authorization: Bearer <key>\"."
        const messages: ReadonlyArray<readonly [Readonly<Record<string, string>>, string]> = [
          [{}, how],
          [{ authorization: `Basic ${keys.owner}` }, how],
          [{ authorization: keys.owner }, how],
          [{ authorization: "Bearer" }, how],
          [{ authorization: `Bearer ${keys.owner} ${keys.owner}` }, how],
          [{ authorization: "Bearer stint_short" }, "The API key is malformed."],
          [{ authorization: `bearer ${keys.owner.replace("stint_", "other_")}` }, "The API key is malformed."]
        ]
        for (const [headers, message] of messages) {
          const reply = await call(h, "listClients", { headers })
          expectError(reply, 401, "INVALID_API_KEY")
          expect({ headers, message: reply.body<{ error: { message: string } }>().error.message })
            .toEqual({ headers, message })
        }
      }))

    it("the Bearer scheme word is case-insensitive", () =>
      withServer(store)(async (h) => {
        const reply = await h.api("GET", "/api/v1/clients", { headers: { authorization: `bEaReR ${keys.owner}` } })
        expect(reply.status).toBe(200)
      }))

    it("a repeated Authorization or Content-Type is one malformed value, as a Web runtime's Headers joins it, not its first", () =>
      withServer(store)(async (h) => {
        // Raw, because an HTTP client merges repeated headers before sending.
        const exchange = async (head: string, body = "") => {
          const received = await rawExchange(
            h.port,
            `${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
          )
          return {
            status: Number(received.slice(9, 12)),
            body: JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4)) as { error: { code: string } }
          }
        }
        const twoKeys = await exchange(
          `GET /api/v1/clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.owner}\r\nAuthorization: Bearer ${keys.owner}`
        )
        expect([twoKeys.status, twoKeys.body.error.code]).toEqual([401, "INVALID_API_KEY"])
        const twoTypes = await exchange(
          `POST /api/v1/timers/start HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.member}\r\nIdempotency-Key: two-types\r\n` +
            "Content-Type: application/json\r\nContent-Type: application/json",
          JSON.stringify({ projectId: ids.website })
        )
        expect([twoTypes.status, twoTypes.body.error.code]).toEqual([400, "INVALID_REQUEST"])
        // One of each is served.
        const once = await exchange(`GET /api/v1/clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.owner}`)
        expect(once.status).toBe(200)
      }))

    it("what Node would answer bare (an HTTP/1.1 request without Host, an unknown Expect, CONNECT) gets the spec's answer", () =>
      withServer(store)(async (h) => {
        const parse = (received: string) => {
          const head = received.slice(0, received.indexOf("\r\n\r\n"))
          return {
            status: Number(received.slice(9, 12)),
            requestId: /\r\nx-request-id: ([^\r]+)/i.exec(head)?.[1],
            body: JSON.parse(received.slice(received.indexOf("\r\n\r\n") + 4)) as Record<string, unknown>
          }
        }
        const noHost = parse(await rawExchange(h.port, `GET /api/v1/clients HTTP/1.1\r\nAuthorization: Bearer ${keys.owner}\r\nConnection: close\r\n\r\n`))
        expect(noHost.status).toBe(400)
        expect(await rawExchange(h.port, "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
          .toMatch(/\r\ncache-control: no-store\r\nx-content-type-options: nosniff\r\n/i)
        expect(noHost.body).toEqual({
          error: { code: "INVALID_REQUEST", message: "An HTTP/1.1 request needs a Host header.", details: {} },
          requestId: noHost.requestId
        })
        // Answered without a fiber of its own, each such response still has its own id, the one its body carries.
        const again = parse(await rawExchange(h.port, "GET /api/v1/timer HTTP/1.1\r\nConnection: close\r\n\r\n"))
        expect(again.body["requestId"]).toBe(again.requestId)
        expect(again.requestId).toMatch(/^[0-9a-f-]{36}$/)
        expect(again.requestId).not.toBe(noHost.requestId)
        // A request target Node parses that is no path (the asterisk form) names no resource: 404, not 400.
        const asterisk = parse(await rawExchange(h.port, "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        expect({ status: asterisk.status, code: (asterisk.body["error"] as { code?: string } | undefined)?.code })
          .toEqual({ status: 404, code: "NOT_FOUND" })
        expect(asterisk.body["requestId"]).toBe(asterisk.requestId)
        // HTTP/1.0 has no Host requirement.
        expect(parse(await rawExchange(h.port, "GET /healthz HTTP/1.0\r\n\r\n")).status).toBe(200)
        // An expectation the server does not know is ignored: the request is served as any other.
        const expecting = parse(await rawExchange(h.port, `GET /api/v1/clients HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nAuthorization: Bearer ${keys.owner}\r\nConnection: close\r\n\r\n`))
        expect(expecting.status).toBe(200)
        expect(expecting.requestId).toEqual(expect.any(String))
        const refused = parse(await rawExchange(h.port, "GET /api/v1/clients HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n"))
        expect([refused.status, (refused.body["error"] as { code: string }).code]).toEqual([401, "INVALID_API_KEY"])
        // CONNECT: Node hands the socket over and would close it without a word.
        const proxying = parse(await rawExchange(h.port, "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n"))
        expect([proxying.status, (proxying.body["error"] as { code: string }).code, proxying.body["requestId"]])
          .toEqual([404, "NOT_FOUND", proxying.requestId])
        const known = await rawExchange(h.port, "CONNECT /api/v1/timer HTTP/1.1\r\nHost: x\r\n\r\n")
        expect(parse(known).status).toBe(405)
        expect(known).toMatch(/\r\nallow: GET\r\n/i)
      }))

    it("an error body never quotes what looks like an API key, wherever the client put it", () =>
      withServer(store)(async (h) => {
        const secret = keys.owner.slice("stint_".length)
        const replies = [
          await h.send({ method: "GET", path: `/api/v1/${keys.owner}` }),
          await h.send({ method: "PUT", path: `/api/v1/timers/${keys.owner}/stop` }),
          await h.api("GET", `/api/v1/projects?clientId=${keys.owner}`, { key: keys.owner }),
          await h.api("GET", `/api/v1/clients?${keys.owner}=1`, { key: keys.owner }),
          await h.api("POST", "/api/v1/projects", { key: keys.owner, json: { clientId: keys.owner, name: "x" } }),
          await h.api("POST", "/api/v1/projects", { key: keys.owner, json: { clientId: ids.globex, name: "x", [keys.owner]: 1 } })
        ]
        for (const reply of replies) {
          expect(reply.status).toBeGreaterThanOrEqual(400)
          expect(reply.text).not.toContain(secret.slice(0, 8))
        }
        expect(replies[0]?.text).toContain("stint_[redacted]")
      }))

    it("a client that closes its side in the middle of a body abandoned the request: logged as aborted, not as a 400", () =>
      withServer(store)(async (h) => {
        const socket = Net.connect(h.port, "127.0.0.1")
        socket.on("error", () => {})
        socket.write(
          `POST /api/v1/timers/start HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.member}\r\n` +
            "Idempotency-Key: half-sent\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"pro"
        )
        await new Promise((resolve) => setTimeout(resolve, 200))
        socket.end()
        for (let waited = 0; waited < 5_000; waited += 20) {
          if (h.logs().some((line) => line.message === "request aborted by the client")) break
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
        const lines = h.logs().filter((line) => line.annotations["method"] === "POST")
        expect(lines.map((line) => line.message)).toEqual(["request aborted by the client"])
      }))

    it("403 INSUFFICIENT_SCOPE on every operation, naming the scope", () =>
      withServer(store)(async (h) => {
        const required: Record<string, string> = {
          listClients: "clients:read",
          listProjects: "projects:read",
          createProject: "projects:write",
          getActiveTimer: "timers:read",
          startTimer: "timers:write",
          stopTimer: "timers:write",
          listTimeEntries: "timers:read"
        }
        for (const name of Object.keys(operations)) {
          expectError(await call(h, name, { key: keys.noScope }), 403, "INSUFFICIENT_SCOPE", {
            requiredScope: required[name]
          })
        }
        // A key from before projects:write existed.
        expectError(await call(h, "createProject", { key: keys.legacy }), 403, "INSUFFICIENT_SCOPE")
      }))

    it("400 INVALID_REQUEST on every operation for an unknown query parameter, naming it", () =>
      withServer(store)(async (h) => {
        for (const { method, path, ...defaults } of Object.values(operations)) {
          const reply = await h.api(method, withQuery(path, "offset=10"), { ...defaults, key: keys.member })
          expectError(reply, 400, "INVALID_REQUEST", { parameter: "offset" })
        }
      }))

    it("429 API_KEY_RATE_LIMITED on every operation once a key made 120 requests, shared by all seven", () =>
      withServer(store)(async (h) => {
        const names = Object.keys(operations)
        for (let i = 0; i < 120; i++) {
          const reply = await call(h, names[i % names.length] ?? "listClients", { key: keys.member2 })
          expect(reply.status).toBeLessThan(429)
        }
        for (const name of names) {
          const reply = await call(h, name, { key: keys.member2 })
          expectError(reply, 429, "API_KEY_RATE_LIMITED")
          expect(reply.headers["retry-after"]).toBeUndefined()
        }
        // Another key of the same user has its own window.
        expect((await call(h, "listClients", { key: keys.member })).status).toBe(200)
      }))

    it("createProject: 403 FORBIDDEN for a member, 404 RESOURCE_NOT_FOUND for an archived, unknown or foreign client", () =>
      withServer(store)(async (h) => {
        expectError(await call(h, "createProject", { key: keys.member }), 403, "FORBIDDEN")
        // Checked before the client lookup: members cannot probe client ids.
        const probe = await call(h, "createProject", { key: keys.member, json: { clientId: ids.otherClient, name: "P" } })
        expectError(probe, 403, "FORBIDDEN")
        for (const clientId of [ids.umbrella, "01900000-0000-7000-8000-0000000fffff", ids.otherClient]) {
          const reply = await call(h, "createProject", { key: keys.owner, json: { clientId, name: "New" } })
          expectError(reply, 404, "RESOURCE_NOT_FOUND")
        }
        expect((await call(h, "createProject", { key: keys.admin })).status).toBe(201)
      }))

    it("startTimer: 400 IDEMPOTENCY_KEY_REQUIRED, 404 PROJECT_NOT_FOUND, 409 IDEMPOTENCY_CONFLICT", () =>
      withServer(store)(async (h) => {
        for (const idempotencyKey of [undefined, "", "   ", "k".repeat(256)]) {
          const reply = await h.api("POST", "/api/v1/timers/start", {
            key: keys.member,
            json: { projectId: ids.website },
            ...(idempotencyKey === undefined ? {} : { idempotencyKey })
          })
          expectError(reply, 400, "IDEMPOTENCY_KEY_REQUIRED")
        }
        const notReady = [
          ids.apps, // not assigned to Mia
          ids.archivedProject,
          ids.legacy, // client archived
          ids.otherProject, // another workspace
          "01900000-0000-7000-8000-0000000fffff"
        ]
        for (const [i, projectId] of notReady.entries()) {
          const reply = await call(h, "startTimer", { key: keys.member, idempotencyKey: `p${i}`, json: { projectId } })
          expectError(reply, 404, "PROJECT_NOT_FOUND")
        }
        expect((await call(h, "startTimer", { key: keys.member, idempotencyKey: "same" })).status).toBe(200)
        const conflict = await call(h, "startTimer", {
          key: keys.member,
          idempotencyKey: "same",
          json: { projectId: ids.mobile }
        })
        expectError(conflict, 409, "IDEMPOTENCY_CONFLICT")
      }))

    it("stopTimer: 400, 404 TIMER_NOT_FOUND, 409 TIMER_VOIDED, TIMER_ALREADY_STOPPED and IDEMPOTENCY_CONFLICT", () =>
      withServer(store)(async (h) => {
        const stop = (timerId: string, idempotencyKey: string | undefined, key: string = keys.member) =>
          h.api("POST", `/api/v1/timers/${timerId}/stop`, {
            key,
            ...(idempotencyKey === undefined ? {} : { idempotencyKey })
          })
        expectError(await stop(ids.completed, undefined), 400, "IDEMPOTENCY_KEY_REQUIRED")
        expectError(await stop("not-a-uuid", "s0"), 400, "INVALID_REQUEST", { parameter: "timerId" })
        expectError(await stop("01900000-0000-7000-8000-0000000fffff", "s1"), 404, "TIMER_NOT_FOUND")
        expectError(await stop(ids.oliviaEntry, "s2"), 404, "TIMER_NOT_FOUND")
        expectError(await stop(ids.completed, "s3", keys.other), 404, "TIMER_NOT_FOUND")
        expectError(await stop(ids.voided, "s4"), 409, "TIMER_VOIDED")
        expectError(await stop(ids.completed, "s5"), 409, "TIMER_ALREADY_STOPPED")

        const started = await call(h, "startTimer", { key: keys.member, idempotencyKey: "go" })
        const timerId = started.body<{ timer: { id: string } }>().timer.id
        expect((await stop(timerId, "stop-1")).status).toBe(200)
        expectError(await stop(ids.completed, "stop-1"), 409, "IDEMPOTENCY_CONFLICT")
      }))

    it("listTimeEntries: 400 INVALID_CURSOR for a cursor of another limit, filter or key", () =>
      withServer(store)(async (h) => {
        const first = await h.api("GET", "/api/v1/time-entries?limit=5", { key: keys.member })
        const cursor = first.body<{ nextCursor: string }>().nextCursor
        expect(cursor).toEqual(expect.any(String))
        for (const query of [`cursor=${cursor}`, `cursor=${cursor}&limit=6`, `cursor=${cursor}&limit=5&projectId=${ids.website}`]) {
          expectError(await h.api("GET", `/api/v1/time-entries?${query}`, { key: keys.member }), 400, "INVALID_CURSOR")
        }
        const otherKey = await h.api("GET", `/api/v1/time-entries?limit=5&cursor=${cursor}`, { key: keys.member2 })
        expectError(otherKey, 400, "INVALID_CURSOR")
        const altered = `${cursor.slice(0, -2)}${cursor.endsWith("AA") ? "BB" : "AA"}`
        const reply = await h.api("GET", `/api/v1/time-entries?limit=5&cursor=${altered}`, { key: keys.member })
        expectError(reply, 400, "INVALID_CURSOR")
        expect((await h.api("GET", `/api/v1/time-entries?limit=5&cursor=${cursor}`, { key: keys.member })).status)
          .toBe(200)
      }))
  })
}
