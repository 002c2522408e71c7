/**
 * Every call of the Promise face takes an `AbortSignal`: aborting it rejects the call with the signal's reason at
 * once, whether the request is in flight (the connection is closed), the call waits in the rate-limit queue (nothing
 * is sent), it waits before a retry, or a walk over the history is between pages.
 */
import { StintClient } from "@stint/client"
import { describe, expect, it } from "vitest"
import { fixture, ids, keyOf } from "./support/Fixture.js"
import * as Live from "./support/Live.js"

const live = Live.live(fixture(8, 30))

const abortAfter = (millis: number) => AbortSignal.timeout(millis)

/** Waits until the proxy has received `count` requests. */
const received = async (count: number) => {
  while (live.proxy.log.length < count) await new Promise((resolve) => setTimeout(resolve, 10))
}

/** Resolves with how the promise settled and how long that took. */
const settle = async (promise: Promise<unknown>) => {
  const started = Date.now()
  const outcome = await promise.then((value) => ({ value }), (error: unknown) => ({ error }))
  return { ...outcome, millis: Date.now() - started }
}

describe("an AbortSignal", () => {
  it("aborts a request in flight: the call rejects with the reason and the connection is closed", async () => {
    live.proxy.inject("GET", /^\/api\/v1\/timer$/, { _tag: "Hold", millis: 3_000 })
    const client = new StintClient({ baseUrl: live.proxy.url, apiKey: keyOf(1) })
    const controller = new AbortController()
    const call = settle(client.getActiveTimer({ signal: controller.signal }))
    await received(1)
    controller.abort()
    const outcome = await call
    expect(outcome).toMatchObject({ error: controller.signal.reason })
    expect((outcome as { error: DOMException }).error.name).toBe("AbortError")
    expect(outcome.millis).toBeLessThan(2_000)
    await new Promise((resolve) => setTimeout(resolve, 100))
    expect(live.proxy.log.map((e) => e.abandoned)).toEqual([true])
  })

  it("aborts a start waiting before its retry: no further try", async () => {
    live.proxy.inject("POST", /^\/api\/v1\/timers\/start$/, { _tag: "FailBefore" })
    const client = new StintClient({
      baseUrl: live.proxy.url,
      apiKey: keyOf(2),
      retry: { initialDelayMillis: 5_000, maxDelayMillis: 5_000 }
    })
    const controller = new AbortController()
    const call = settle(client.startTimer({ projectId: ids.website }, { signal: controller.signal }))
    await received(1)
    await new Promise((resolve) => setTimeout(resolve, 100))
    controller.abort(new Error("changed my mind"))
    const outcome = await call
    expect(outcome).toMatchObject({ error: new Error("changed my mind") })
    expect(outcome.millis).toBeLessThan(2_000)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(live.proxy.log).toHaveLength(1)
  })

  it("aborts a call waiting in the rate-limit queue: nothing is sent", async () => {
    const client = new StintClient({ baseUrl: live.proxy.url, apiKey: keyOf(3), rateLimit: { limit: 1, windowMillis: 60_000 } })
    await client.listClients()
    const outcome = await settle(client.listClients({ signal: abortAfter(200) }))
    expect(outcome).toHaveProperty("error")
    expect(outcome.millis).toBeLessThan(2_000)
    expect(live.proxy.log).toHaveLength(1)
  })

  it("already aborted: rejects without sending anything", async () => {
    const client = new StintClient({ baseUrl: live.proxy.url, apiKey: keyOf(4) })
    const reason = new Error("before it began")
    await expect(client.listClients({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason)
    expect(live.proxy.log).toHaveLength(0)
  })

  it("aborts a walk over the history between pages", async () => {
    const client = new StintClient({ baseUrl: live.proxy.url, apiKey: keyOf(0) })
    const controller = new AbortController()
    const reason = new Error("enough")
    const walked: Array<string> = []
    const outcome = await settle((async () => {
      for await (const entry of client.timeEntries({ pageSize: 5 }, { signal: controller.signal })) {
        walked.push(entry.id)
        if (walked.length === 7) controller.abort(reason)
      }
    })())
    expect(outcome).toMatchObject({ error: reason })
    expect(walked).toHaveLength(7)
    expect(live.proxy.log.length).toBeLessThanOrEqual(2)
  })
})
