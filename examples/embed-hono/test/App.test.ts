/**
 * The Hono app (on @hono/node-server) on a random port over a temporary SQLite file: the conformance kit drives Stint under `/time`
 * through `HttpStack.remote`, as it would any server someone else runs, and the team's own route answers beside it.
 * Seeds and admin events go through a second store of this process on the same file.
 */
import { serve } from "@hono/node-server"
import { HttpStack, Suite } from "@stint/conformance"
import { Fixture, Store } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import * as Net from "node:net"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, it } from "vitest"
import * as App from "../src/App.js"

/** The app listening on a free port over a fresh file; `stop` closes the server, disposes Stint, removes the file. */
const start = async () => {
  const dir = mkdtempSync(join(tmpdir(), "embed-hono-"))
  const database = join(dir, "stint.db")
  const { app, stint } = App.make({ database, log: false })
  await stint.ready()
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" })
  await new Promise<void>((resolve) => server.once("listening", () => resolve()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const stop = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
    await stint.dispose()
    rmSync(dir, { recursive: true, force: true })
  }
  return { database, url, stop }
}

Suite.suite(
  "Stint in Hono under /time",
  HttpStack.remote(Effect.gen(function*() {
    const app = yield* Effect.acquireRelease(Effect.promise(start), (app) => Effect.promise(app.stop))
    const store = Context.get(yield* Layer.build(SqliteStore.layer({ filename: app.database })), Store.Store)
    return {
      baseUrls: [`${app.url}/time`],
      ...HttpStack.storeHooks((effect) => Effect.provideService(effect, Store.Store, store))
    }
  }))
)

it("serves the team's own route beside Stint, and leaves other paths to Hono", async () => {
  const app = await start()
  try {
    const hello = await fetch(`${app.url}/hello`)
    expect([hello.status, await hello.json()]).toEqual([200, { hello: "from the team's own route" }])
    const health = await fetch(`${app.url}/time/healthz`)
    expect(health.status).toBe(200)
    const spec = await fetch(`${app.url}/time/api/v1/timer`)
    expect([spec.status, ((await spec.json()) as { error: { code: string } }).error.code])
      .toEqual([401, "INVALID_API_KEY"])
    // Outside /time Stint calls next(): Hono's own 404, not the spec's error body.
    const outside = await fetch(`${app.url}/api/v1/timer`)
    expect([outside.status, outside.headers.get("x-request-id")]).toEqual([404, null])
  } finally {
    await app.stop()
  }
})

it("answers a body over 64 KiB with 400 and keeps the connection usable, as stint serve does", async () => {
  const app = await start()
  try {
    const workspaceId = randomUUID(), userId = randomUUID(), key = `stint_${"b".repeat(40)}`
    await Effect.runPromise(Fixture.load({
      workspaces: [{ id: workspaceId, name: "W" }],
      users: [{ id: userId, name: "U", email: "u@example.com" }],
      memberships: [{ workspaceId, userId, role: "owner" }],
      apiKeys: [{ key, userId, workspaceId }]
    }).pipe(Effect.provide(SqliteStore.layer({ filename: app.database }))))
    const { port } = new URL(app.url)
    // One connection: a start whose chunked body is 200 KiB, then a second request on the same connection.
    const chunk = "x".repeat(8 * 1024)
    const start = "POST /time/api/v1/timers/start HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
      `Authorization: Bearer ${key}\r\nIdempotency-Key: big\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `${`${(8 * 1024).toString(16)}\r\n${chunk}\r\n`.repeat(25)}0\r\n\r\n`
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = Net.connect(Number(port), "127.0.0.1", () => socket.write(start))
      let received = ""
      let asked = false
      socket.on("data", (data) => {
        received += data.toString("utf8")
        if (!asked && received.includes("\"requestId\"")) {
          asked = true
          socket.write("GET /time/healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        if (received.includes("{\"status\":\"ok\"}")) socket.end()
      })
      socket.on("close", () => resolve(received))
      socket.on("error", reject)
    })
    expect(raw).toMatch(/^HTTP\/1\.1 400 [^]*"code":"INVALID_REQUEST"/)
    expect(raw).toMatch(/HTTP\/1\.1 200 [^]*\{"status":"ok"\}/)
  } finally {
    await app.stop()
  }
})

it("keeps the Stint-specific code within 15 lines", () => {
  // Every line of the app's sources that names Stint (imports, the handler, its mount, ready and dispose), comments
  // and blank lines aside; the handler's options are on the line that makes it.
  const src = new URL("../src/", import.meta.url)
  const lines = readdirSync(src).filter((name) => name.endsWith(".ts"))
    .flatMap((name) => readFileSync(new URL(name, src), "utf8").split("\n"))
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^(\/\/|\/\*|\*)/.test(line) && /stint|Handler/i.test(line))
  expect(lines.length, lines.join("\n")).toBeGreaterThanOrEqual(5)
  expect(lines.length, lines.join("\n")).toBeLessThanOrEqual(15)
})
