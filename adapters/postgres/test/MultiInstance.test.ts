/**
 * Three real `stint serve` processes on one PostgreSQL database, requests spread over them: at most one active entry
 * at every moment we observe and exactly one after concurrent starts; identical idempotent requests executed once with
 * identical bodies; exactly 120 of 200 requests of one key accepted; and, while backends are terminated during traffic,
 * 500 INTERNAL_ERROR within a few seconds, no hang, service resumed without a restart, no acknowledged write lost.
 */
import { Fixture } from "@stint/core"
import { PgStore } from "@stint/postgres"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FreshDatabase, freshDatabase, withAdmin } from "../../../testing/postgres.js"
import { build, type Instance, serve } from "./stintServe.js"
import { apiKey, makeWorld } from "./support.js"

const INSTANCES = 3

let database: FreshDatabase
let backdoor: pg.Pool
let instances: ReadonlyArray<Instance> = []
const world = makeWorld()
/** More keys of the owner: each key has its own rate-limit window, so each test gets a fresh budget. */
const ownerKeys = Array.from({ length: 6 }, () => apiKey("owner"))

beforeAll(async () => {
  build()
  database = await freshDatabase()
  backdoor = new pg.Pool({ connectionString: database.url, max: 3 })
  backdoor.on("error", () => undefined)
  // Migrate and seed in-process; the servers then find the schema current.
  await Effect.runPromise(
    Fixture.load({
      ...world.fixture,
      apiKeys: [
        ...world.fixture.apiKeys,
        ...ownerKeys.map((key) => ({ key, userId: world.ids.owner, workspaceId: world.ids.workspace }))
      ]
    }).pipe(Effect.provide(PgStore.layer({ url: database.url, poolSize: 1 })))
  )
  instances = await Promise.all(Array.from({ length: INSTANCES }, () => serve(database.url)))
}, 120_000)

afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()))
  await backdoor?.end()
  await database?.drop()
})

interface Answer {
  readonly status: number
  readonly text: string
  readonly replayed: boolean
  readonly millis: number
}

/** One request to instance `i % 3`. */
const call = async (
  i: number,
  key: string,
  path: string,
  options: { readonly method?: string; readonly body?: unknown; readonly idempotencyKey?: string } = {}
): Promise<Answer> => {
  const instance = instances[i % INSTANCES]
  if (instance === undefined) throw new Error("no instance")
  const headers: Record<string, string> = { authorization: `Bearer ${key}` }
  if (options.body !== undefined) headers["content-type"] = "application/json"
  if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey
  const began = Date.now()
  const response = await fetch(`${instance.url}${path}`, {
    method: options.method ?? "GET",
    headers,
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(30_000)
  })
  const text = await response.text()
  return { status: response.status, text, replayed: response.headers.get("idempotent-replayed") === "true", millis: Date.now() - began }
}

const startTimer = (i: number, key: string, idempotencyKey: string, projectId: string) =>
  call(i, key, "/api/v1/timers/start", { method: "POST", body: { projectId }, idempotencyKey })

const stopTimer = (i: number, key: string, idempotencyKey: string, timerId: string) =>
  call(i, key, `/api/v1/timers/${timerId}/stop`, { method: "POST", idempotencyKey })

const activeIds = async (userId: string): Promise<ReadonlyArray<string>> =>
  (await backdoor.query<{ id: string }>(
    "SELECT id FROM time_entries WHERE workspace_id = $1 AND user_id = $2 AND status = 'active'",
    [world.ids.workspace, userId]
  )).rows.map((row) => row.id)

/** Polls the number of active entries of a user until `stop()`; returns the largest count seen and how often. */
const observe = (userId: string) => {
  let going = true
  let max = 0
  let observations = 0
  const loop = (async () => {
    while (going) {
      max = Math.max(max, (await activeIds(userId)).length)
      observations++
    }
  })()
  return async () => {
    going = false
    await loop
    return { max, observations }
  }
}

const codeOf = (answer: Answer): string => answer.status === 200 ? "ok" : (JSON.parse(answer.text) as { error: { code: string } }).error.code

