/**
 * The client's errors against a real `stint serve`: every error code of the spec's section 7 arrives as its own class
 * with the status, the `requestId` and the `details` the server sent; a 409 is reconciled with the active timer;
 * answers that do not decode, a wrong base URL, a lost connection and a timeout are their own typed errors; bad
 * options are refused at construction.
 */
import {
  ApiError,
  Forbidden,
  IdempotencyConflict,
  IdempotencyKeyRequired,
  InsufficientScope,
  InvalidApiKey,
  InvalidCursor,
  InvalidRequest,
  NetworkError,
  ProjectNotFound,
  RequestTimeout,
  ResourceNotFound,
  StintClient,
  type StintClientOptions,
  StintError,
  TimerAlreadyStopped,
  TimerNotFound,
  TimerVoided,
  UnexpectedResponse
} from "@stint/client"
import { describe, expect, it } from "vitest"
import * as FaultProxy from "./support/FaultProxy.js"
import { fixture, ids, keyOf, memberKey, readOnlyKey } from "./support/Fixture.js"
import * as Live from "./support/Live.js"

const live = Live.live(fixture(20))

let users = 0
const newClient = (options: Partial<StintClientOptions> = {}) =>
  new StintClient({
    baseUrl: live.proxy.url,
    apiKey: keyOf(++users),
    retry: { initialDelayMillis: 10, maxDelayMillis: 20 },
    ...options
  })

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then((value) => {
    throw new Error(`expected a failure, got ${JSON.stringify(value)}`)
  }, (error: unknown) => error)

/** Checks the error against the body the server sent, as the proxy saw it. */
const expectFromServer = (error: unknown, status: number, code: string) => {
  expect(error).toBeInstanceOf(ApiError)
  expect(error).toBeInstanceOf(StintError)
  const apiError = error as ApiError
  expect({ status: apiError.status, code: apiError.code }).toEqual({ status, code })
  const sent = live.proxy.log.filter((e) => e.status === status).at(-1)
  const body = JSON.parse(sent?.answer ?? "{}") as {
    error: { message: string; details: Record<string, unknown> }
    requestId: string
  }
  expect(apiError.requestId).toBe(body.requestId)
  expect(apiError.message).toBe(body.error.message)
  expect(apiError.details).toEqual(body.error.details)
}

describe("one class per error code, with the server's status, requestId and details", () => {
  it.each([
    ["INVALID_API_KEY", 401, InvalidApiKey, () => new StintClient({ baseUrl: live.proxy.url, apiKey: "stint_nobodysKey0000000" }).listClients()],
    ["INSUFFICIENT_SCOPE", 403, InsufficientScope, () => new StintClient({ baseUrl: live.proxy.url, apiKey: readOnlyKey }).listClients()],
    ["FORBIDDEN", 403, Forbidden, () =>
      new StintClient({ baseUrl: live.proxy.url, apiKey: memberKey }).createProject({ clientId: ids.client, name: "No" })],
    ["RESOURCE_NOT_FOUND", 404, ResourceNotFound, () => newClient().createProject({ clientId: ids.website, name: "No" })],
    ["PROJECT_NOT_FOUND", 404, ProjectNotFound, () => newClient().startTimer({ projectId: ids.client })],
    ["TIMER_NOT_FOUND", 404, TimerNotFound, () => newClient().stopTimer(ids.website)],
    ["INVALID_CURSOR", 400, InvalidCursor, () => newClient().listTimeEntries({ cursor: "bm90LWEtY3Vyc29y" })],
    ["IDEMPOTENCY_KEY_REQUIRED", 400, IdempotencyKeyRequired, () =>
      newClient().startTimer({ projectId: ids.website }, { idempotencyKey: "   " })]
  ] as const)("%s (%i)", async (code, status, type, call) => {
    const error = await failure(call())
    expect(error).toBeInstanceOf(type)
    expectFromServer(error, status, code)
    expect(live.proxy.log).toHaveLength(1)
  })

  it("INVALID_REQUEST (400) names the offending field in details", async () => {
    const error = await failure(newClient().startTimer({ projectId: ids.website, note: "x".repeat(501) }))
    expect(error).toBeInstanceOf(InvalidRequest)
    expectFromServer(error, 400, "INVALID_REQUEST")
    expect(JSON.stringify((error as InvalidRequest).details)).toContain("note")
  })
})

