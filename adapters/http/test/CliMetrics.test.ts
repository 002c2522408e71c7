/**
 * `stint serve --metrics-port`: Prometheus metrics on a listener of their own (127.0.0.1 unless told), never on the
 * API's port, off unless asked for; and the counters move by exactly what a known sequence of requests did.
 */
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { build, serve, type Serving, stint, stintJson, tempDir } from "./CliHarness.js"
import { fixture, ids, ownerKey, writeJson } from "./CliFixture.js"
import * as PromText from "./PromText.js"
import { rawExchange } from "./ServerHarness.js"

const dir = tempDir()
beforeAll(build)
afterAll(dir.remove)

const running: Array<Serving> = []
afterEach(() => {
  for (const server of running.splice(0)) server.kill()
})
const start = async (...args: Parameters<typeof serve>) => {
  const server = await serve(...args)
  running.push(server)
  return server
}

let counter = 0
const seeded = async (content: unknown = fixture) => {
  const db = `sqlite:${join(dir.path, `metrics-${++counter}.db`)}`
  await stintJson(["seed", writeJson(join(dir.path, `fixture-${counter}.json`), content), "--database", db])
  return db
}

const metricsUrl = (server: Serving): string => {
  const line = server.lines.find((l) => l.startsWith("metrics on "))
  if (line === undefined) throw new Error(`no metrics line in:\n${server.lines.join("\n")}`)
  return line.slice("metrics on ".length)
}

const scrape = async (url: string) => {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/)
  return PromText.parse(await response.text())
}

