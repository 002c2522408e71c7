/**
 * The Effect face against a real `stint serve`: the `StintClient` service from `layer` on `FetchHttpClient`, failures
 * as the same error classes (caught by tag), `timeEntries` as a `Stream`, and interruption that aborts the request in
 * flight.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { describe, expect, it } from "@effect/vitest"
import { StintClient as PromiseClient, TimerAlreadyStopped } from "@stint/client"
import * as StintClient from "@stint/client/StintClient"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { fixture, ids, keyOf } from "./support/Fixture.js"
import * as Live from "./support/Live.js"

const live = Live.live(fixture(5, 25))

const layerOf = (user: number) =>
  StintClient.layer({ baseUrl: live.proxy.url, apiKey: keyOf(user) }).pipe(Layer.provide(FetchHttpClient.layer))

describe("StintClient (Effect)", () => {
  it.live("starts and stops; a 409 fails with the same class as the Promise face, caught by its tag", () =>
    Effect.gen(function*() {
      const stint = yield* StintClient.StintClient
      const started = yield* stint.startTimer({ projectId: ids.website, note: "from Effect" })
      expect(started.timer).toMatchObject({ projectId: ids.website, note: "from Effect", billable: true })
      const timerId = started.timer?.id ?? ""
      const stopped = yield* stint.stopTimer(timerId)
      expect(stopped).toMatchObject({ timer: null, stoppedTimerId: timerId, replayed: false })
      const again = yield* Effect.flip(stint.stopTimer(timerId))
      expect(again).toBeInstanceOf(TimerAlreadyStopped)
      const caught = yield* stint.stopTimer(timerId).pipe(
        Effect.map(() => "stopped"),
        Effect.catchTag("TimerAlreadyStopped", (error) => Effect.succeed(`already stopped; running: ${error.activeTimer}`))
      )
      expect(caught).toBe("already stopped; running: null")
    }).pipe(Effect.provide(layerOf(1))))

  it.live("timeEntries is a Stream over every page", () =>
    Effect.gen(function*() {
      const stint = yield* StintClient.StintClient
      const entries = yield* Stream.runCollect(stint.timeEntries({ pageSize: 10 }))
      expect(Chunk.toReadonlyArray(entries).map((entry) => entry.id)).toEqual(
        Array.from({ length: 25 }, (_, n) => ids.entry(0, 24 - n))
      )
      expect(live.proxy.log).toHaveLength(3)
    }).pipe(Effect.provide(layerOf(0))))

  it.live("interrupting a call aborts its request", () =>
    Effect.gen(function*() {
      live.proxy.inject("GET", /^\/api\/v1\/timer$/, { _tag: "Hold", millis: 3_000 })
      const stint = yield* StintClient.StintClient
      const fiber = yield* Effect.fork(stint.getActiveTimer())
      while (live.proxy.log.length === 0) yield* Effect.sleep("10 millis")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      yield* Effect.sleep("100 millis")
      expect(live.proxy.log.map((e) => e.abandoned)).toEqual([true])
    }).pipe(Effect.provide(layerOf(2))))

  it("answers like the Promise face: one implementation", async () => {
    const promised = await new PromiseClient({ baseUrl: live.proxy.url, apiKey: keyOf(3) }).listClients()
    const effected = await Effect.runPromise(
      Effect.flatMap(StintClient.StintClient, (stint) => stint.listClients()).pipe(Effect.provide(layerOf(3)))
    )
    expect(effected).toEqual(promised)
  })
})