describe("a 409 is reconciled: the error carries the active timer read right after it", () => {
  it("TIMER_ALREADY_STOPPED carries the timer running now", async () => {
    const client = newClient()
    const first = await client.startTimer({ projectId: ids.website })
    const second = await client.startTimer({ projectId: ids.backend })
    const error = await failure(client.stopTimer(first.timer?.id ?? ""))
    expect(error).toBeInstanceOf(TimerAlreadyStopped)
    expectFromServer(error, 409, "TIMER_ALREADY_STOPPED")
    expect((error as TimerAlreadyStopped).activeTimer).toMatchObject({ id: second.timer?.id, projectId: ids.backend })
    expect(live.proxy.log.at(-1)?.path).toBe("/api/v1/timer")
  })

  it("IDEMPOTENCY_CONFLICT (a key reused for another input) carries the timer the first use started", async () => {
    const client = newClient()
    const first = await client.startTimer({ projectId: ids.website }, { idempotencyKey: "reused-key" })
    const error = await failure(client.startTimer({ projectId: ids.backend }, { idempotencyKey: "reused-key" }))
    expect(error).toBeInstanceOf(IdempotencyConflict)
    expectFromServer(error, 409, "IDEMPOTENCY_CONFLICT")
    expect((error as IdempotencyConflict).activeTimer?.id).toBe(first.timer?.id)
  })

  it("TIMER_VOIDED carries null when nothing runs", async () => {
    const client = newClient()
    const started = await client.startTimer({ projectId: ids.website })
    await live.server.admin(["entries", "void", "--id", started.timer?.id ?? ""])
    const error = await failure(client.stopTimer(started.timer?.id ?? ""))
    expect(error).toBeInstanceOf(TimerVoided)
    expect((error as TimerVoided).activeTimer).toBeNull()
  })

  it("carries undefined when the active timer cannot be read either", async () => {
    const client = newClient()
    const started = await client.startTimer({ projectId: ids.website })
    await client.stopTimer(started.timer?.id ?? "")
    live.proxy.inject("GET", /^\/api\/v1\/timer$/, { _tag: "FailBefore" }, 10)
    const error = await failure(client.stopTimer(started.timer?.id ?? ""))
    expect(error).toBeInstanceOf(TimerAlreadyStopped)
    expect((error as TimerAlreadyStopped).activeTimer).toBeUndefined()
  })
})

