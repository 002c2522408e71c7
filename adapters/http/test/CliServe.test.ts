/**
 * `stint serve` as a process: the ready line with the real port, `--demo` (a key and a curl line that works, once),
 * host/port/rate-limit configuration from flags and environment, and the graceful stop on SIGTERM/SIGINT.
 */
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { connect, createServer, type Socket } from "node:net"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import * as Demo from "../src/cli/Demo.js"
import { build, serve, type Serving, stint, stintJson, tempDir } from "./CliHarness.js"
import { fixture, ids, ownerKey, writeJson } from "./CliFixture.js"

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
const freshDb = () => `sqlite:${join(dir.path, `serve-${++counter}.db`)}`
const seeded = async () => {
  const db = freshDb()
  await stintJson(["seed", writeJson(join(dir.path, `fixture-${counter}.json`), fixture), "--database", db])
  return db
}

const sh = (line: string): Promise<{ code: number; stdout: string }> =>
  new Promise((resolve) => {
    execFile("sh", ["-c", line], { timeout: 20_000 }, (error, stdout) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout }))
  })

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

describe("the ready line", () => {
  it("--port 0 picks a free port and prints it; the printed address serves", async () => {
    const server = await start(["--port", "0", "--database", freshDb()])
    const port = Number(new URL(server.url).port)
    expect(port).toBeGreaterThan(0)
    expect(server.url).toBe(`http://127.0.0.1:${port}`)
    const response = await fetch(`${server.url}/healthz`)
    expect(response.status).toBe(200)
  })

  it("STINT_HOST and STINT_PORT replace the defaults; flags win over them", async () => {
    const fromEnv = await start(["--database", freshDb()], { env: { STINT_HOST: "0.0.0.0", STINT_PORT: "0" } })
    expect(fromEnv.url).toMatch(/^http:\/\/0\.0\.0\.0:[1-9]\d*$/)
    // An invalid STINT_PORT is never read when --port is given.
    const fromFlag = await start(["--port", "0", "--host", "127.0.0.1", "--database", freshDb()], {
      env: { STINT_HOST: "0.0.0.0", STINT_PORT: "eighty" }
    })
    expect(fromFlag.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/)
  })

  it("without --port or STINT_PORT it serves on 127.0.0.1:8787, the default (or says that port is taken)", async () => {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer()
      probe.once("error", () => resolve(false))
      probe.listen(8787, "127.0.0.1", () => probe.close(() => resolve(true)))
    })
    if (free) {
      const server = await start(["--database", freshDb()])
      expect(server.url).toBe("http://127.0.0.1:8787")
    } else {
      // Something else holds the default port here: the refusal names it.
      const result = await stint(["serve", "--database", freshDb()])
      expect(result.stderr).toMatch(/^stint: cannot serve: .*EADDRINUSE.*127\.0\.0\.1:8787/)
    }
  })

  it("a port already in use fails in one line with a non-zero exit", async () => {
    const server = await start(["--port", "0", "--database", freshDb()])
    const result = await stint(["serve", "--port", new URL(server.url).port, "--database", freshDb()])
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toMatch(/^stint: cannot serve: .*EADDRINUSE/)
  })
})

describe("the request log", () => {
  it("is one JSON line per request on stdout, and nothing else after the ready line", async () => {
    const db = await seeded()
    const server = await start(["--port", "0", "--database", db])
    const ready = server.lines.length
    const ids = new Set<string>()
    for (const path of ["/api/v1/clients", "/api/v1/timer", "/nowhere"]) {
      const response = await fetch(`${server.url}${path}`, { headers: bearer(ownerKey) })
      ids.add(response.headers.get("x-request-id") ?? "")
    }
    // The log line follows the response: give the last one a moment.
    await new Promise((resolve) => setTimeout(resolve, 300))
    const after = server.lines.slice(ready)
    const parsed = after.map((line) => JSON.parse(line) as { message: string; annotations: { requestId: string } })
    expect(parsed.map((line) => line.annotations.requestId).sort()).toEqual([...ids].sort())
    expect(parsed.every((line) => line.message === "request")).toBe(true)
  })
})

