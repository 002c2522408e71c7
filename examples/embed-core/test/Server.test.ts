/**
 * The embedded server on a random port, over the in-memory store and over SQLite: a start and a stop over HTTP, and
 * the answers that belong to the transport (unknown path, wrong method, unreadable body, status of a core error).
 */
import { Fixture, MemoryStore } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import { randomUUID } from "node:crypto"
import { mkdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Demo from "../src/Demo.js"
import * as Server from "../src/Server.js"

// Made when the file's tests run, not when it is loaded: a run that filters them all out leaves nothing behind.
const dir = join(tmpdir(), `embed-core-${randomUUID()}`)
beforeAll(() => mkdirSync(dir))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const stores = [
  ["memory", () => MemoryStore.layerMemory],
  ["sqlite", () => SqliteStore.layer({ filename: join(dir, "stint.db") })]
] as const

describe.each(stores)("the embedded server on %s", (_name, store) => {
  let server: Server.Embedded
  let key: string
  beforeAll(async () => {
    server = await Server.start({ store: store(), port: 0 })
    key = (await server.run(Fixture.load(Demo.fixture))).apiKeys[0]?.key ?? ""
  })
  afterAll(() => server.close())

  interface Init {
    readonly key?: string
    readonly headers?: Record<string, string>
    readonly body?: string
  }
  const call = async (method: string, path: string, init: Init = {}) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${init.key ?? key}`, ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body })
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, body: JSON.parse(text) }
  }
  const json = { "content-type": "application/json" }

  it("starts a timer and stops it", async () => {
    const started = await call("POST", "/api/v1/timers/start", {
      headers: { ...json, "idempotency-key": "start-1" },
      body: JSON.stringify({ projectId: Demo.ids.project, note: "embedded" })
    })
    expect(started.status, started.text).toBe(200)
    expect(started.body).toMatchObject({
      timer: { projectId: Demo.ids.project, projectName: "Website", note: "embedded", payRateCents: 7500 },
      stoppedTimerId: null
    })
    expect(started.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    const timerId: string = started.body.timer.id

    const stopped = await call("POST", `/api/v1/timers/${timerId}/stop`, { headers: { "idempotency-key": "stop-1" } })
    expect(stopped.status, stopped.text).toBe(200)
    expect(stopped.body).toEqual({ timer: null, stoppedTimerId: timerId })
    expect(stopped.headers.get("idempotent-replayed")).toBeNull()

    const active = await call("GET", "/api/v1/timer")
    expect(active.body).toEqual({ timer: null })
    const history = await call("GET", "/api/v1/time-entries")
    expect(history.body.entries).toMatchObject([{ id: timerId, status: "completed" }])

    // The core replays the stored bytes; the server only adds the header.
    const replay = await call("POST", `/api/v1/timers/${timerId}/stop`, { headers: { "idempotency-key": "stop-1" } })
    expect(replay.text).toBe(stopped.text)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    const again = await call("POST", `/api/v1/timers/${timerId}/stop`, { headers: { "idempotency-key": "stop-2" } })
    expect([again.status, again.body.error.code]).toEqual([409, "TIMER_ALREADY_STOPPED"])
  })

  it("answers errors in the spec's shape with the status of each code", async () => {
    const cases = [
      [await call("GET", "/api/v1/clients", { key: "stint_not-a-real-key-at-all" }), 401, "INVALID_API_KEY"],
      [await call("GET", "/api/v1/nothing"), 404, "NOT_FOUND"],
      [await call("DELETE", "/api/v1/timer"), 405, "METHOD_NOT_ALLOWED"],
      [await call("POST", "/api/v1/projects", { headers: { "content-type": "text/plain" }, body: "{}" }),
        400, "INVALID_REQUEST"],
      [await call("POST", "/api/v1/timers/start", { headers: json, body: "{}" }), 400, "IDEMPOTENCY_KEY_REQUIRED"],
      [await call("GET", "/api/v1/time-entries?offset=20"), 400, "INVALID_REQUEST"]
    ] as const
    for (const [answer, status, code] of cases) {
      expect([answer.status, answer.body.error.code], answer.text).toEqual([status, code])
      expect(answer.body.requestId).toBe(answer.headers.get("x-request-id"))
      expect(answer.body.error.details).toBeTypeOf("object")
    }
    expect(cases[2][0].headers.get("allow")).toBe("GET")
  })
})
