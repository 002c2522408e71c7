/**
 * `stint serve --metrics-port` on PostgreSQL (a fresh database from `testing/`): the pool gauges report the pool's
 * size, its connections by state, and the queries waiting for one.
 */
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FreshDatabase, freshDatabase } from "../../../testing/postgres.js"
import { build, serve, type Serving, stintJson, tempDir } from "./CliHarness.js"
import { fixture, ownerKey, writeJson } from "./CliFixture.js"
import * as PromText from "./PromText.js"

const dir = tempDir()
let database: FreshDatabase | undefined
let server: Serving | undefined
beforeAll(build)
afterAll(async () => {
  server?.kill()
  dir.remove()
  await database?.drop()
})

describe("the pool gauges", () => {
  it("show the pool's size, its connections in use and idle, and none waiting at rest", async () => {
    database = await freshDatabase()
    await stintJson(["seed", writeJson(join(dir.path, "fixture.json"), fixture), "--database", database.url])
    server = await serve(["--port", "0", "--metrics-port", "0", "--database", database.url], {
      env: { STINT_PG_POOL_SIZE: "3" }
    })
    const serving = server
    const responses = await Promise.all(Array.from({ length: 12 }, () =>
      fetch(`${serving.url}/api/v1/timer`, { headers: { authorization: `Bearer ${ownerKey}` } })))
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 12 }, () => 200))

    const line = serving.lines.find((l) => l.startsWith("metrics on "))
    const metrics = PromText.parse(await (await fetch(line?.slice("metrics on ".length) ?? "")).text())
    expect(metrics.get(PromText.sample("stint_db_pool_max"))).toBe(3)
    expect(metrics.get(PromText.sample("stint_db_pool_waiting"))).toBe(0)
    // Every request has answered, so every open connection is back in the pool.
    expect(metrics.get(PromText.sample("stint_db_pool_connections", { state: "in_use" }))).toBe(0)
    const idle = metrics.get(PromText.sample("stint_db_pool_connections", { state: "idle" })) ?? 0
    expect(idle).toBeGreaterThanOrEqual(1)
    expect(idle).toBeLessThanOrEqual(3)
  })
})