describe("--demo", () => {
  it("on an empty database prints a key once and a curl line that works; the demo data is ready for tracking", async () => {
    const db = freshDb()
    const server = await start(["--demo", "--port", "0", "--database", db])
    const curl = server.lines.find((line) => line.startsWith("curl "))
    const keyLine = server.lines.find((line) => /stint_[A-Za-z0-9_-]{43}/.test(line))
    expect(curl).toBeDefined()
    expect(keyLine).toBeDefined()
    const key = /(stint_[A-Za-z0-9_-]{43})/.exec(keyLine ?? "")?.[1] ?? ""
    expect(curl).toContain(key)
    expect(curl).toContain(server.url)

    const result = await sh(curl ?? "false")
    expect(result.code).toBe(0)
    const body = JSON.parse(result.stdout) as { clients: Array<{ id: string; name: string }>; canCreateProjects: boolean }
    expect(body.clients).toHaveLength(1)
    expect(body.canCreateProjects).toBe(true)

    // The demo project is assigned to the owner: a timer starts on it.
    const clientId = body.clients[0]?.id ?? ""
    const projects = await fetch(`${server.url}/api/v1/projects?clientId=${clientId}`, { headers: bearer(key) })
    const { projects: [project] } = await projects.json() as { projects: Array<{ id: string }> }
    const started = await fetch(`${server.url}/api/v1/timers/start`, {
      method: "POST",
      headers: { ...bearer(key), "content-type": "application/json", "idempotency-key": "demo-1" },
      body: JSON.stringify({ projectId: project?.id })
    })
    expect(started.status).toBe(200)

    // A second start on the same database creates nothing and shows no key.
    server.process.kill("SIGTERM")
    expect((await server.exited).code).toBe(0)
    const again = await start(["--demo", "--port", "0", "--database", db])
    expect(again.lines.some((line) => line.includes("stint_") || line.startsWith("curl "))).toBe(false)
    expect(again.lines).toContain(Demo.skipped)
    const stillWorks = await fetch(`${again.url}/api/v1/clients`, { headers: bearer(key) })
    expect(((await stillWorks.json()) as { clients: Array<unknown> }).clients).toHaveLength(1)
  })

  it("npm start passes the options after -- on: another port and database", async () => {
    const db = freshDb()
    const server = await start(["--port", "0", "--database", db], { command: ["npm", "start", "--silent", "--"] })
    expect(server.lines.some((line) => line.startsWith("demo: API key"))).toBe(true)
    expect(existsSync(db.slice("sqlite:".length))).toBe(true)
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200)
  })

  it("two servers starting --demo on one empty database at once create one demo workspace", async () => {
    const db = freshDb()
    const servers = await Promise.all([
      start(["--demo", "--port", "0", "--database", db]),
      start(["--demo", "--port", "0", "--database", db])
    ])
    const announced = servers.filter((server) => server.lines.some((line) => line.startsWith("curl ")))
    expect(announced).toHaveLength(1)
    const listed = await stintJson(["keys", "list", "--database", db]) as { apiKeys: Array<{ workspaceId: string }> }
    expect(listed.apiKeys.map((k) => k.workspaceId)).toEqual([Demo.DEMO_WORKSPACE_ID])
  })

  it("on a database that already holds a workspace creates nothing", async () => {
    const db = await seeded()
    const server = await start(["--demo", "--port", "0", "--database", db])
    expect(server.lines.some((line) => line.startsWith("curl "))).toBe(false)
    expect(server.lines).toContain(Demo.skipped)
    const listed = await stintJson(["keys", "list", "--database", db]) as { apiKeys: Array<unknown> }
    expect(listed.apiKeys).toHaveLength(fixture.apiKeys.length)
  })
})

