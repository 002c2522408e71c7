/**
 * Examples for idempotent start and stop: replays byte for byte, conflicts, scoping, failures not stored, retention.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { as, expectError, expectSuccess, history, json, startOk } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import * as World from "../World.js"

/** @since 0.1.0 */
export const register = (h: Harness): void => {
  h.check("requires a usable Idempotency-Key on start and stop, before input validation", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (const idempotencyKey of [undefined, "", "   ", "\t", "x".repeat(256), ` ${"y".repeat(256)} `]) {
        expectError(
          yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey, body: json({ projectId: "bad" }) })),
          "IDEMPOTENCY_KEY_REQUIRED"
        )
        expectError(
          yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey, path: { timerId: "bad" } })),
          "IDEMPOTENCY_KEY_REQUIRED"
        )
      }
      // 255 characters after trimming is usable.
      yield* startOk(stack, world.keys.member, world.projects.website, {}, `  ${"z".repeat(255)}  `)
    })
  )

  h.check("replays a start byte for byte, without executing it again, even after the state moved on", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const first = yield* startOk(stack, world.keys.member, world.projects.website, { note: "n" }, "key-1")
      expect(first.outcome.replayed ?? false).toBe(false)
      const second = yield* startOk(stack, world.keys.member, world.projects.app)
      // Same key (compared after trimming), JSON-equal body written differently: the stored response.
      const replay = yield* stack.call(
        "startTimer",
        as(world.keys.member, { idempotencyKey: "  key-1 ", body: json({ note: "n", projectId: world.projects.website }) })
      )
      expectSuccess(replay, "startTimer")
      expect(replay.text).toBe(first.outcome.text)
      expect(replay.replayed).toBe(true)
      if (replay.headers !== undefined) {
        expect(replay.headers["idempotent-replayed"]).toBe("true")
        expect(replay.headers["x-request-id"]).not.toBe(first.outcome.headers?.["x-request-id"])
      }
      // Both started at the same instant on the kit's clock: the order between them is the ids'.
      const entries = yield* history(stack, world.keys.member)
      expect(entries.map((e) => e["id"]).sort()).toEqual([second.id, first.id].sort())
    })
  )

  h.check("replays a stop instead of answering TIMER_ALREADY_STOPPED", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const started = yield* startOk(stack, world.keys.member, world.projects.website)
      const request = as(world.keys.member, { idempotencyKey: "stop-1", path: { timerId: started.id } })
      const first = yield* stack.call("stopTimer", request)
      expectSuccess(first, "stopTimer")
      const again = yield* stack.call("stopTimer", { ...request, body: json({ ignored: true }) })
      expectSuccess(again, "stopTimer")
      expect(again.text).toBe(first.text)
      expect(again.replayed).toBe(true)
      // The same path parameter written in upper case names the same timer: still a replay.
      const upper = yield* stack.call("stopTimer", { ...request, path: { timerId: started.id.toUpperCase() } })
      expect(upper.text).toBe(first.text)
    })
  )

  h.check("answers IDEMPOTENCY_CONFLICT for different input under a used key, across operations too", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const started = yield* startOk(stack, world.keys.member, world.projects.website, {}, "k")
      const conflicts = [
        ["startTimer", { body: json({ projectId: world.projects.app }) }],
        ["startTimer", { body: json({ projectId: world.projects.website, billable: true }) }],
        ["startTimer", { body: json({ projectId: world.projects.website.toUpperCase() }) }],
        ["stopTimer", { path: { timerId: started.id } }]
      ] as const
      for (const [operation, request] of conflicts) {
        expectError(yield* stack.call(operation, as(world.keys.member, { idempotencyKey: "k", ...request })), "IDEMPOTENCY_CONFLICT")
      }
      // Input is validated before the replay check.
      expectError(
        yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: "k", body: json({ projectId: 1 }) })),
        "INVALID_REQUEST"
      )
      expect((yield* history(stack, world.keys.member)).length).toBe(1)
    })
  )

  h.check("answers IDEMPOTENCY_CONFLICT for a stop's key reused on another timer, and stops nothing", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const first = yield* startOk(stack, world.keys.member, world.projects.website)
      const stopped = yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: "s", path: { timerId: first.id } }))
      expectSuccess(stopped, "stopTimer")
      const second = yield* startOk(stack, world.keys.member, world.projects.app)
      // The timer id is the stop's input: another timer under the same key is other input, not a replay.
      expectError(
        yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: "s", path: { timerId: second.id } })),
        "IDEMPOTENCY_CONFLICT"
      )
      expectError(
        yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: "s", body: json({ projectId: world.projects.app }) })),
        "IDEMPOTENCY_CONFLICT"
      )
      const active = expectSuccess(yield* stack.call("getActiveTimer", as(world.keys.member)), "getActiveTimer")
      expect(active.timer?.id).toBe(second.id)
      // The first stop is still replayed under its key.
      const replay = yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: "s", path: { timerId: first.id } }))
      expect(replay.text).toBe(stopped.text)
      expect(replay.replayed).toBe(true)
    })
  )

  h.check("scopes keys to the API key's user and workspace", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const mine = yield* startOk(stack, world.keys.member, world.projects.website, {}, "shared")
      const owners = yield* startOk(stack, world.keys.owner, world.projects.website, {}, "shared")
      const elsewhere = yield* startOk(stack, world.keys.memberElsewhere, world.projects.foreign, {}, "shared")
      expect(new Set([mine.id, owners.id, elsewhere.id]).size).toBe(3)
      // Another key of the same user in the same workspace shares the key space.
      const other = yield* Effect.orDie(stack.seed({
        apiKeys: [{ key: World.newKey(), userId: world.users.member, workspaceId: world.workspace }]
      }))
      const sameUser = yield* stack.call(
        "startTimer",
        as(other.apiKeys[0]?.key ?? "", { idempotencyKey: "shared", body: json({ projectId: world.projects.website }) })
      )
      expect(sameUser.text).toBe(mine.outcome.text)
    })
  )

  h.check("compares keys exactly: keys that differ only in case are different keys", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const upper = yield* startOk(stack, world.keys.member, world.projects.website, {}, "Case-K1")
      // Another input under the other case: no conflict, a second execution.
      const lower = yield* startOk(stack, world.keys.member, world.projects.app, {}, "case-k1")
      expect(lower.outcome.replayed ?? false).toBe(false)
      expect(lower.stoppedTimerId).toBe(upper.id)
      // The same input under the other case: executed again, not a replay of the first.
      const same = yield* startOk(stack, world.keys.member, world.projects.website, {}, "CASE-K1")
      expect(same.outcome.replayed ?? false).toBe(false)
      expect(same.stoppedTimerId).toBe(lower.id)
      expect((yield* history(stack, world.keys.member)).length).toBe(3)
    })
  )

  h.check("does not store failures: a key whose first use failed can be used again with other input", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      expectError(
        yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: "retry", body: json({ projectId: world.projects.unassigned }) })),
        "PROJECT_NOT_FOUND"
      )
      expectError(
        yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: "retry", path: { timerId: World.newId() } })),
        "TIMER_NOT_FOUND"
      )
      const started = yield* startOk(stack, world.keys.member, world.projects.website, {}, "retry")
      expect(started.outcome.replayed ?? false).toBe(false)
    })
  )
}

