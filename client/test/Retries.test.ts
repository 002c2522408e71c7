/**
 * The client's retry rules against a real `stint serve` through a fault-injecting proxy: a timer mutation whose
 * outcome is uncertain (lost answer, 500, timeout) is retried with the same `Idempotency-Key` and the same bytes, and
 * the server's history shows exactly one change; createProject is never retried but reconciled; each logical call
 * gets its own key.
 */
import { InternalError, StintClient, type StintClientOptions, type TimeEntriesPage } from "@stint/client"
import { describe, expect, it } from "vitest"
import { fixture, ids, keyOf } from "./support/Fixture.js"
import * as Live from "./support/Live.js"

const live = Live.live(fixture(30))

let users = 0
/** A client for a user no other test uses, through the proxy, with short delays between tries. */
const newUser = (options: Partial<StintClientOptions> = {}) => {
  const n = ++users
  const client = new StintClient({
    baseUrl: live.proxy.url,
    apiKey: keyOf(n),
    retry: { initialDelayMillis: 20, maxDelayMillis: 100 },
    ...options
  })
  return { key: keyOf(n), client }
}

/** The user's history, read straight from the live.server. */
const historyOf = async (key: string) =>
  (await live.server.get<TimeEntriesPage>(key, "/api/v1/time-entries?limit=100")).entries

const exchanges = (path: RegExp) => live.proxy.log.filter((exchange) => path.test(exchange.path))
const START = /^\/api\/v1\/timers\/start$/
const STOP = /^\/api\/v1\/timers\/[^/]+\/stop$/

describe("a timer mutation with an uncertain outcome", () => {
  it("start: the answer is lost after the server handled it; the retry replays; one timer, one entry", async () => {
    const { client, key } = newUser()
    live.proxy.inject("POST", START, { _tag: "Drop" })
    const result = await client.startTimer({ projectId: ids.website, note: "lost answer" })
    expect(result.replayed).toBe(true)
    expect(result.timer?.projectId).toBe(ids.website)
    const tries = exchanges(START)
    expect(tries.map((t) => [t.fault, t.status])).toEqual([["Drop", 200], [undefined, 200]])
    expect(tries.map((t) => t.headers["idempotency-key"])).toEqual([result.idempotencyKey, result.idempotencyKey])
    expect(tries[1]?.body).toBe(tries[0]?.body)
    const history = await historyOf(key)
    expect(history.map((entry) => [entry.id, entry.status])).toEqual([[result.timer?.id, "active"]])
  })

  it("stop: the answer is lost after the server handled it; the retry replays; the entry is stopped once", async () => {
    const { client, key } = newUser()
    const started = await client.startTimer({ projectId: ids.backend })
    const timerId = started.timer?.id ?? ""
    live.proxy.inject("POST", STOP, { _tag: "Drop" })
    const stopped = await client.stopTimer(timerId)
    expect(stopped).toMatchObject({ timer: null, stoppedTimerId: timerId, replayed: true })
    const tries = exchanges(STOP)
    expect(tries.map((t) => [t.fault, t.status])).toEqual([["Drop", 200], [undefined, 200]])
    expect(new Set(tries.map((t) => t.headers["idempotency-key"]))).toEqual(new Set([stopped.idempotencyKey]))
    const history = await historyOf(key)
    expect(history.map((entry) => [entry.id, entry.status])).toEqual([[timerId, "completed"]])
    expect((await client.getActiveTimer()).timer).toBeNull()
  })

  it("start: a 500 once, before the server saw it; the retry starts the timer, once", async () => {
    const { client, key } = newUser()
    live.proxy.inject("POST", START, { _tag: "FailBefore" })
    const result = await client.startTimer({ projectId: ids.website })
    expect(result.replayed).toBe(false)
    const tries = exchanges(START)
    expect(tries.map((t) => [t.fault, t.forwardedAt === undefined])).toEqual([["FailBefore", true], [undefined, false]])
    expect(tries[1]?.headers["idempotency-key"]).toBe(tries[0]?.headers["idempotency-key"])
    expect((await historyOf(key)).map((entry) => entry.id)).toEqual([result.timer?.id])
  })

  it("start: a 500 once, after the server handled it; the retry replays, once", async () => {
    const { client, key } = newUser()
    live.proxy.inject("POST", START, { _tag: "FailAfter" })
    const result = await client.startTimer({ projectId: ids.website })
    expect(result.replayed).toBe(true)
    expect((await historyOf(key)).map((entry) => entry.id)).toEqual([result.timer?.id])
  })

  it("start: no answer within the timeout; the retry replays, once", async () => {
    const { client, key } = newUser({ timeoutMillis: 500 })
    live.proxy.inject("POST", START, { _tag: "Hold", millis: 2_000 })
    const result = await client.startTimer({ projectId: ids.backend })
    expect(result.replayed).toBe(true)
    expect(exchanges(START)).toHaveLength(2)
    expect((await historyOf(key)).map((entry) => entry.id)).toEqual([result.timer?.id])
  })

  it("stops after maxAttempts tries, all with one key and the same bytes, and fails with the last error", async () => {
    const { client, key } = newUser({ retry: { maxAttempts: 3, initialDelayMillis: 10, maxDelayMillis: 20 } })
    live.proxy.inject("POST", START, { _tag: "FailBefore" }, 10)
    const error = await client.startTimer({ projectId: ids.website, billable: false }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InternalError)
    expect(error).toMatchObject({ status: 500, code: "INTERNAL_ERROR", details: {} })
    expect((error as InternalError).requestId).toMatch(/^proxy-/)
    const tries = exchanges(START)
    expect(tries).toHaveLength(3)
    expect(new Set(tries.map((t) => t.headers["idempotency-key"])).size).toBe(1)
    expect(new Set(tries.map((t) => t.body))).toEqual(new Set([JSON.stringify({ projectId: ids.website, billable: false })]))
    expect(await historyOf(key)).toEqual([])
  })

  it("starts no retry once the deadline has passed", async () => {
    const { client } = newUser({ retry: { maxAttempts: 5, initialDelayMillis: 50, deadlineMillis: 0 } })
    live.proxy.inject("POST", START, { _tag: "FailBefore" }, 10)
    await expect(client.startTimer({ projectId: ids.website })).rejects.toBeInstanceOf(InternalError)
    expect(exchanges(START)).toHaveLength(1)
  })

  it("does not retry an answer that is not uncertain (a 404)", async () => {
    const { client } = newUser()
    await expect(client.startTimer({ projectId: ids.client })).rejects.toMatchObject({
      _tag: "ProjectNotFound",
      status: 404
    })
    expect(exchanges(START)).toHaveLength(1)
  })
})

