/**
 * Bad input never produces a 500: generated requests (methods, paths, query pairs, headers, bodies of any JSON value or
 * none at all) get a 2xx or a 4xx, each valid under the served OpenAPI document (the harness checks every response).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import { ids, keys } from "./ServerFixture.js"
import { stores, withServer } from "./ServerHarness.js"

const text = fc.string({ unit: "grapheme", maxLength: 40 })
const ascii = fc.string({ unit: fc.constantFrom(..."abcXYZ019 -_.:~%+/=&?#\"'{}[]"), maxLength: 30 })

const segment = fc.oneof(
  fc.constantFrom(ids.website, ids.completed, ids.voided, ids.globex, "start", "stop", "x", "%zz", ""),
  ascii.map(encodeURIComponent)
)

const path = fc.oneof(
  fc.constantFrom(
    "/api/v1/clients",
    "/api/v1/projects",
    "/api/v1/timer",
    "/api/v1/timers/start",
    "/api/v1/time-entries",
    "/healthz",
    "/readyz"
  ),
  segment.map((id) => `/api/v1/timers/${id}/stop`),
  fc.array(segment, { maxLength: 5 }).map((parts) => `/${parts.join("/")}`)
)

const queryName = fc.oneof(fc.constantFrom("clientId", "projectId", "cursor", "limit", "offset"), ascii)
const queryValue = fc.oneof(fc.constantFrom(ids.globex, ids.website, "20", "0", "101", "abc", ""), text)
const query = fc.array(fc.tuple(queryName, queryValue), { maxLength: 4 }).map((pairs) =>
  pairs.length === 0 ? "" : `?${pairs.map(([n, v]) => `${encodeURIComponent(n)}=${encodeURIComponent(v)}`).join("&")}`
)

const body = fc.oneof(
  fc.constant(undefined),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.record({ projectId: fc.oneof(fc.constant(ids.website), text), note: fc.option(text), billable: fc.jsonValue() }, {
    requiredKeys: []
  }).map((value) => JSON.stringify(value)),
  fc.record({ clientId: fc.oneof(fc.constant(ids.globex), text), name: text, color: fc.jsonValue() }, {
    requiredKeys: []
  }).map((value) => JSON.stringify(value)),
  text
)

const request = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"),
  path,
  query,
  key: fc.constantFrom(keys.owner, keys.member, keys.noScope, keys.other, "stint_short", undefined),
  idempotencyKey: fc.option(ascii, { nil: undefined }),
  contentType: fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", undefined),
  body
})

for (const store of stores) {
  describe(`generated requests (${store.name})`, () => {
    it("never answer 5xx, and every answer matches the document", () =>
      withServer(store, { settings: { rateLimit: { limit: 1_000_000, windowMillis: 60_000 } } })(async (h) => {
        await fc.assert(
          fc.asyncProperty(request, async (r) => {
            const reply = await h.send({
              method: r.method,
              path: r.path + r.query,
              headers: {
                ...(r.key === undefined ? {} : { authorization: `Bearer ${r.key}` }),
                ...(r.idempotencyKey === undefined ? {} : { "idempotency-key": r.idempotencyKey }),
                ...(r.contentType === undefined ? {} : { "content-type": r.contentType })
              },
              ...(r.body === undefined ? {} : { body: r.body })
            })
            expect(reply.status).toBeLessThan(500)
          }),
          { numRuns: store.name === "memory" ? 400 : 150 }
        )
      }))
  })
}