describe("settings from the environment", () => {
  it("STINT_RATE_LIMIT and STINT_RATE_WINDOW_SECONDS set the per-key limit", async () => {
    const db = await seeded()
    const server = await start(["--port", "0", "--database", db], {
      env: { STINT_RATE_LIMIT: "2", STINT_RATE_WINDOW_SECONDS: "3600" }
    })
    const statuses: Array<number> = []
    for (let i = 0; i < 3; i++) {
      statuses.push((await fetch(`${server.url}/api/v1/timer`, { headers: bearer(ownerKey) })).status)
    }
    expect(statuses).toEqual([200, 200, 429])
  })

  it("an invalid rate limit is refused in one line before the database is opened", async () => {
    for (const env of [{ STINT_RATE_LIMIT: "0" }, { STINT_RATE_WINDOW_SECONDS: "soon" }]) {
      const db = freshDb()
      const result = await stint(["serve", "--port", "0", "--database", db], { env })
      expect(result.code).toBe(2)
      expect(result.stderr.trim().split("\n")).toHaveLength(1)
      expect(result.stderr).toContain(Object.keys(env)[0])
      expect(existsSync(db.slice("sqlite:".length))).toBe(false)
    }
  })

  it("a refused environment variable is said as NAME: what is wrong, each one, not as a configuration error's dump", async () => {
    const refusals: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [{ STINT_RATE_LIMIT: "0" }, "STINT_RATE_LIMIT: must be a positive number"],
      [
        { STINT_RATE_LIMIT: "0", STINT_RATE_WINDOW_SECONDS: "soon" },
        "STINT_RATE_LIMIT: must be a positive number; STINT_RATE_WINDOW_SECONDS: Expected a number value but received \"soon\""
      ],
      // A flag's fallback (read by the command line's parser, not by the server's configuration).
      [{ STINT_PORT: "abc" }, "STINT_PORT: must be an integer from 0 to 65535, got \"abc\""]
    ]
    for (const [env, message] of refusals) {
      const result = await stint(["serve", ...("STINT_PORT" in env ? [] : ["--port", "0"]), "--database", freshDb()], { env })
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: `stint: invalid configuration: ${message}\n` })
    }
  })
})

/** Sends the head and the first part of a startTimer request, leaving it in flight until `finish` is called. */
const startInFlight = async (url: string) => {
  const { hostname, port } = new URL(url)
  const socket: Socket = connect(Number(port), hostname)
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject))
  let response = ""
  socket.setEncoding("utf8")
  socket.on("data", (chunk: string) => {
    response += chunk
  })
  const body = JSON.stringify({ projectId: ids.project, note: "in flight" })
  const half = Math.floor(body.length / 2)
  socket.write(
    `POST /api/v1/timers/start HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${ownerKey}\r\n` +
      `Content-Type: application/json\r\nIdempotency-Key: in-flight\r\nContent-Length: ${body.length}\r\n\r\n` +
      body.slice(0, half)
  )
  const ended = new Promise<string>((resolve) => socket.on("close", () => resolve(response)))
  return {
    received: () => response,
    finish: () => {
      socket.write(body.slice(half))
      return ended
    }
  }
}

const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

describe("graceful stop", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("%s: stops accepting, finishes the request in flight, exits 0", async (signal) => {
    const db = await seeded()
    const server = await start(["--port", "0", "--database", db])
    const request = await startInFlight(server.url)
    // Time for the server to accept the connection and read the request's head.
    await sleep(1_000)
    server.process.kill(signal)
    await sleep(500)
    // Still running: the request is not finished yet. New connections are refused.
    expect(server.process.exitCode).toBeNull()
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow()
    expect(request.received()).toBe("")

    const response = await request.finish()
    expect(response).toMatch(/^HTTP\/1\.1 200 /)
    expect(response).toContain("\"note\":\"in flight\"")
    expect(await server.exited).toEqual({ code: 0, signal: null })

    // The timer was stored before the database was closed.
    const again = await start(["--port", "0", "--database", db])
    const timer = await fetch(`${again.url}/api/v1/timer`, { headers: bearer(ownerKey) })
    expect(((await timer.json()) as { timer: { note: string } | null }).timer?.note).toBe("in flight")
  })

  it("SIGINT with nothing in flight exits 0 at once, silently", async () => {
    const server = await start(["--port", "0", "--database", freshDb()])
    server.process.kill("SIGINT")
    expect(await server.exited).toEqual({ code: 0, signal: null })
    expect(server.stderr()).toBe("")
  })
})
