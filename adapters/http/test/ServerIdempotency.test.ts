/**
 * Idempotent timer mutations over HTTP (decisions page, "Idempotency"): byte-identical replays with
 * `Idempotent-Replayed: true` and a new `X-Request-Id`, what "same input" means, key scope and trimming, only
 * successes stored, the place of replay in the order of checks, and concurrent requests with one key. Also the rate
 * limit's place in the order of checks.
 */
import { describe, expect, it } from "@effect/vitest"
import { Admin, type Schemas } from "@stint/core"
import { ids, keys } from "./ServerFixture.js"
import { expectError, type Harness, stores, withServer } from "./ServerHarness.js"

const start = (h: Harness, idempotencyKey: string, body: string, key: string = keys.member) =>
  h.send({
    method: "POST",
    path: "/api/v1/timers/start",
    headers: { authorization: `Bearer ${key}`, "idempotency-key": idempotencyKey, "content-type": "application/json" },
    body
  })

const website = JSON.stringify({ projectId: ids.website, note: "n", billable: true })

for (const store of stores) {
  describe(`idempotency (${store.name})`, () => {
    it("a retry replays the first response byte for byte, with Idempotent-Replayed and a new X-Request-Id", () =>
      withServer(store)(async (h) => {
        const first = await start(h, "k", website)
        expect(first.status).toBe(200)
        expect(first.headers["idempotent-replayed"]).toBeUndefined()
        await new Promise((resolve) => setTimeout(resolve, 1100))
        const again = await start(h, "k", website)
        expect(again.status).toBe(200)
        expect(again.text).toBe(first.text)
        expect(again.headers["idempotent-replayed"]).toBe("true")
        expect(again.requestId).not.toBe(first.requestId)
        // Nothing ran twice.
        const entries = await h.api("GET", "/api/v1/time-entries?limit=2", { key: keys.member })
        expect(entries.body<Schemas.TimeEntriesPage>().entries.filter((e) => e.status === "active").length).toBe(1)

        const timerId = first.body<Schemas.TimerMutationResponse>().timer?.id ?? ""
        const stop = () => h.api("POST", `/api/v1/timers/${timerId}/stop`, { key: keys.member, idempotencyKey: "s" })
        const stopped = await stop()
        const stoppedAgain = await stop()
        expect(stoppedAgain.text).toBe(stopped.text)
        expect(stoppedAgain.headers["idempotent-replayed"]).toBe("true")
        expect(stopped.headers["idempotent-replayed"]).toBeUndefined()
      }))

    it("same input means a JSON-equal body: key order and whitespace do not matter; keys are compared trimmed", () =>
      withServer(store)(async (h) => {
        const first = await start(h, "k", website)
        const reordered = await start(h, "  k ", ` { "billable" : true, "note":"n",\n "projectId": "${ids.website}" } `)
        expect(reordered.text).toBe(first.text)
        expect(reordered.headers["idempotent-replayed"]).toBe("true")
        expectError(await start(h, "k", JSON.stringify({ projectId: ids.website, note: "n" })), 409, "IDEMPOTENCY_CONFLICT")
      }))

    it("keys are scoped to the API key's user and workspace", () =>
      withServer(store)(async (h) => {
        const mia = await start(h, "shared", website)
        const olivia = await start(h, "shared", website, keys.owner)
        expect(olivia.status).toBe(200)
        expect(olivia.headers["idempotent-replayed"]).toBeUndefined()
        expect(olivia.text).not.toBe(mia.text)
        // The same user's other API key shares the user's keys.
        const other = await start(h, "shared", website, keys.member2)
        expect(other.text).toBe(mia.text)
      }))

    it("only successes are stored: a key whose first use failed can be used again with other input", () =>
      withServer(store)(async (h) => {
        expectError(await start(h, "retry", JSON.stringify({ projectId: ids.apps })), 404, "PROJECT_NOT_FOUND")
        expectError(await start(h, "retry", "{\"projectId\": 1}"), 400, "INVALID_REQUEST")
        const ok = await start(h, "retry", website)
        expect(ok.status).toBe(200)
        expect(ok.headers["idempotent-replayed"]).toBeUndefined()
      }))

    it("order of checks: input is checked before a replay, a replay before business rules", () =>
      withServer(store)(async (h) => {
        const first = await start(h, "k", website)
        expectError(await start(h, "k", "{\"projectId\": \"nope\"}"), 400, "INVALID_REQUEST")
        await h.run(Admin.setArchived("project", ids.website, true))
        const replay = await start(h, "k", website)
        expect(replay.text).toBe(first.text)
        expectError(await start(h, "fresh", website), 404, "PROJECT_NOT_FOUND")
      }))

    it("two requests with one key at once execute once: one answer, the other its replay", () =>
      withServer(store)(async (h) => {
        const replies = await Promise.all(Array.from({ length: 6 }, () => start(h, "race", website)))
        expect(new Set(replies.map((r) => r.status))).toEqual(new Set([200]))
        expect(new Set(replies.map((r) => r.text)).size).toBe(1)
        expect(replies.filter((r) => r.headers["idempotent-replayed"] === undefined).length).toBe(1)
        const page = await h.api("GET", "/api/v1/time-entries?limit=5", { key: keys.member })
        expect(page.body<Schemas.TimeEntriesPage>().entries.filter((e) => e.status === "active").length).toBe(1)
      }))

    it("concurrent starts with different keys leave exactly one active timer", () =>
      withServer(store)(async (h) => {
        const replies = await Promise.all(Array.from({ length: 8 }, (_, i) => start(h, `k${i}`, website)))
        expect(replies.map((r) => r.status)).toEqual(Array.from({ length: 8 }, () => 200))
        const page = await h.api("GET", "/api/v1/time-entries?limit=20", { key: keys.member })
        const entries = page.body<Schemas.TimeEntriesPage>().entries
        expect(entries.filter((e) => e.status === "active").length).toBe(1)
        const stopped = replies.map((r) => r.body<Schemas.TimerMutationResponse>().stoppedTimerId).filter((id) => id !== null)
        expect(stopped.length).toBe(7)
      }))
  })

  describe(`rate limit in the order of checks (${store.name})`, () => {
    it("every authenticated request counts, refused or not; the limit comes before the scope; unauthenticated ones do not count", () =>
      withServer(store)(async (h) => {
        for (let i = 0; i < 30; i++) expectError(await h.api("GET", "/api/v1/clients", {}), 401, "INVALID_API_KEY")
        for (let i = 0; i < 120; i++) {
          expectError(await h.api("GET", "/api/v1/clients", { key: keys.noScope }), 403, "INSUFFICIENT_SCOPE")
        }
        expectError(await h.api("GET", "/api/v1/clients", { key: keys.noScope }), 429, "API_KEY_RATE_LIMITED")
        expectError(await h.api("POST", "/api/v1/timers/start", { key: keys.noScope }), 429, "API_KEY_RATE_LIMITED")
      }))
  })
}