const api = (server: Serving, method: string, path: string, options: {
  readonly idempotencyKey?: string
  readonly json?: unknown
  readonly key?: string
} = {}) =>
  fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${options.key ?? ownerKey}`,
      ...(options.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey }),
      ...(options.json === undefined ? {} : { "content-type": "application/json" })
    },
    ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) })
  })

/** How much the moved samples of `stint_http_requests_total` add up to, by their `method` label. */
const byMethod = (moved: Readonly<Record<string, number>>): Record<string, number> => {
  const sums: Record<string, number> = {}
  for (const [sample, by] of Object.entries(moved)) {
    const method = /method="([^"]*)"/.exec(sample)?.[1] ?? "(none)"
    sums[method] = (sums[method] ?? 0) + by
  }
  return sums
}

/** The status of `METHOD path` sent as written (no client library checks the method). */
const rawStatus = async (server: Serving, method: string, path: string): Promise<number> => {
  const headers = ["Host: 127.0.0.1", `Authorization: Bearer ${ownerKey}`, "Connection: close"]
  const request = `${method} ${path} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`
  const received = await rawExchange(Number(new URL(server.url).port), request)
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1])
}

const requests = (method: string, route: string, status: number, code = "none") =>
  PromText.sample("stint_http_requests_total", { code, method, route, status: String(status) })

describe("the metrics listener", () => {
  it("counts a 201, a start, its replay, a 409 and two 429s exactly, and the public port has no /metrics", async () => {
    const server = await start(["--port", "0", "--metrics-port", "0", "--database", await seeded()], {
      env: { STINT_RATE_LIMIT: "5", STINT_RATE_WINDOW_SECONDS: "600" }
    })
    const url = metricsUrl(server)
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*\/metrics$/)
    expect(new URL(url).port).not.toBe(new URL(server.url).port)
    const before = await scrape(url)
    // Counters without labels are there from the start.
    for (
      const name of [
        "stint_http_requests_aborted_total",
        "stint_rate_limit_rejections_total",
        "stint_idempotent_replays_total",
        "stint_idempotency_conflicts_total",
        "stint_timer_starts_total"
      ]
    ) {
      expect(before.get(PromText.sample(name)), name).toBe(0)
    }
    // So are the labelled ones an alert watches: a rate() over a series that does not exist yet is no data, not 0.
    for (
      const method of [
        "authenticate",
        "authenticateInTimerTransaction",
        "withTimerTransaction",
        "listClients",
        "listProjects",
        "createProject",
        "findActiveEntry",
        "listEntries",
        "ping"
      ]
    ) {
      expect(before.get(PromText.sample("stint_store_call_failures_total", { method })), method).toBe(0)
    }
    expect(before.get(PromText.sample("stint_timer_stops_total", { status: "completed" }))).toBe(0)

    const sent = performance.now()

    const created = await api(server, "POST", "/projects", { json: { clientId: ids.client, name: "Metrics" } })
    expect(created.status).toBe(201)
    const startBody = { projectId: ids.project }
    expect((await api(server, "POST", "/timers/start", { idempotencyKey: "m-1", json: startBody })).status).toBe(200)
    const replay = await api(server, "POST", "/timers/start", { idempotencyKey: "m-1", json: startBody })
    expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([200, "true"])
    const conflict = await api(server, "POST", "/timers/start", {
      idempotencyKey: "m-1",
      json: { ...startBody, note: "other input" }
    })
    expect(conflict.status).toBe(409)
    expect((await api(server, "GET", "/timer")).status).toBe(200)
    // The sixth request of the key within the window of 5, and a seventh: a start, refused inside its transaction.
    expect((await api(server, "GET", "/timer")).status).toBe(429)
    expect((await api(server, "POST", "/timers/start", { idempotencyKey: "m-2", json: startBody })).status).toBe(429)

    // Not on the API's port: the spec's 404.
    const publicMetrics = await fetch(`${server.url}/metrics`)
    expect(publicMetrics.status).toBe(404)
    expect(((await publicMetrics.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND")

    const after = await scrape(url)
    const elapsedSeconds = (performance.now() - sent) / 1000
    const counters = PromText.deltas(before, after, "stint_")
    // Durations are in seconds: together the requests took some time, and no more than the test waited for them.
    const durationSum = Object.entries(counters)
      .filter(([name]) => name.startsWith("stint_http_request_duration_seconds_sum"))
      .reduce((sum, [, by]) => sum + by, 0)
    expect(durationSum).toBeGreaterThan(0)
    expect(durationSum).toBeLessThanOrEqual(elapsedSeconds)
    const moved = Object.fromEntries(
      Object.entries(counters).filter(([name]) =>
        name.startsWith("stint_http_requests_total") || name.startsWith("stint_http_request_duration_seconds_count") ||
        /^stint_(rate_limit|idempotent|idempotency|timer|store_call_failures)/.test(name)
      )
    )
    expect(moved).toEqual({
      [requests("POST", "/api/v1/projects", 201)]: 1,
      [requests("POST", "/api/v1/timers/start", 200)]: 2,
      [requests("POST", "/api/v1/timers/start", 409, "IDEMPOTENCY_CONFLICT")]: 1,
      [requests("POST", "/api/v1/timers/start", 429, "API_KEY_RATE_LIMITED")]: 1,
      [requests("GET", "/api/v1/timer", 200)]: 1,
      [requests("GET", "/api/v1/timer", 429, "API_KEY_RATE_LIMITED")]: 1,
      [requests("GET", "none", 404, "NOT_FOUND")]: 1,
      [PromText.sample("stint_http_request_duration_seconds_count", { route: "/api/v1/projects" })]: 1,
      [PromText.sample("stint_http_request_duration_seconds_count", { route: "/api/v1/timers/start" })]: 4,
      [PromText.sample("stint_http_request_duration_seconds_count", { route: "/api/v1/timer" })]: 2,
      [PromText.sample("stint_http_request_duration_seconds_count", { route: "none" })]: 1,
      [PromText.sample("stint_rate_limit_rejections_total")]: 2,
      [PromText.sample("stint_idempotent_replays_total")]: 1,
      [PromText.sample("stint_idempotency_conflicts_total")]: 1,
      [PromText.sample("stint_timer_starts_total")]: 1
    })
    // Each request checked its key and counted against the limit in one store call, the 429 included; SQLite
    // authenticates the starts inside their timer transaction (one call each), the others on their own.
    expect(counters[PromText.sample("stint_store_call_duration_seconds_count", { method: "authenticate" })]).toBe(3)
    expect(counters[PromText.sample("stint_store_call_duration_seconds_count", { method: "authenticateInTimerTransaction" })])
      .toBe(4)
    expect(counters[PromText.sample("stint_store_call_duration_seconds_count", { method: "withTimerTransaction" })])
      .toBeUndefined()
    // Process metrics; no pool on SQLite.
    expect(after.get(PromText.sample("process_resident_memory_bytes"))).toBeGreaterThan(10_000_000)
    expect(after.get(PromText.sample("nodejs_eventloop_lag_seconds", { stat: "p99" }))).toBeGreaterThanOrEqual(0)
    expect([...after.keys()].some((name) => name.startsWith("stint_db_pool"))).toBe(false)

    // The listener serves only /metrics.
    expect((await fetch(new URL("/", url))).status).toBe(404)
  })

  it("counts each ended entry once, a start that replaced one included; a stop refused, or a key refused, is neither a conflict nor a rate-limit rejection", async () => {
    const revokedKey = "stint_fixtureRevokedKey01"
    const expiredKey = "stint_fixtureExpiredKey01"
    const server = await start(["--port", "0", "--metrics-port", "0", "--database", await seeded({
      ...fixture,
      apiKeys: [
        ...fixture.apiKeys,
        { key: revokedKey, userId: ids.owner, workspaceId: ids.workspace, revoked: true },
        { key: expiredKey, userId: ids.owner, workspaceId: ids.workspace, createdAt: "2020-01-01T00:00:00Z" }
      ]
    })])
    const url = metricsUrl(server)
    const before = await scrape(url)
    const startTimer = async (idempotencyKey: string) => {
      const response = await api(server, "POST", "/timers/start", { idempotencyKey, json: { projectId: ids.project } })
      expect(response.status).toBe(200)
      return (await response.json()) as { timer: { id: string }; stoppedTimerId: string | null }
    }
    const first = await startTimer("e-1")
    // The second start completes the first timer in the same step.
    const second = await startTimer("e-2")
    expect(second.stoppedTimerId).toBe(first.timer.id)
    expect((await api(server, "POST", `/timers/${second.timer.id}/stop`, { idempotencyKey: "e-3" })).status).toBe(200)
    // Stopping it again (a new key, no replay) is refused: the entry is not ended twice, and it is no conflict.
    const again = await api(server, "POST", `/timers/${second.timer.id}/stop`, { idempotencyKey: "e-4" })
    expect(again.status).toBe(409)
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("TIMER_ALREADY_STOPPED")
    // Keys the store finds but refuses, read and write alike: 401, not the rate limit.
    for (const key of [revokedKey, expiredKey]) {
      expect((await api(server, "GET", "/timer", { key })).status, key).toBe(401)
      expect((await api(server, "POST", "/timers/start", { key, idempotencyKey: "e-5", json: { projectId: ids.project } })).status, key)
        .toBe(401)
    }

    const moved = PromText.deltas(before, await scrape(url), "stint_")
    const events = Object.fromEntries(
      Object.entries(moved).filter(([name]) => /^stint_(rate_limit|idempotent|idempotency|timer)/.test(name))
    )
    expect(events).toEqual({
      [PromText.sample("stint_timer_starts_total")]: 2,
      [PromText.sample("stint_timer_stops_total", { status: "completed" })]: 2
    })
    expect(moved[requests("POST", "/api/v1/timers/:timerId/stop", 409, "TIMER_ALREADY_STOPPED")]).toBe(1)
    expect(moved[requests("GET", "/api/v1/timer", 401, "INVALID_API_KEY")]).toBe(2)
    expect(moved[requests("POST", "/api/v1/timers/start", 401, "INVALID_API_KEY")]).toBe(2)
  })

  it("counts a method that is not known as _OTHER: a client's choice of method adds no series", async () => {
    const server = await start(["--port", "0", "--metrics-port", "0", "--database", await seeded()])
    const url = metricsUrl(server)
    const before = await scrape(url)
    // Methods Node's parser knows, and tokens it does not (answered by stint serve itself): all reach the pipeline.
    const parsed = ["PURGE", "LOCK", "PROPFIND", "MKCOL"]
    const unparsed = ["FOO", "get"]
    for (const method of parsed) expect((await api(server, method, "/timer")).status).toBe(405)
    for (const method of unparsed) expect(await rawStatus(server, method, "/api/v1/timer")).toBe(405)
    expect((await api(server, "GET", "/timer")).status).toBe(200)
    const text = await (await fetch(url)).text()
    const moved = PromText.deltas(before, PromText.parse(text), "stint_http_requests_total")
    expect(byMethod(moved)).toEqual({ _OTHER: parsed.length + unparsed.length, GET: 1 })
    expect(moved[requests("GET", "/api/v1/timer", 200)]).toBe(1)
    for (const method of [...parsed, "FOO", "\"get\""]) expect(text).not.toContain(method)
  })

  it("OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS lists the known methods instead of OpenTelemetry's", async () => {
    const server = await start(["--port", "0", "--metrics-port", "0", "--database", await seeded()], {
      env: { OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS: "GET, PURGE" }
    })
    const url = metricsUrl(server)
    const before = await scrape(url)
    expect((await api(server, "PURGE", "/timer")).status).toBe(405)
    expect((await api(server, "LOCK", "/timer")).status).toBe(405)
    expect((await api(server, "POST", "/timer")).status).toBe(405)
    expect((await api(server, "GET", "/timer")).status).toBe(200)
    const moved = PromText.deltas(before, await scrape(url), "stint_http_requests_total")
    expect(byMethod(moved)).toEqual({ PURGE: 1, _OTHER: 2, GET: 1 })
  })

  it("target_info is the spans' resource: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, so metrics and traces join", async () => {
    const db = await seeded()
    const plain = await start(["--port", "0", "--metrics-port", "0", "--database", db])
    const text = async (server: Serving) => (await fetch(metricsUrl(server))).text()
    expect(await text(plain)).toMatch(/^target_info\{[^}]*service_name="stint"/m)
    const named = await start(["--port", "0", "--metrics-port", "0", "--database", db], {
      env: { OTEL_SERVICE_NAME: "stint-eu", OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test" }
    })
    const namedText = await text(named)
    expect(namedText).toMatch(/^target_info\{[^}]*service_name="stint-eu"/m)
    expect(namedText).toMatch(/^target_info\{[^}]*deployment_environment="test"/m)
  })

  it("is off unless asked for; STINT_METRICS_PORT asks for it", async () => {
    const db = await seeded()
    const off = await start(["--port", "0", "--database", db])
    expect(off.lines.some((line) => line.includes("metrics"))).toBe(false)
    const fromEnv = await start(["--port", "0", "--database", db], { env: { STINT_METRICS_PORT: "0" } })
    expect((await fetch(metricsUrl(fromEnv))).status).toBe(200)
  })

  it("refuses the API's own port and a port it cannot bind", async () => {
    const same = await stint(["serve", "--port", "45871", "--metrics-port", "45871", "--database", await seeded()])
    expect(same.code).toBe(2)
    expect(same.stderr).toContain("--metrics-port must differ from --port")
    const first = await start(["--port", "0", "--metrics-port", "0", "--database", await seeded()])
    const taken = new URL(metricsUrl(first)).port
    const second = await stint(["serve", "--port", "0", "--metrics-port", taken, "--database", await seeded()])
    expect(second.code).toBe(1)
    expect(second.stderr).toMatch(new RegExp(`^stint: cannot serve metrics on 127\\.0\\.0\\.1:${taken}: EADDRINUSE\\n$`))
  })
})
