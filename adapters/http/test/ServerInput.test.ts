/**
 * What the transport must get right by itself (the failures HttpApi would not produce) and the decisions page's input
 * rules as seen over HTTP: routes (404, 405 with `Allow`), bodies (content type, malformed JSON, missing, not an
 * object, over 64 KiB), query parameters (unknown, repeated), path parameters, and the order of checks.
 */
import { describe, expect, it } from "@effect/vitest"
import { ids, keys } from "./ServerFixture.js"
import { expectError, type Harness, rawExchange, stores, withServer } from "./ServerHarness.js"

const post = (h: Harness, path: string, body: string | Buffer | undefined, headers: Record<string, string>) =>
  h.send({ method: "POST", path, headers, ...(body === undefined ? {} : { body }) })

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })
const json = { "content-type": "application/json" }
const project = JSON.stringify({ clientId: ids.globex, name: "New" })

/** A createProject body of exactly `size` bytes whose name is too long (so it is read, then refused by field). */
const sized = (size: number): string => {
  const skeleton = JSON.stringify({ clientId: ids.globex, name: "" })
  return JSON.stringify({ clientId: ids.globex, name: "x".repeat(size - skeleton.length) })
}

for (const store of stores) {
  describe(`routes (${store.name})`, () => {
    it("an unknown path is 404 NOT_FOUND in the error shape, before authentication", () =>
      withServer(store)(async (h) => {
        for (const path of ["/", "/api/v1", "/api/v1/", "/api/v1/clients/", "/api/v2/clients", "/api/v1/nope",
          "/healthz/x", "/docs/", "/api/v1/timers//stop", "/api/v1/timers/x/y/stop", "/API/V1/CLIENTS", "/favicon.ico"]) {
          expectError(await h.send({ method: "GET", path }), 404, "NOT_FOUND")
          expectError(await h.send({ method: "POST", path, headers: bearer(keys.owner) }), 404, "NOT_FOUND")
        }
      }))

    it("the target is read as URL parsing reads it: dot segments resolved, a fragment dropped (README, Routes)", () =>
      withServer(store)(async (h) => {
        const plain = await h.send({ method: "GET", path: "/api/v1/clients", headers: bearer(keys.owner) })
        expect(plain.status).toBe(200)
        for (const path of ["/api/v1/x/../clients", "/api/v1/./clients", "/api/v1/%2e%2E/v1/clients", "/api/v1/clients#f"]) {
          const reply = await h.send({ method: "GET", path, headers: bearer(keys.owner) })
          expect({ path, status: reply.status, text: reply.text }).toEqual({ path, status: 200, text: plain.text })
        }
        expectError(await h.send({ method: "GET", path: "/api/v1/clients/..", headers: bearer(keys.owner) }), 404, "NOT_FOUND")
        expectError(await h.send({ method: "GET", path: "/api/v1/timer/../nope" }), 404, "NOT_FOUND")
      }))

    it("a backslash in the path is a character of its segment, not a `/`: no route has one (404)", () =>
      withServer(store)(async (h) => {
        // URL parsing reads `\\` in an http path as `/`; a proxy in front, checking paths by HTTP's rules, does not.
        for (const path of ["/api\\v1\\clients", "/api/v1\\clients"]) {
          const raw = await rawExchange(
            h.port,
            `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys.owner}\r\nConnection: close\r\n\r\n`
          )
          expect({ path, head: raw.slice(0, 12) }).toEqual({ path, head: "HTTP/1.1 404" })
          expect(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4))).toMatchObject({ error: { code: "NOT_FOUND" } })
        }
      }))

    it("every header line is read, however many: Node would drop those after the 2,000th without a word", () =>
      withServer(store)(async (h) => {
        const filler = "a:1\r\n".repeat(2_500)
        const raw = await rawExchange(
          h.port,
          `GET /api/v1/clients HTTP/1.1\r\nHost: x\r\n${filler}Authorization: Bearer ${keys.owner}\r\nConnection: close\r\n\r\n`
        )
        expect(raw.slice(0, 12)).toBe("HTTP/1.1 200")
      }))

    it("a known path with another method is 405 METHOD_NOT_ALLOWED with Allow, before authentication", () =>
      withServer(store)(async (h) => {
        const cases: ReadonlyArray<readonly [string, string, string]> = [
          ["DELETE", "/api/v1/clients", "GET"],
          ["POST", "/api/v1/clients", "GET"],
          ["PUT", "/api/v1/projects", "GET, POST"],
          ["PATCH", "/api/v1/timer", "GET"],
          ["GET", "/api/v1/timers/start", "POST"],
          ["GET", `/api/v1/timers/${ids.completed}/stop`, "POST"],
          ["DELETE", "/api/v1/time-entries", "GET"],
          ["OPTIONS", "/api/v1/clients", "GET"],
          ["POST", "/healthz", "GET"],
          ["POST", "/readyz", "GET"],
          ["DELETE", "/docs", "GET"],
          ["PUT", "/api/v1/openapi.json", "GET"]
        ]
        for (const [method, path, allow] of cases) {
          const reply = await h.send({ method, path })
          // The methods are in the body too, for a client that reads only the body.
          expectError(reply, 405, "METHOD_NOT_ALLOWED", { allow: allow.split(", ") })
          expect(reply.headers["allow"]).toBe(allow)
          const authenticated = await h.send({ method, path, headers: bearer(keys.owner) })
          expectError(authenticated, 405, "METHOD_NOT_ALLOWED", { allow: allow.split(", ") })
        }
      }))

    it("path parameters are percent-decoded; a timerId that is not a UUID is 400 after authentication", () =>
      withServer(store)(async (h) => {
        const stop = (id: string, key?: string) =>
          h.send({
            method: "POST",
            path: `/api/v1/timers/${id}/stop`,
            headers: { ...(key === undefined ? {} : bearer(key)), "idempotency-key": `k-${id}` }
          })
        expectError(await stop("%zz"), 401, "INVALID_API_KEY")
        expectError(await stop("%zz", keys.member), 400, "INVALID_REQUEST", { parameter: "timerId" })
        expectError(await stop("12345", keys.member), 400, "INVALID_REQUEST", { parameter: "timerId" })
        expectError(await stop(encodeURIComponent(ids.voided), keys.member), 409, "TIMER_VOIDED")
        expectError(await stop(ids.voided.toUpperCase(), keys.member), 409, "TIMER_VOIDED")
      }))
  })

  describe(`request bodies (${store.name})`, () => {
    it("malformed JSON is 400 INVALID_REQUEST, but only after authentication, rate limit, scope and Idempotency-Key", () =>
      withServer(store)(async (h) => {
        const broken = "{\"clientId\": "
        expectError(await post(h, "/api/v1/projects", broken, json), 401, "INVALID_API_KEY")
        expectError(await post(h, "/api/v1/projects", broken, { ...json, ...bearer(keys.noScope) }), 403, "INSUFFICIENT_SCOPE")
        expectError(await post(h, "/api/v1/projects", broken, { ...json, ...bearer(keys.owner) }), 400, "INVALID_REQUEST", {
          reason: "unreadable"
        })
        expectError(await post(h, "/api/v1/timers/start", broken, { ...json, ...bearer(keys.member) }), 400, "IDEMPOTENCY_KEY_REQUIRED")
        const withKey = { ...json, ...bearer(keys.member), "idempotency-key": "a" }
        expectError(await post(h, "/api/v1/timers/start", broken, withKey), 400, "INVALID_REQUEST")
        // Members may not create projects, but malformed input is reported first.
        expectError(await post(h, "/api/v1/projects", broken, { ...json, ...bearer(keys.member) }), 400, "INVALID_REQUEST")
      }))

    it("JSON that names a member twice is 400 INVALID_REQUEST naming it, not read as its last value", () =>
      withServer(store)(async (h) => {
        const member = { ...json, ...bearer(keys.member) }
        const timer = async () =>
          (await h.send({ method: "GET", path: "/api/v1/timer", headers: bearer(keys.member) })).body<{ timer: unknown }>().timer
        const projects = async () =>
          (await h.send({ method: "GET", path: `/api/v1/projects?clientId=${ids.globex}`, headers: bearer(keys.owner) })).text
        const timerBefore = await timer()
        const projectsBefore = await projects()
        const starts: ReadonlyArray<readonly [string, Record<string, string>]> = [
          [`{"projectId":"${ids.website}","note":"written first","note":"written last"}`, { field: "note", reason: "repeated" }],
          // The same name written with an escape is the same name.
          [`{"projectId":"${ids.website}","\\u0070rojectId":"${ids.website}"}`, { field: "projectId", reason: "repeated" }],
          [`{"projectId":"${ids.website}","note":{"a":1,"b":{"a":1},"a":2}}`, { field: "note", member: "a", reason: "repeated" }],
          [`{"projectId":"${ids.website}","note":{"note":1,"note":2}}`, { field: "note", member: "note", reason: "repeated" }]
        ]
        for (const [i, [body, details]] of starts.entries()) {
          const reply = await post(h, "/api/v1/timers/start", body, { ...member, "idempotency-key": `repeated-${i}` })
          expectError(reply, 400, "INVALID_REQUEST", details)
        }
        const reply = await post(h, "/api/v1/projects", `{"clientId":"${ids.globex}","name":"A","name":"B"}`, {
          ...json,
          ...bearer(keys.owner)
        })
        expectError(reply, 400, "INVALID_REQUEST", { field: "name", reason: "repeated" })
        expect(reply.body<{ error: { message: string } }>().error.message).toBe("Invalid field \"name\": it is repeated.")
        // Nothing was started or created; the same names in different objects are no repeat.
        expect(await timer()).toEqual(timerBefore)
        expect(await projects()).toBe(projectsBefore)
        const fine = await post(h, "/api/v1/timers/start", `{"projectId":"${ids.website}","note":"{\\"note\\":1}"}`, {
          ...member,
          "idempotency-key": "not-repeated"
        })
        expect({ status: fine.status, note: fine.body<{ timer: { note: string } }>().timer.note }).toEqual({
          status: 200,
          note: "{\"note\":1}"
        })
      }))

    it("the content type must be application/json (parameters allowed, case-insensitive)", () =>
      withServer(store)(async (h) => {
        const owner = bearer(keys.owner)
        for (const contentType of ["text/plain", "application/jsonx", "application/x-www-form-urlencoded", "json"]) {
          const reply = await post(h, "/api/v1/projects", project, { ...owner, "content-type": contentType })
          expectError(reply, 400, "INVALID_REQUEST", { reason: "unreadable" })
        }
        expectError(await post(h, "/api/v1/projects", project, owner), 400, "INVALID_REQUEST", { reason: "unreadable" })
        expectError(
          await post(h, "/api/v1/projects", project, { "content-type": "text/plain" }),
          401,
          "INVALID_API_KEY"
        )
        for (const contentType of ["application/json; charset=utf-8", "Application/JSON", "application/json;charset=UTF-8"]) {
          const reply = await post(h, "/api/v1/projects", project, { ...owner, "content-type": contentType })
          expect(reply.status).toBe(201)
        }
      }))

    it("a body with a Content-Encoding (gzip, say) is 400 INVALID_REQUEST naming the coding, not malformed JSON", () =>
      withServer(store)(async (h) => {
        const owner = { ...json, ...bearer(keys.owner) }
        for (const coding of ["gzip", "br", "deflate, gzip"]) {
          const reply = await post(h, "/api/v1/projects", project, { ...owner, "content-encoding": coding })
          expectError(reply, 400, "INVALID_REQUEST", { reason: "unreadable" })
          expect(reply.body<{ error: { message: string } }>().error.message).toBe(
            `The request body's Content-Encoding (${coding}) is not supported: send it uncompressed.`
          )
        }
        // Checked after authentication, as every input is; identity is no coding at all.
        expectError(await post(h, "/api/v1/projects", project, { ...json, "content-encoding": "gzip" }), 401, "INVALID_API_KEY")
        expect((await post(h, "/api/v1/projects", project, { ...owner, "content-encoding": "Identity" })).status).toBe(201)
        expect((await post(h, "/api/v1/projects", project, { ...owner, "content-encoding": "identity, identity" })).status)
          .toBe(201)
        // A stop ignores any body, encoded or not.
        const started = await post(h, "/api/v1/timers/start", JSON.stringify({ projectId: ids.website }), {
          ...json,
          ...bearer(keys.member),
          "idempotency-key": "coded-start"
        })
        expect(started.status).toBe(200)
        const timerId = started.body<{ timer: { id: string } }>().timer.id
        const stopped = await post(h, `/api/v1/timers/${timerId}/stop`, "{}", {
          ...json,
          ...bearer(keys.member),
          "idempotency-key": "coded-stop",
          "content-encoding": "gzip"
        })
        expect(stopped.status).toBe(200)
      }))

    it("a body with a transfer coding other than chunked (gzip, chunked) is 400 INVALID_REQUEST naming it", () =>
      withServer(store)(async (h) => {
        // Node's parser undoes the chunked framing only: the body would be read as still encoded (or, sent plain
        // under that label, as if it were not).
        const exchange = (codings: string, key: string) =>
          rawExchange(
            h.port,
            `POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\n` +
              `Transfer-Encoding: ${codings}\r\nConnection: close\r\n\r\n` +
              `${Buffer.byteLength(project).toString(16)}\r\n${project}\r\n0\r\n\r\n`
          )
        const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)) as unknown
        const refused = await exchange("gzip, chunked", keys.owner)
        expect(refused.slice(0, 12)).toBe("HTTP/1.1 400")
        expect(bodyOf(refused)).toMatchObject({
          error: {
            code: "INVALID_REQUEST",
            message: "The request body's Transfer-Encoding (gzip, chunked) is not supported: send it with chunked alone, uncompressed.",
            details: { reason: "unreadable" }
          }
        })
        // Checked after authentication, as every input is; chunked alone (any case) is the framing, read as usual.
        expect(bodyOf(await exchange("gzip, chunked", `${keys.owner}zz`))).toMatchObject({ error: { code: "INVALID_API_KEY" } })
        expect((await exchange("Chunked", keys.owner)).slice(0, 12)).toBe("HTTP/1.1 201")
        expect((await exchange("identity, chunked", keys.owner)).slice(0, 12)).toBe("HTTP/1.1 201")
      }))

    it("a missing or empty body is 400 INVALID_REQUEST", () =>
      withServer(store)(async (h) => {
        expectError(await post(h, "/api/v1/projects", undefined, bearer(keys.owner)), 400, "INVALID_REQUEST", {
          reason: "missing"
        })
        expectError(await post(h, "/api/v1/projects", "", { ...json, ...bearer(keys.owner) }), 400, "INVALID_REQUEST", {
          reason: "missing"
        })
        const start = { ...json, ...bearer(keys.member), "idempotency-key": "empty" }
        expectError(await post(h, "/api/v1/timers/start", undefined, start), 400, "INVALID_REQUEST")
      }))

    it("a body that is not a JSON object is 400 INVALID_REQUEST", () =>
      withServer(store)(async (h) => {
        for (const [i, body] of ["[]", "null", "1", "\"text\"", "true", `[${project}]`].entries()) {
          const reply = await post(h, "/api/v1/timers/start", body, {
            ...json,
            ...bearer(keys.member),
            "idempotency-key": `n${i}`
          })
          expectError(reply, 400, "INVALID_REQUEST", { reason: "not an object" })
        }
        const invalidUtf8 = Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])
        expectError(await post(h, "/api/v1/projects", invalidUtf8, { ...json, ...bearer(keys.owner) }), 400, "INVALID_REQUEST")
      }))

    it("a body over 64 KiB is 400 INVALID_REQUEST (declared or chunked); 64 KiB exactly is read", () =>
      withServer(store)(async (h) => {
        const owner = { ...json, ...bearer(keys.owner) }
        const exact = await post(h, "/api/v1/projects", sized(64 * 1024), owner)
        expectError(exact, 400, "INVALID_REQUEST", { field: "name" })
        const over = await post(h, "/api/v1/projects", sized(64 * 1024 + 1), owner)
        expectError(over, 400, "INVALID_REQUEST", { reason: "unreadable" })
        expect(over.body<{ error: { message: string } }>().error.message).toContain("64 KiB")
        const huge = Buffer.from(sized(5 * 1024 * 1024))
        expectError(await post(h, "/api/v1/projects", huge, owner), 400, "INVALID_REQUEST", { reason: "unreadable" })
        expectError(await post(h, "/api/v1/projects", huge, json), 401, "INVALID_API_KEY")
        const chunks = Array.from({ length: 40 }, () => Buffer.alloc(4096, 0x20))
        const chunked = await h.send({ method: "POST", path: "/api/v1/projects", headers: owner, chunks })
        expectError(chunked, 400, "INVALID_REQUEST", { reason: "unreadable" })
        // Chunked, at the limit and one byte over it, with valid JSON: the count is the body's, not the chunks'.
        const inChunks = (body: string) => {
          const bytes = Buffer.from(body)
          return Array.from({ length: Math.ceil(bytes.length / 4096) }, (_, i) => bytes.subarray(i * 4096, (i + 1) * 4096))
        }
        const chunkedExact = await h.send({ method: "POST", path: "/api/v1/projects", headers: owner, chunks: inChunks(sized(64 * 1024)) })
        expectError(chunkedExact, 400, "INVALID_REQUEST", { field: "name" })
        const chunkedOver = await h.send({
          method: "POST",
          path: "/api/v1/projects",
          headers: owner,
          chunks: inChunks(sized(64 * 1024 + 1))
        })
        expectError(chunkedOver, 400, "INVALID_REQUEST", { reason: "unreadable" })
        expect(chunkedOver.body<{ error: { message: string } }>().error.message).toContain("64 KiB")
        // The connection (kept alive) still serves the next request.
        expect((await post(h, "/api/v1/projects", project, owner)).status).toBe(201)
        const smallChunks = [Buffer.from(project.slice(0, 10)), Buffer.from(project.slice(10))]
        const reassembled = await h.send({ method: "POST", path: "/api/v1/projects", headers: owner, chunks: smallChunks })
        expect(reassembled.status).toBe(201)
      }))

    it("unknown body properties are 400 INVALID_REQUEST naming the property", () =>
      withServer(store)(async (h) => {
        const reply = await h.api("POST", "/api/v1/projects", {
          key: keys.owner,
          json: { clientId: ids.globex, name: "New", archived: false }
        })
        expectError(reply, 400, "INVALID_REQUEST", { field: "archived" })
        const start = await h.api("POST", "/api/v1/timers/start", {
          key: keys.member,
          idempotencyKey: "u",
          json: { projectId: ids.website, startedAt: "2026-01-01T00:00:00Z" }
        })
        expectError(start, 400, "INVALID_REQUEST", { field: "startedAt" })
      }))

    it("stopTimer ignores any body; GET operations ignore bodies", () =>
      withServer(store)(async (h) => {
        const started = await h.api("POST", "/api/v1/timers/start", {
          key: keys.member,
          idempotencyKey: "s",
          json: { projectId: ids.website }
        })
        const timerId = started.body<{ timer: { id: string } }>().timer.id
        const stopped = await post(h, `/api/v1/timers/${timerId}/stop`, "{not json", {
          ...bearer(keys.member),
          "content-type": "text/plain",
          "idempotency-key": "t"
        })
        expect(stopped.status).toBe(200)
        const big = await post(h, `/api/v1/timers/${ids.completed}/stop`, Buffer.alloc(100 * 1024, 0x61), {
          ...bearer(keys.member),
          "idempotency-key": "u"
        })
        expectError(big, 409, "TIMER_ALREADY_STOPPED")
        const get = await h.send({
          method: "GET",
          path: "/api/v1/clients",
          headers: { ...bearer(keys.member), ...json },
          body: "{broken"
        })
        expect(get.status).toBe(200)
      }))

    it("createProject ignores an Idempotency-Key (no replay, never IDEMPOTENCY_KEY_REQUIRED)", () =>
      withServer(store)(async (h) => {
        const first = await h.api("POST", "/api/v1/projects", { key: keys.owner, idempotencyKey: "same", json: { clientId: ids.globex, name: "A" } })
        const second = await h.api("POST", "/api/v1/projects", { key: keys.owner, idempotencyKey: "same", json: { clientId: ids.globex, name: "A" } })
        expect([first.status, second.status]).toEqual([201, 201])
        expect(second.headers["idempotent-replayed"]).toBeUndefined()
        const idOf = (reply: typeof first) => reply.body<{ project: { id: string } }>().project.id
        expect(idOf(first)).not.toBe(idOf(second))
        const blank = await h.api("POST", "/api/v1/projects", { key: keys.owner, idempotencyKey: "   ", json: { clientId: ids.globex, name: "B" } })
        expect(blank.status).toBe(201)
      }))
  })

  describe(`query parameters (${store.name})`, () => {
    it("unknown and repeated query parameters are 400 INVALID_REQUEST naming the parameter", () =>
      withServer(store)(async (h) => {
        const get = (path: string) => h.api("GET", path, { key: keys.member })
        expectError(await get(`/api/v1/projects?clientId=${ids.globex}&clientId=${ids.globex}`), 400, "INVALID_REQUEST", {
          parameter: "clientId",
          reason: "repeated"
        })
        expectError(await get("/api/v1/time-entries?limit=5&limit=5"), 400, "INVALID_REQUEST", { parameter: "limit" })
        for (const name of ["offset", "status", "from", "userId", "api_key"]) {
          expectError(await get(`/api/v1/time-entries?${name}=1`), 400, "INVALID_REQUEST", { parameter: name, reason: "unknown" })
        }
        expectError(await get("/api/v1/timer?flag"), 400, "INVALID_REQUEST", { parameter: "flag" })
        expectError(await get("/api/v1/clients?%6Fffset=1"), 400, "INVALID_REQUEST", { parameter: "offset" })
        expect((await get(`/api/v1/projects?client%49d=${ids.globex}`)).status).toBe(200)
      }))

    it("listProjects requires a UUID clientId; listTimeEntries checks limit and cursor", () =>
      withServer(store)(async (h) => {
        const get = (path: string) => h.api("GET", path, { key: keys.member })
        expectError(await get("/api/v1/projects"), 400, "INVALID_REQUEST")
        expectError(await get("/api/v1/projects?clientId=globex"), 400, "INVALID_REQUEST", { parameter: "clientId" })
        expectError(await get("/api/v1/projects?clientId="), 400, "INVALID_REQUEST", { parameter: "clientId" })
        for (const limit of ["0", "101", "01", "+5", "-1", "1.0", "1e1", "", " 5", "abc", "1000"]) {
          expectError(await get(`/api/v1/time-entries?limit=${encodeURIComponent(limit)}`), 400, "INVALID_REQUEST", {
            parameter: "limit"
          })
        }
        for (const limit of ["1", "100"]) expect((await get(`/api/v1/time-entries?limit=${limit}`)).status).toBe(200)
        for (const cursor of ["", "abc$", "a.b", "null", "x".repeat(1025)]) {
          const reply = await get(`/api/v1/time-entries?cursor=${encodeURIComponent(cursor)}`)
          expectError(reply, 400, cursor === "null" ? "INVALID_CURSOR" : "INVALID_REQUEST")
        }
        expectError(await get("/api/v1/time-entries?projectId=nope"), 400, "INVALID_REQUEST", { parameter: "projectId" })
      }))
  })
}
