/**
 * Many fibers starting and stopping timers for one user at once, with duplicated idempotency keys: at most one active
 * entry at the end, every key executed once, duplicates answered with identical bytes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Random } from "effect"
import { Fixture, MemoryStore, Operations, Request, Settings } from "@stint/core"

const id = (n: number) => `0190a6b2-0000-7000-8000-${String(n).padStart(12, "0")}`
const W = id(1), U = id(2), C = id(3)
const projects = [id(4), id(5), id(6)]
const KEY = `stint_${"k".repeat(43)}`

const world = {
  workspaces: [{ id: W, name: "Acme" }],
  users: [{ id: U, name: "Ada", email: "ada@example.com" }],
  memberships: [{ workspaceId: W, userId: U, role: "member" }],
  clients: [{ id: C, workspaceId: W, name: "Globex" }],
  projects: projects.map((p, i) => ({ id: p, clientId: C, name: `P${i}` })),
  assignments: projects.map((p) => ({ projectId: p, userId: U })),
  apiKeys: [{ key: KEY, userId: U, workspaceId: W }]
}

const real = Clock.make()
/** Reading the clock takes up to 2 ms of real time, so any step not guarded by the store's lock interleaves. */
const jitter = Effect.flatMap(Random.nextIntBetween(0, 3), (ms) => real.sleep(Duration.millis(ms)))
const slowClock: Clock.Clock = {
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => real.unsafeCurrentTimeMillis(),
  unsafeCurrentTimeNanos: () => real.unsafeCurrentTimeNanos(),
  sleep: (duration) => real.sleep(duration),
  currentTimeMillis: Effect.zipRight(jitter, real.currentTimeMillis),
  currentTimeNanos: Effect.zipRight(jitter, real.currentTimeNanos)
}

describe("concurrency on the memory store", () => {
  it.live("never holds two active entries and executes each idempotency key once", () =>
    Effect.gen(function*() {
      yield* Fixture.load(world)
      const authorization = `Bearer ${KEY}`
      // 40 distinct keys, each sent 3 times at once; plus stops of whatever is running.
      const starts = Array.from({ length: 40 }, (_, i) => ({
        key: `start-${i}`,
        projectId: projects[i % projects.length] ?? C
      }))
      const requests = starts.flatMap((s) => [s, s, s])
      const shuffled = yield* Random.shuffle(requests)
      const results = yield* Effect.all(
        [
          ...[...shuffled].map((s) =>
            Operations.startTimer({ authorization, idempotencyKey: s.key, body: Request.json({ projectId: s.projectId }) })
              .pipe(Effect.map((r) => ({ key: s.key, json: r.json })))
          ),
          ...Array.from({ length: 30 }, (_, i) =>
            Operations.getActiveTimer({ authorization }).pipe(
              Effect.flatMap((r) =>
                r.timer === null
                  ? Effect.void
                  : Effect.ignore(Operations.stopTimer({ authorization, idempotencyKey: `stop-${i}`, path: { timerId: r.timer.id } }))
              ),
              Effect.as(undefined)
            )
          )
        ],
        { concurrency: "unbounded" }
      )
      const byKey = new Map<string, Set<string>>()
      for (const result of results) {
        if (result === undefined) continue
        const set = byKey.get(result.key) ?? new Set()
        set.add(result.json)
        byKey.set(result.key, set)
      }
      // Every duplicate got the same bytes.
      expect([...byKey.values()].every((set) => set.size === 1)).toBe(true)
      const { tables } = yield* MemoryStore.MemoryDriver
      const entries = [...tables.entries.values()]
      // Each key created exactly one entry.
      expect(entries.length).toBe(40)
      expect(entries.filter((e) => e.status === "active").length).toBeLessThanOrEqual(1)
      // Completed entries never overlap: the timeline of one user is a sequence.
      const ended = entries.filter((e) => e.endedAt !== null).sort((a, b) => a.startedAt - b.startedAt)
      for (const e of ended) expect(e.endedAt ?? 0).toBeGreaterThanOrEqual(e.startedAt)
    }).pipe(
      Effect.withClock(slowClock),
      Effect.provide(MemoryStore.layerMemory),
      Effect.provideService(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 10_000, windowMillis: 60_000 } })
    ))
})