describe("idempotency keys", () => {
  it("are fresh for each logical call, even with the same input; a caller's own key is sent as given", async () => {
    const { client } = newUser()
    const first = await client.startTimer({ projectId: ids.website })
    const second = await client.startTimer({ projectId: ids.website })
    const own = await client.startTimer({ projectId: ids.backend }, { idempotencyKey: "my-own-key-1" })
    expect(second.replayed).toBe(false)
    expect(second.stoppedTimerId).toBe(first.timer?.id)
    expect(new Set([first.idempotencyKey, second.idempotencyKey]).size).toBe(2)
    expect(exchanges(START).map((t) => t.headers["idempotency-key"])).toEqual([
      first.idempotencyKey,
      second.idempotencyKey,
      "my-own-key-1"
    ])
    expect(own.idempotencyKey).toBe("my-own-key-1")
  })
})

describe("createProject", () => {
  const PROJECTS = /^\/api\/v1\/projects(\?|$)/
  const namedIn = async (key: string, name: string) =>
    (await live.server.get<{ projects: Array<{ name: string }> }>(key, `/api/v1/projects?clientId=${ids.client}`))
      .projects.filter((project) => project.name === name)

  it("after a 500 once (the server created it), reconciles by listing: no duplicate, no second POST", async () => {
    const { client, key } = newUser()
    live.proxy.inject("POST", PROJECTS, { _tag: "FailAfter" })
    const result = await client.createProject({ clientId: ids.client, name: "Reconciled after 500" })
    expect(result.reconciled).toBe(true)
    expect(result.project).toMatchObject({ clientId: ids.client, name: "Reconciled after 500", color: "#ff5c35" })
    expect(exchanges(PROJECTS).map((t) => [t.method, t.status])).toEqual([["POST", 201], ["GET", 200]])
    expect(await namedIn(key, "Reconciled after 500")).toHaveLength(1)
  })

  it("after a lost answer, reconciles by listing", async () => {
    const { client, key } = newUser()
    live.proxy.inject("POST", PROJECTS, { _tag: "Drop" })
    const result = await client.createProject({ clientId: ids.client, name: "Reconciled after a drop", color: null })
    expect(result.reconciled).toBe(true)
    expect(exchanges(PROJECTS).map((t) => t.method)).toEqual(["POST", "GET"])
    expect(await namedIn(key, "Reconciled after a drop")).toHaveLength(1)
  })

  it("after a 500 before the server saw it, finds nothing and fails with the original error, never retrying", async () => {
    const { client, key } = newUser()
    live.proxy.inject("POST", PROJECTS, { _tag: "FailBefore" })
    const error = await client.createProject({ clientId: ids.client, name: "Never created" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InternalError)
    expect((error as InternalError).requestId).toMatch(/^proxy-/)
    expect(exchanges(PROJECTS).map((t) => t.method)).toEqual(["POST", "GET"])
    expect(await namedIn(key, "Never created")).toEqual([])
  })

  it("succeeds without reconciling when nothing goes wrong", async () => {
    const { client } = newUser()
    const result = await client.createProject({ clientId: ids.client, name: "Plain", color: "#00ff00" })
    expect(result).toMatchObject({ reconciled: false, project: { name: "Plain", color: "#00ff00" } })
    expect(exchanges(PROJECTS).map((t) => t.method)).toEqual(["POST"])
  })
})
