/**
 * The definition works as a client: `HttpApiClient.make(Api)` drives a real server through all seven operations, and
 * decodes the spec's error bodies into typed failures (what the conformance kit relies on).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { describe, expect, it } from "@effect/vitest"
import { Api } from "@stint/http"
import * as Effect from "effect/Effect"
import { ids, keys } from "./ServerFixture.js"
import { stores, withServer } from "./ServerHarness.js"

const clientFor = (port: number, key: string) =>
  HttpApiClient.make(Api.Api, {
    baseUrl: `http://127.0.0.1:${port}`,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
  })

const run = <A, E>(effect: Effect.Effect<A, E, HttpClient.HttpClient>) =>
  Effect.runPromise(Effect.provide(effect, FetchHttpClient.layer))

for (const store of stores) {
  describe(`HttpApiClient.make(Api) (${store.name})`, () => {
    it("calls every operation and decodes every success", () =>
      withServer(store)(async (h) => {
        await run(Effect.gen(function*() {
          const member = yield* clientFor(h.port, keys.member)
          const owner = yield* clientFor(h.port, keys.owner)
          const clients = yield* member.clients.listClients()
          expect(clients.clients.map((c) => c.id)).toEqual([ids.globex])
          const projects = yield* member.projects.listProjects({ urlParams: { clientId: ids.globex } })
          expect(projects.projects.map((p) => p.id)).toEqual([ids.mobile, ids.website])
          const created = yield* owner.projects.createProject({ payload: { clientId: ids.globex, name: "Typed" } })
          expect(created.project.name).toBe("Typed")
          expect((yield* member.timers.getActiveTimer()).timer).toBeNull()
          const started = yield* member.timers.startTimer({
            headers: { "idempotency-key": "client-1" },
            payload: { projectId: ids.website, note: "typed" }
          })
          expect(started.timer?.note).toBe("typed")
          const timerId = started.timer?.id ?? ""
          const stopped = yield* member.timers.stopTimer({
            path: { timerId },
            headers: { "idempotency-key": "client-2" }
          })
          expect(stopped).toEqual({ timer: null, stoppedTimerId: timerId })
          const page = yield* member.timeEntries.listTimeEntries({ urlParams: { limit: "2" } })
          expect(page.entries.map((e) => e.id)[0]).toBe(timerId)
          expect(page.nextCursor).toEqual(expect.any(String))
        }))
      }))

    it("decodes the spec's error bodies into typed failures, by status and code", () =>
      withServer(store)(async (h) => {
        await run(Effect.gen(function*() {
          const member = yield* clientFor(h.port, keys.member)
          const stranger = yield* clientFor(h.port, "stint_unknownKey000000000000001")
          const codeOf = <A, E>(effect: Effect.Effect<A, E>) =>
            Effect.map(Effect.flip(effect), (error) =>
              typeof error === "object" && error !== null && "error" in error ? error.error : error)
          expect(yield* codeOf(stranger.clients.listClients())).toMatchObject({ code: "INVALID_API_KEY" })
          expect(yield* codeOf(member.projects.createProject({ payload: { clientId: ids.globex, name: "No" } })))
            .toMatchObject({ code: "FORBIDDEN" })
          expect(
            yield* codeOf(member.timers.startTimer({ headers: { "idempotency-key": "e" }, payload: { projectId: ids.apps } }))
          ).toMatchObject({ code: "PROJECT_NOT_FOUND" })
          expect(
            yield* codeOf(member.timers.stopTimer({ path: { timerId: ids.voided }, headers: { "idempotency-key": "f" } }))
          ).toMatchObject({ code: "TIMER_VOIDED" })
          expect(
            yield* codeOf(member.timers.stopTimer({ path: { timerId: ids.completed }, headers: { "idempotency-key": "g" } }))
          ).toMatchObject({ code: "TIMER_ALREADY_STOPPED" })
          expect(yield* codeOf(member.timeEntries.listTimeEntries({ urlParams: { cursor: "forged" } })))
            .toMatchObject({ code: "INVALID_CURSOR" })
        }))
      }))
  })
}
