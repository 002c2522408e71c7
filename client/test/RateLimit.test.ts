/**
 * The client-side rate limit against a real `stint serve` with a short window (`STINT_RATE_LIMIT` 120 per
 * `STINT_RATE_WINDOW_SECONDS` 4): a burst of 300 calls on one key is queued, never refused, and what the proxy forwarded
 * shows the server could never have counted more than 120 in any window; a 429 caused by another user of the key is
 * waited out for reads and timer mutations, never for createProject.
 */
import { ApiKeyRateLimited, StintClient } from "@stint/client"
import { describe, expect, it } from "vitest"
import * as FaultProxy from "./support/FaultProxy.js"
import { fixture, ids, keyOf } from "./support/Fixture.js"
import * as Live from "./support/Live.js"

const LIMIT = 120
const WINDOW_MILLIS = 4_000

const live = Live.live(fixture(10), {
    STINT_RATE_LIMIT: String(LIMIT),
    STINT_RATE_WINDOW_SECONDS: String(WINDOW_MILLIS / 1000)
  })

const clientOf = (user: number, limit = LIMIT) =>
  new StintClient({
    baseUrl: live.proxy.url,
    apiKey: keyOf(user),
    rateLimit: { limit, windowMillis: WINDOW_MILLIS },
    retry: { rateLimitedRetries: limit === Infinity ? 0 : 3 }
  })

/** 300 calls at once: reads of every kind, and starts. */
const burst = (client: StintClient) =>
  Promise.allSettled(Array.from({ length: 300 }, (_, n) => {
    switch (n % 5) {
      case 0:
        return client.getActiveTimer()
      case 1:
        return client.listClients()
      case 2:
        return client.listProjects(ids.client)
      case 3:
        return client.listTimeEntries({ limit: 5 })
      default:
        return client.startTimer({ projectId: n % 2 === 0 ? ids.website : ids.backend })
    }
  }))

/**
 * The most requests the server can have counted in one window, from what the proxy saw: the server counts a request
 * at some instant between its forwarding and its answer, so at instant `t` its window can hold only requests forwarded
 * by `t` and answered after `t - window`. The count can only rise at a forwarding instant, so those are the instants
 * to check.
 */
const mostInAnyWindow = (log: ReadonlyArray<FaultProxy.Exchange>, windowMillis: number): number => {
  const spans = log.flatMap((e) =>
    e.forwardedAt === undefined || e.answeredAt === undefined ? [] : [[e.forwardedAt, e.answeredAt] as const]
  )
  return Math.max(0, ...spans.map(([t]) => spans.filter(([from, to]) => from <= t && to + windowMillis > t).length))
}

describe("the client-side window", () => {
  it("queues a burst of 300 calls: no 429, and never more than 120 in any window on the server", async () => {
    const client = clientOf(1)
    const started = Date.now()
    const results = await burst(client)
    const elapsed = Date.now() - started
    expect(results.filter((r) => r.status === "rejected")).toEqual([])
    // Every call was forwarded (a 5xx on a busy machine would add a retry) and the server refused none.
    expect(live.proxy.log.length).toBeGreaterThanOrEqual(300)
    expect(live.proxy.log.filter((e) => e.status === 429)).toEqual([])
    expect(mostInAnyWindow(live.proxy.log, WINDOW_MILLIS)).toBeLessThanOrEqual(LIMIT)
    // The queue did its work: 300 requests need at least two windows beyond the first.
    expect(elapsed).toBeGreaterThanOrEqual(2 * WINDOW_MILLIS)
  })

  it("(control) without it, the same burst overruns the window and the server answers 429", async () => {
    const client = clientOf(2, Infinity)
    const results = await burst(client)
    const refused = results.flatMap((r) => r.status === "rejected" ? [r.reason] : [])
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((reason) => reason instanceof ApiKeyRateLimited)).toBe(true)
    expect(live.proxy.log.some((e) => e.status === 429)).toBe(true)
    expect(mostInAnyWindow(live.proxy.log, WINDOW_MILLIS)).toBeGreaterThan(LIMIT)
  })
})

describe("a 429 that still happens (another process uses the key)", () => {
  /** Fills the key's window on the server directly, until the server refuses. */
  const fillWindow = async (key: string) => {
    for (let sent = 0; sent < 10 * LIMIT; sent += 20) {
      const statuses = await Promise.all(Array.from({ length: 20 }, () =>
        fetch(`${live.server.url}/api/v1/timer`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => {
          await r.arrayBuffer()
          return r.status
        })))
      if (statuses.includes(429)) return
    }
    throw new Error("the window never filled")
  }

  it("a read waits for the window and is retried", async () => {
    const client = clientOf(3)
    await fillWindow(keyOf(3))
    const started = Date.now()
    const { clients } = await client.listClients()
    expect(clients.map((c) => c.id)).toEqual([ids.client])
    expect(live.proxy.log.map((e) => e.status)).toEqual([429, 200])
    // Nothing of its own was in the window, so it waited for a whole window.
    expect(Date.now() - started).toBeGreaterThanOrEqual(WINDOW_MILLIS)
  })

  it("a start is retried with its idempotency key", async () => {
    const client = clientOf(4)
    await fillWindow(keyOf(4))
    const result = await client.startTimer({ projectId: ids.website })
    expect(result.replayed).toBe(false)
    expect(live.proxy.log.map((e) => [e.status, e.headers["idempotency-key"]])).toEqual([
      [429, result.idempotencyKey],
      [200, result.idempotencyKey]
    ])
  })

  it("a wait that would start the retry after retry.deadlineMillis is not waited: the 429 is the call's failure", async () => {
    const client = new StintClient({
      baseUrl: live.proxy.url,
      apiKey: keyOf(6),
      rateLimit: { limit: LIMIT, windowMillis: WINDOW_MILLIS },
      retry: { deadlineMillis: WINDOW_MILLIS / 4 }
    })
    await fillWindow(keyOf(6))
    const started = Date.now()
    const error = await client.listClients().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiKeyRateLimited)
    // Nothing of its own was in the window: the wait would have been a whole window, past the deadline.
    expect(Date.now() - started).toBeLessThan(WINDOW_MILLIS / 4)
    expect(live.proxy.log.map((e) => e.status)).toEqual([429])
  })

  it("createProject, a mutation without an idempotency key, is not retried", async () => {
    const client = clientOf(5)
    await fillWindow(keyOf(5))
    const error = await client.createProject({ clientId: ids.client, name: "Rate limited" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiKeyRateLimited)
    expect(error).toMatchObject({ status: 429, code: "API_KEY_RATE_LIMITED" })
    expect(live.proxy.log.map((e) => [e.method, e.status])).toEqual([["POST", 429]])
  })
})