/**
 * Idempotency examples that need the stack's clock in the kit's hand.
 *
 * @since 0.1.0
 */
export const registerTimed = (h: Harness): void => {
  h.check("remembers a key for 24 hours, also across other writes, then executes it again", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const first = yield* startOk(stack, world.keys.member, world.projects.website, {}, "daily")
      yield* stack.clock.advance(24 * 60 * 60 * 1000 - 1)
      // A write of another user first: a store forgets expired keys as it writes (of any scope, at any time), and one
      // that forgets a key a moment early is seen only when a write comes between.
      yield* startOk(stack, world.keys.owner, world.projects.website, {}, "another user's")
      const replay = yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: "daily", body: json({ projectId: world.projects.website }) }))
      expect(replay.text).toBe(first.outcome.text)
      yield* stack.clock.advance(1)
      const fresh = yield* startOk(stack, world.keys.member, world.projects.website, {}, "daily")
      expect(fresh.stoppedTimerId).toBe(first.id)
      expect(fresh.outcome.replayed ?? false).toBe(false)
      // The second execution's record replaced the expired one: retried at once, it replays that execution.
      const again = yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: "daily", body: json({ projectId: world.projects.website }) }))
      expect(again.replayed).toBe(true)
      expect(again.text).toBe(fresh.outcome.text)
      expect((yield* history(stack, world.keys.member)).length).toBe(2)
    })
  )

  h.check("a key used again after its 24 hours with other input runs that input, and is then that input's key", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const body = (note: string) => json({ projectId: world.projects.website, note })
      const first = yield* startOk(stack, world.keys.member, world.projects.website, { note: "monday" }, "daily")
      // No other write in between: the expired record is still stored when the key comes again.
      yield* stack.clock.advance(24 * 60 * 60 * 1000)
      const fresh = yield* startOk(stack, world.keys.member, world.projects.website, { note: "tuesday" }, "daily")
      expect(fresh.outcome.replayed ?? false).toBe(false)
      expect(fresh.stoppedTimerId).toBe(first.id)
      // Retried at once, the new input replays the new execution; the old input is now the conflict.
      const again = yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: "daily", body: body("tuesday") }))
      expect(again.replayed).toBe(true)
      expect(again.text).toBe(fresh.outcome.text)
      expectError(
        yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: "daily", body: body("monday") })),
        "IDEMPOTENCY_CONFLICT"
      )
      expect((yield* history(stack, world.keys.member)).length).toBe(2)
    })
  )
}
