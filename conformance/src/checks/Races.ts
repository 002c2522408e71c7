/**
 * Race checks for stacks that declare real concurrency: batches of starts, stops and duplicated idempotent requests
 * for one user, fired at once through two API keys of that user (so that nothing tied to one key, such as its
 * rate-limit count, can serialize them in the user's lock's place). The end state must be one the spec allows: never
 * two active entries (watched through the backdoor while the batch runs, when there is one), every idempotency key
 * executed once whichever key sent it, duplicates answered with the same bytes, the rate limit exact, and never a 5xx.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { expect } from "vitest"
import { as, expectError, expectSuccess, history, json } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import type { Outcome, Stack } from "../Stack.js"
import * as World from "../World.js"

/** Watches the store while `effect` runs; returns the most active entries ever seen at once. */
const watchActive = <A, E>(stack: Stack, world: World.World, effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const backdoor = stack.backdoor
    if (backdoor === undefined) return { result: yield* effect, mostActive: 0 }
    let mostActive = 0
    let done = false
    const watcher = yield* Effect.fork(Effect.gen(function*() {
      while (!done) {
        const ids = yield* backdoor.activeEntryIds(world.workspace, world.users.member)
        mostActive = Math.max(mostActive, ids.length)
        yield* Effect.sleep("1 millis")
      }
    }))
    const result = yield* Effect.ensuring(effect, Effect.sync(() => {
      done = true
    }))
    yield* Fiber.join(watcher)
    return { result, mostActive }
  })

const never5xx = (outcomes: ReadonlyArray<Outcome>) => {
  for (const outcome of outcomes) expect(outcome.status, outcome.text).toBeLessThan(500)
}