describe(`${INSTANCES} stint serve processes on one database`, () => {
  it("60 concurrent starts spread over the instances: exactly one active entry, each start completing exactly one other", async () => {
    const stopObserving = observe(world.ids.owner)
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) =>
      startTimer(i, ownerKeys[0] ?? "", `start-${i}`, i % 2 ? world.ids.website : world.ids.vaccine)))
    const observed = await stopObserving()
    expect(answers.map(codeOf)).toEqual(Array(60).fill("ok"))
    const bodies = answers.map((a) => JSON.parse(a.text) as { timer: { id: string }; stoppedTimerId: string | null })
    const stopped = bodies.flatMap((b) => (b.stoppedTimerId === null ? [] : [b.stoppedTimerId]))
    expect(stopped).toHaveLength(59)
    expect(new Set(stopped).size).toBe(59)
    const active = await activeIds(world.ids.owner)
    expect(active).toHaveLength(1)
    expect(new Set([...stopped, ...active])).toEqual(new Set(bodies.map((b) => b.timer.id)))
    expect(observed.max).toBeLessThanOrEqual(1)
    console.log(`60 starts over ${INSTANCES} processes: ${observed.observations} observations, at most ${observed.max} active`)
  })

  it("60 concurrent starts and stops: at most one active entry at every observation, only errors the client caused", async () => {
    const stopObserving = observe(world.ids.owner)
    const answers = await Promise.all(Array.from({ length: 60 }, async (_, i) => {
      const key = ownerKeys[1 + (i % 2)] ?? ""
      if (i % 2 === 0) return startTimer(i, key, `mixed-start-${i}`, world.ids.website)
      const current = await call(i, key, "/api/v1/timer")
      const timer = (JSON.parse(current.text) as { timer: { id: string } | null }).timer
      return timer === null ? current : stopTimer(i + 1, key, `mixed-stop-${i}`, timer.id)
    }))
    const observed = await stopObserving()
    for (const code of new Set(answers.map(codeOf))) expect(["ok", "TIMER_ALREADY_STOPPED"]).toContain(code)
    expect(observed.max).toBeLessThanOrEqual(1)
    const last = await startTimer(0, ownerKeys[1] ?? "", "mixed-last", world.ids.website)
    expect(last.status).toBe(200)
    expect(await activeIds(world.ids.owner)).toHaveLength(1)
  })

  it("10 identical idempotent requests spread over the instances execute once and answer identical bodies", async () => {
    const before = (await backdoor.query("SELECT 1 FROM time_entries WHERE user_id = $1", [world.ids.member])).rowCount
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      startTimer(i, world.keys.member, "the-same-key", world.ids.website)))
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200))
    expect(new Set(answers.map((a) => a.text)).size).toBe(1)
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1)
    const after = (await backdoor.query("SELECT 1 FROM time_entries WHERE user_id = $1", [world.ids.member])).rowCount
    expect((after ?? 0) - (before ?? 0)).toBe(1)
  })

  it("200 requests of one key spread over the instances within a minute: exactly 120 accepted", async () => {
    const key = ownerKeys[3] ?? ""
    const began = Date.now()
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i, key, "/api/v1/timer")))
    const elapsed = Date.now() - began
    expect(elapsed).toBeLessThan(60_000)
    const statuses = new Map<number, number>()
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1)
    expect(Object.fromEntries(statuses)).toEqual({ 200: 120, 429: 80 })
    console.log(`200 requests of one key over ${INSTANCES} processes in ${elapsed} ms: 120 accepted, 80 refused`)
  })

  it("backends terminated during traffic: 500 within a few seconds, no hang, service resumed without a restart, no acknowledged write lost", async () => {
    // Each worker is a user of its own (with its own key), retrying a 500 with the same Idempotency-Key.
    const workers = Array.from({ length: 6 }, () => ({ userId: randomUUID(), key: apiKey("w") }))
    await Effect.runPromise(Fixture.load({
      users: workers.map((w) => ({ id: w.userId, name: "W", email: "w@example.com" })),
      memberships: workers.map((w) => ({ workspaceId: world.ids.workspace, userId: w.userId, role: "member" })),
      assignments: workers.map((w) => ({ projectId: world.ids.website, userId: w.userId })),
      apiKeys: workers.map((w) => ({ key: w.key, userId: w.userId, workspaceId: world.ids.workspace }))
    }).pipe(Effect.provide(PgStore.layer({ url: database.url, poolSize: 1 }))))
    const answers: Array<Answer> = []
    const started: Array<string> = []
    const stoppedIds: Array<string> = []
    let going = true
    let n = 0
    const retried = async (send: () => Promise<Answer>): Promise<Answer> => {
      for (let attempt = 0;; attempt++) {
        const answer = await send()
        answers.push(answer)
        if (answer.status !== 500 || attempt >= 50) return answer
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    const traffic = workers.map(async (w, wi) => {
      // The default rate limit applies; a run of a few seconds stays far below 120 requests per key.
      while (going) {
        const i = n++
        const start = await retried(() => startTimer(i + wi, w.key, `f-start-${i}`, world.ids.website))
        if (start.status !== 200) continue
        const id = (JSON.parse(start.text) as { timer: { id: string } }).timer.id
        started.push(id)
        const stop = await retried(() => stopTimer(i + wi + 1, w.key, `f-stop-${i}`, id))
        if (stop.status === 200) stoppedIds.push(id)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
    })
    await new Promise((resolve) => setTimeout(resolve, 500))
    let terminated = 0
    for (let round = 0; round < 10; round++) {
      terminated += await withAdmin((client) =>
        client.query<{ n: number }>(
          "SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'stint'",
          [database.name]
        )
      ).then((result) => result.rows[0]?.n ?? 0)
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    going = false
    await Promise.all(traffic)
    const codes = new Set(answers.map(codeOf))
    for (const code of codes) expect(["ok", "INTERNAL_ERROR"]).toContain(code)
    expect(terminated).toBeGreaterThan(0)
    const slowest = Math.max(...answers.map((a) => a.millis))
    expect(slowest).toBeLessThan(6_000)
    const rows = await backdoor.query<{ id: string; status: string }>("SELECT id, status FROM time_entries WHERE id = ANY($1::uuid[])", [started])
    const status = new Map(rows.rows.map((row) => [row.id, row.status]))
    for (const id of started) expect(status.has(id)).toBe(true)
    for (const id of stoppedIds) expect(status.get(id)).toBe("completed")
    // The same processes serve again.
    for (const [i, w] of workers.entries()) {
      const again = await startTimer(i, w.key, `after-${i}`, world.ids.website)
      expect(again.status).toBe(200)
    }
    console.log(`terminated ${terminated} backends under ${INSTANCES} processes: ${answers.length} answers, ` +
      `${answers.filter((a) => a.status === 500).length} were 500, slowest ${slowest} ms, ${started.length} starts acknowledged`)
  })
})