describe("answers the client cannot trust, and no answer at all", () => {
  it("a success that does not decode with the API's Schema is an UnexpectedResponse, not retried", async () => {
    live.proxy.inject("GET", /^\/api\/v1\/clients$/, {
      _tag: "Rewrite",
      body: (text) => text.replace("\"color\":\"#123abc\"", "\"color\":\"red\"")
    })
    const error = await failure(newClient().listClients())
    expect(error).toBeInstanceOf(UnexpectedResponse)
    expect(error).toMatchObject({ status: 200 })
    expect((error as UnexpectedResponse).reason).toContain("listClients")
    expect(live.proxy.log).toHaveLength(1)
  })

  it("a success nested 20,000 levels deep is an UnexpectedResponse whose reason stays short", async () => {
    const deep = `${"[".repeat(20_000)}1${"]".repeat(20_000)}`
    live.proxy.inject("GET", /^\/api\/v1\/clients$/, {
      _tag: "Rewrite",
      body: () => `{"clients":[{"id":${deep},"name":"x","color":"#123abc"}],"canCreateProjects":false}`
    })
    const error = await failure(newClient().listClients())
    expect(error).toBeInstanceOf(UnexpectedResponse)
    expect((error as UnexpectedResponse).reason).toMatch(/^the body does not match listClients's Schema: at clients\.0\.id: /)
    expect((error as UnexpectedResponse).reason.length).toBeLessThanOrEqual(200)
  })

  it("a body that is not JSON is an UnexpectedResponse", async () => {
    live.proxy.inject("GET", /^\/api\/v1\/timer$/, { _tag: "Rewrite", body: () => "<html>oops</html>" })
    await expect(newClient().getActiveTimer()).rejects.toBeInstanceOf(UnexpectedResponse)
  })

  it("a wrong base URL gets the server's NOT_FOUND: an UnexpectedResponse that says so", async () => {
    const client = new StintClient({ baseUrl: `${live.proxy.url}/nested/`, apiKey: keyOf(0) })
    const error = await failure(client.listClients())
    expect(error).toBeInstanceOf(UnexpectedResponse)
    expect(error).toMatchObject({ status: 404 })
    expect((error as UnexpectedResponse).reason).toMatch(/NOT_FOUND/)
    expect(live.proxy.log.map((e) => e.path)).toEqual(["/nested/api/v1/clients"])
  })

  it("a connection cut before any answer, every time: a NetworkError after maxAttempts tries", async () => {
    live.proxy.inject("GET", /^\/api\/v1\/timer$/, { _tag: "Drop" }, 10)
    await expect(newClient().getActiveTimer()).rejects.toBeInstanceOf(NetworkError)
    expect(live.proxy.log).toHaveLength(3)
  })

  it("nothing listening: a NetworkError", async () => {
    const closed = await FaultProxy.start(live.server.url)
    await closed.close()
    const client = new StintClient({ baseUrl: closed.url, apiKey: keyOf(0), retry: { initialDelayMillis: 1 } })
    await expect(client.listClients()).rejects.toBeInstanceOf(NetworkError)
  })

  it("no answer in time, every time: a RequestTimeout after maxAttempts tries", async () => {
    live.proxy.inject("GET", /^\/api\/v1\/timer$/, { _tag: "Hold", millis: 1_000 }, 10)
    const error = await failure(newClient({ timeoutMillis: 150 }).getActiveTimer())
    expect(error).toBeInstanceOf(RequestTimeout)
    expect(error).toMatchObject({ timeoutMillis: 150 })
    expect(live.proxy.log).toHaveLength(3)
  })
})

describe("values no request can carry are refused before anything is sent, never retried as network failures", () => {
  it("an Idempotency-Key with a character a header cannot carry: a TypeError naming it", async () => {
    for (const idempotencyKey of ["ключ", "a\nb", "zero\u200bwidth"]) {
      const error = await failure(newClient().startTimer({ projectId: ids.website }, { idempotencyKey }))
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toMatch(/^StintClient: idempotencyKey holds U\+[0-9A-F]{4} at index \d+/)
    }
    expect(live.proxy.log).toEqual([])
  })

  it("a timerId that URLs resolve away (empty, . or ..) would reach another route: a TypeError", async () => {
    for (const timerId of ["", ".", ".."]) {
      const error = await failure(newClient().stopTimer(timerId))
      expect(error).toBeInstanceOf(TypeError)
      expect((error as Error).message).toMatch(/^StintClient: stopTimer's timerId must be a UUID/)
    }
    expect(live.proxy.log).toEqual([])
  })

  it("a body JSON cannot hold rejects the call's Promise; the method itself does not throw", async () => {
    const cyclic: Record<string, unknown> = { projectId: ids.website }
    cyclic["self"] = cyclic
    const client = newClient()
    let started: Promise<unknown> | undefined
    expect(() => {
      started = client.startTimer(cyclic as never)
    }).not.toThrow()
    await expect(started).rejects.toBeInstanceOf(TypeError)
    await expect(client.createProject({ clientId: ids.client, name: 1n as never })).rejects.toBeInstanceOf(TypeError)
    expect(live.proxy.log).toEqual([])
  })
})

describe("options", () => {
  it.each([
    [{ baseUrl: "not a url" }, /baseUrl/],
    [{ apiKey: "stint_pasted\u200b" }, /apiKey holds U\+200B at index 12/],
    [{ apiKey: "stint_ключ" }, /apiKey holds U\+043A at index 6/],
    [{ baseUrl: "ftp://example.com" }, /baseUrl/],
    [{ apiKey: "" }, /apiKey/],
    [{ timeoutMillis: 0 }, /timeoutMillis/],
    [{ retry: { maxAttempts: 1.5 } }, /retry\.maxAttempts/],
    [{ retry: { deadlineMillis: -1 } }, /retry\.deadlineMillis/],
    [{ rateLimit: { limit: 0 } }, /rateLimit\.limit/],
    [{ rateLimit: { windowMillis: Number.NaN } }, /rateLimit\.windowMillis/]
  ] as const)("refuses %j", (options, message) => {
    expect(() => new StintClient({ baseUrl: "http://127.0.0.1:1", apiKey: "stint_x", ...options })).toThrow(
      new RegExp(`^StintClient: ${message.source}`)
    )
    expect(() => new StintClient({ baseUrl: "http://127.0.0.1:1", apiKey: "stint_x", ...options })).toThrow(TypeError)
  })
})
