/**
 * Hostile input over HTTP: bodies whose fields hold values nested 1 to 20,000 levels deep (arrays and objects mixed),
 * wide objects and arrays, long strings; the same as query strings, path segments and headers; on all seven
 * operations, `/healthz`, `/readyz`, `/docs`, the OpenAPI document and unknown routes. Every answer is the spec's error
 * body with a 4xx (or the route's normal answer where the input is ignored), small whatever the input, and the server
 * goes on serving: a 5,000-level `projectId` once answered 500 after a stack overflow.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as HostileJson from "../../../testing/HostileJson.js"
import { ids, keys } from "./ServerFixture.js"
import { expectError, type Harness, type Reply, stores, withServer } from "./ServerHarness.js"

const memory = stores.find((store) => store.name === "memory")
if (memory === undefined) throw new Error("no memory store")

const settings = { settings: { rateLimit: { limit: 10_000_000, windowMillis: 60_000 } } }

/** Still serving: a probe and an authenticated read both answer 200. */
const expectServing = async (h: Harness) => {
  expect((await h.send({ method: "GET", path: "/healthz" })).status).toBe(200)
  expect((await h.api("GET", "/api/v1/timer", { key: keys.member })).status).toBe(200)
}

/** An error body that does not grow with the input. */
const expectSmallError = (reply: Reply, status: number, code: string) => {
  expectError(reply, status, code)
  expect(reply.text.length).toBeLessThanOrEqual(4_000)
}

const post = (h: Harness, path: string, text: string, headers: Readonly<Record<string, string>> = {}) =>
  h.send({
    method: "POST",
    path,
    headers: { authorization: `Bearer ${keys.owner}`, "content-type": "application/json", ...headers },
    body: text
  })

/** A JSON object text with `field` set to the hostile text (the rest of the body valid). */
const withField = (rest: Readonly<Record<string, unknown>>, field: string, value: string) => {
  const others = JSON.stringify(rest).slice(1, -1)
  return `{${others}${others === "" ? "" : ","}${JSON.stringify(field)}:${value}}`
}

const bodyCases: ReadonlyArray<{ readonly name: string; readonly path: string; readonly text: (value: string) => string; readonly field?: string }> = [
  { name: "startTimer projectId", path: "/api/v1/timers/start", text: (v) => withField({}, "projectId", v), field: "projectId" },
  { name: "startTimer billable", path: "/api/v1/timers/start", text: (v) => withField({ projectId: ids.website }, "billable", v), field: "billable" },
  { name: "startTimer note", path: "/api/v1/timers/start", text: (v) => withField({ projectId: ids.website }, "note", v), field: "note" },
  { name: "startTimer unknown field", path: "/api/v1/timers/start", text: (v) => withField({ projectId: ids.website }, "extra", v), field: "extra" },
  { name: "startTimer whole body", path: "/api/v1/timers/start", text: (v) => v },
  { name: "createProject clientId", path: "/api/v1/projects", text: (v) => withField({ name: "N" }, "clientId", v), field: "clientId" },
  { name: "createProject name", path: "/api/v1/projects", text: (v) => withField({ clientId: ids.globex }, "name", v), field: "name" },
  { name: "createProject color", path: "/api/v1/projects", text: (v) => withField({ clientId: ids.globex, name: "N" }, "color", v), field: "color" },
  { name: "createProject unknown field", path: "/api/v1/projects", text: (v) => withField({ clientId: ids.globex, name: "N" }, "extra", v), field: "extra" },
  { name: "createProject whole body", path: "/api/v1/projects", text: (v) => v }
]

/** A long string is a valid note or name when short enough: those are not hostile. */
const isPossiblyValid = (name: string, hostile: HostileJson.Hostile) =>
  hostile._tag === "LongString" &&
  ((name.endsWith("note") && hostile.length <= 500) || (name.endsWith("name") && hostile.length <= 200))

/** Under 64 KiB as a body, so that the field's value is read (larger bodies are refused unread, also with a 400). */
const deepField = fc.record({ depth: HostileJson.depth, pattern: fc.array(fc.constantFrom<HostileJson.Level>({ _tag: "Array" }, { _tag: "Object", key: "" }), { minLength: 1, maxLength: 3 }) })
  .map(({ depth, pattern }): HostileJson.Hostile => ({ _tag: "Deep", depth: Math.min(depth, 12_000), pattern, leaf: "x" }))