/** @since 0.1.0 */
export const register = (h: Harness, options: { readonly rounds: number }): void => {
  h.check("concurrent starts and stops for one user never make two active entries and execute each key once", (stack) =>
    Effect.gen(function*() {
      for (let round = 0; round < options.rounds; round++) {
        const world = yield* World.seed(stack)
        const key = world.keys.member
        // The user's two keys, in turn.
        const keys = [world.keys.member, world.keys.memberSecond]
        const keyOf = (i: number) => keys[i % 2] ?? key
        const projects = [world.projects.website, world.projects.app, world.projects.support]
        const starts = Array.from({ length: 16 }, (_, i) => ({ key: `s${i}`, projectId: projects[i % 3] ?? "" }))
        const requests: Array<Effect.Effect<readonly ["start" | "stop", string, Outcome]>> = [
          // Every start twice: its duplicate (`copy` 1) through the key the original (`copy` 0) did not use.
          ...[0, 1].flatMap((copy) =>
            starts.map((s, i) =>
              Effect.map(
                stack.call("startTimer", as(keyOf(i + copy), { idempotencyKey: s.key, body: json({ projectId: s.projectId }) })),
                (o) => ["start", s.key, o] as const
              )
            )
          ),
          ...Array.from({ length: 8 }, (_, i) =>
            Effect.gen(function*() {
              const current = expectSuccess(yield* stack.call("getActiveTimer", as(keyOf(i))), "getActiveTimer")
              const timerId = current.timer?.id ?? World.newId()
              return ["stop", `t${i}`, yield* stack.call("stopTimer", as(keyOf(i + 1), { idempotencyKey: `t${i}`, path: { timerId } }))] as const
            })
          )
        ]
        const { mostActive, result } = yield* watchActive(stack, world, Effect.all(requests, { concurrency: "unbounded" }))
        expect(mostActive, "two active entries were visible at once").toBeLessThanOrEqual(1)
        never5xx(result.map(([, , o]) => o))
        // Duplicates of one key got the same bytes, and each key made exactly one entry.
        const byKey = new Map<string, Set<string>>()
        for (const [kind, k, outcome] of result) {
          if (kind !== "start") continue
          expectSuccess(outcome, "startTimer")
          byKey.set(k, (byKey.get(k) ?? new Set()).add(outcome.text))
        }
        expect([...byKey.values()].every((texts) => texts.size === 1)).toBe(true)
        for (const [kind, , outcome] of result) {
          if (kind === "stop" && outcome.status !== 200) {
            expect(["TIMER_NOT_FOUND", "TIMER_ALREADY_STOPPED"]).toContain((outcome.body as { error: { code: string } }).error.code)
          }
        }
        const entries = yield* history(stack, key, { limit: 100 })
        expect(entries.length).toBe(starts.length)
        if (stack.backdoor !== undefined) {
          // Straight from the store: no duplicate entry hides behind the history's own reads.
          expect(yield* stack.backdoor.entryCount(world.workspace, world.users.member)).toBe(starts.length)
        }
        expect(entries.filter((e) => e["status"] === "active").length).toBeLessThanOrEqual(1)
        // One more start leaves exactly one active entry, completing whatever was running.
        const running = entries.find((e) => e["status"] === "active")?.["id"] ?? null
        const last = expectSuccess(
          yield* stack.call("startTimer", as(key, { idempotencyKey: "last", body: json({ projectId: world.projects.website }) })),
          "startTimer"
        )
        expect(last.stoppedTimerId).toBe(running)
        const after = yield* history(stack, key, { limit: 100 })
        expect(after.filter((e) => e["status"] === "active").map((e) => e["id"])).toEqual([last.timer?.id])
      }
    }), 120_000)

  h.check("requests under one idempotency key in flight at once execute once: the same input replays, other input conflicts", (stack) =>
    Effect.gen(function*() {
      for (let round = 0; round < options.rounds; round++) {
        const world = yield* World.seed(stack)
        const keys = [world.keys.member, world.keys.memberSecond]
        const request = (i: number) =>
          as(keys[i % 2] ?? world.keys.member, { idempotencyKey: "same", body: json({ projectId: world.projects.website }) })
        const outcomes = yield* Effect.all(Array.from({ length: 10 }, (_, i) => stack.call("startTimer", request(i))), {
          concurrency: "unbounded"
        })
        never5xx(outcomes)
        for (const outcome of outcomes) expectSuccess(outcome, "startTimer")
        expect(new Set(outcomes.map((o) => o.text)).size).toBe(1)
        expect(outcomes.filter((o) => o.replayed !== true).length).toBe(1)
        expect((yield* history(stack, world.keys.member)).length).toBe(1)
        if (stack.backdoor !== undefined) {
          expect(yield* stack.backdoor.entryCount(world.workspace, world.users.member)).toBe(1)
        }
        const stops = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            stack.call("stopTimer", as(keys[i % 2] ?? world.keys.member, { idempotencyKey: "stop", path: { timerId: (outcomes[0]?.body as { timer: { id: string } }).timer.id } }))
          ),
          { concurrency: "unbounded" }
        )
        for (const outcome of stops) expectSuccess(outcome, "stopTimer")
        expect(new Set(stops.map((o) => o.text)).size).toBe(1)

        // One key, two inputs, all in flight at once: whichever executes first, the others with its input replay it
        // and those with the other input wait for it and get IDEMPOTENCY_CONFLICT. Never a second execution.
        // Both inputs through both keys: requests 0 and 1 take the first project, 2 and 3 the second, and so on.
        const inputs = Array.from({ length: 10 }, (_, i) => ({
          key: keys[i % 2] ?? world.keys.member,
          projectId: Math.floor(i / 2) % 2 === 0 ? world.projects.website : world.projects.app
        }))
        const mixed = yield* Effect.all(
          inputs.map(({ key, projectId }) =>
            Effect.map(
              stack.call("startTimer", as(key, { idempotencyKey: "mixed", body: json({ projectId }) })),
              (outcome) => ({ projectId, outcome })
            )),
          { concurrency: "unbounded" }
        )
        never5xx(mixed.map((m) => m.outcome))
        const executed = mixed.filter((m) => m.outcome.status === 200 && m.outcome.replayed !== true)
        expect(executed.length).toBe(1)
        const winner = executed[0]
        for (const { outcome, projectId } of mixed) {
          if (projectId === winner?.projectId) {
            expectSuccess(outcome, "startTimer")
            expect(outcome.text).toBe(winner?.outcome.text)
          } else {
            expectError(outcome, "IDEMPOTENCY_CONFLICT")
          }
        }
        expect((yield* history(stack, world.keys.member)).length).toBe(2)
      }
    }), 120_000)

  h.check("accepts exactly 120 of 200 concurrent requests of one key", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const outcomes = yield* Effect.all(
        Array.from({ length: 200 }, (_, i) =>
          stack.call(i % 2 === 0 ? "listClients" : "getActiveTimer", as(world.keys.member))),
        { concurrency: 50 }
      )
      never5xx(outcomes)
      expect(outcomes.filter((o) => o.status === 200).length).toBe(120)
      for (const outcome of outcomes.filter((o) => o.status !== 200)) expectError(outcome, "API_KEY_RATE_LIMITED")
    }), 120_000)
}