describe("hostile bodies over HTTP", () => {
  it.each(stores.map((store) => [store.name, store] as const))(
    "every body field of startTimer and createProject (%s): a 400 INVALID_REQUEST naming the field, and the server goes on",
    (_, store) =>
    withServer(store, settings)(async (h) => {
      for (const c of bodyCases) {
        await fc.assert(
          fc.asyncProperty(fc.oneof(deepField, HostileJson.hostile()), async (hostile) => {
            fc.pre(!isPossiblyValid(c.name, hostile))
            const text = c.text(HostileJson.text(hostile))
            const reply = await post(h, c.path, text, { "idempotency-key": "hostile" })
            expectSmallError(reply, 400, "INVALID_REQUEST")
            const details = reply.body<{ error: { details: Record<string, unknown> } }>().error.details
            if (c.field !== undefined && Buffer.byteLength(text) <= 64 * 1024) expect(details["field"]).toBe(c.field)
            await expectServing(h)
          }),
          {
            numRuns: 25,
            examples: [[{ _tag: "Deep", depth: 5_000, pattern: [{ _tag: "Array" }], leaf: "x" }]]
          }
        )
      }
      expect(h.logs().filter((line) => line.logLevel !== "INFO")).toEqual([])
    })
  )

  it("bodies sent where none is read change nothing: every other route answers as without one", () =>
    withServer(memory, settings)(async (h) => {
      const routes: ReadonlyArray<readonly [string, string, number]> = [
        ["GET", "/api/v1/clients", 200],
        ["GET", `/api/v1/projects?clientId=${ids.globex}`, 200],
        ["GET", "/api/v1/timer", 200],
        ["GET", "/api/v1/time-entries", 200],
        ["POST", `/api/v1/timers/${ids.completed}/stop`, 409],
        ["GET", "/healthz", 200],
        ["GET", "/readyz", 200],
        ["GET", "/docs", 200],
        ["GET", "/api/v1/openapi.json", 200],
        ["GET", "/nowhere", 404]
      ]
      await fc.assert(
        fc.asyncProperty(HostileJson.hostile(), fc.constantFrom(...routes), async (hostile, [method, path, status]) => {
          const reply = await h.send({
            method,
            path,
            headers: { authorization: `Bearer ${keys.member}`, "idempotency-key": "k", "content-type": "application/json" },
            body: HostileJson.text(hostile)
          })
          expect(reply.status).toBe(status)
        }),
        { numRuns: 60 }
      )
      await expectServing(h)
    }))
})

/** Hostile text made safe for a URL or a header: percent-encoded, at most `max` characters (Node's limit is 16 KiB). */
const encoded = (max: number) =>
  HostileJson.hostile(4_000).map((hostile) =>
    encodeURIComponent(HostileJson.text(hostile)).slice(0, max).replace(/%[0-9A-F]?$/, "")
  )


describe("hostile query strings, paths and headers over HTTP", () => {
  it("every query parameter of every operation, and unknown ones: a 400 (and the probes, docs and document ignore them)", () =>
    withServer(memory, settings)(async (h) => {
      const cases: ReadonlyArray<readonly [string, string, string, ReadonlyArray<string>]> = [
        ["GET", "/api/v1/clients", "clientId", ["INVALID_REQUEST"]],
        ["GET", "/api/v1/timer", "x", ["INVALID_REQUEST"]],
        ["GET", "/api/v1/projects", "clientId", ["INVALID_REQUEST"]],
        ["GET", "/api/v1/time-entries", "projectId", ["INVALID_REQUEST"]],
        ["GET", "/api/v1/time-entries", "cursor", ["INVALID_REQUEST", "INVALID_CURSOR"]],
        ["GET", "/api/v1/time-entries", "limit", ["INVALID_REQUEST"]],
        ["POST", "/api/v1/projects", "clientId", ["INVALID_REQUEST"]],
        ["POST", "/api/v1/timers/start", "projectId", ["INVALID_REQUEST"]],
        ["POST", `/api/v1/timers/${ids.completed}/stop`, "timerId", ["INVALID_REQUEST"]]
      ]
      await fc.assert(
        fc.asyncProperty(encoded(8_000), fc.constantFrom(...cases), async (text, [method, path, parameter, codes]) => {
          const headers = { authorization: `Bearer ${keys.owner}`, "idempotency-key": "k" }
          for (const [probe, status] of [["/healthz", 200], ["/readyz", 200], ["/docs", 200], ["/api/v1/openapi.json", 200], ["/nowhere", 404]] as const) {
            expect((await h.send({ method: "GET", path: `${probe}?${parameter}=${text}`, headers })).status).toBe(status)
          }
          for (const query of [`${parameter}=${text}`, `${text}=1`, `${parameter}=1&${parameter}=${text}`]) {
            const reply = await h.send({ method, path: `${path}?${query}`, headers })
            expect(reply.status).toBe(400)
            expect(codes).toContain(reply.body<{ error: { code: string } }>().error.code)
            expectSmallError(reply, 400, reply.body<{ error: { code: string } }>().error.code)
          }
        }),
        { numRuns: 40 }
      )
      await expectServing(h)
    }))

  it("path segments (a timer id, unknown routes) and headers: a 4xx", () =>
    withServer(memory, settings)(async (h) => {
      await fc.assert(
        fc.asyncProperty(encoded(6_000), async (text) => {
          const headers = { authorization: `Bearer ${keys.owner}`, "idempotency-key": "k" }
          expectSmallError(await h.send({ method: "POST", path: `/api/v1/timers/${text}/stop`, headers }), 400, "INVALID_REQUEST")
          const unknown = await h.send({ method: "GET", path: `/${text.replace(/%2F/gi, "/")}`, headers })
          expect(unknown.status === 404 || unknown.status === 405).toBe(true)
          expect(unknown.text.length).toBeLessThanOrEqual(4_000)
          for (const path of ["/api/v1/clients", "/api/v1/timers/start", "/api/v1/time-entries"]) {
            const method = path.endsWith("start") ? "POST" : "GET"
            expectSmallError(await h.send({ method, path, headers: { authorization: `Bearer ${text}` } }), 401, "INVALID_API_KEY")
          }
          const key = await h.send({
            method: "POST",
            path: "/api/v1/timers/start",
            headers: { authorization: `Bearer ${keys.owner}`, "idempotency-key": text }
          })
          expect(key.status).toBe(400)
        }),
        { numRuns: 40 }
      )
      await expectServing(h)
    }))
})
