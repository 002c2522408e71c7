/**
 * The `stint` binary on PostgreSQL (a fresh database per file from `testing/`): migrate, the same seed as on SQLite,
 * an invalid fixture refused without writing anything, `serve --demo` once, and an unreachable server in one line.
 */
import pg from "pg"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../../../testing/EmbeddedPostgres.js"
import { type FreshDatabase, freshDatabase } from "../../../testing/postgres.js"
import * as Demo from "../src/cli/Demo.js"
import { build, serve, stint, stintJson, tempDir } from "./CliHarness.js"
import { fixture, ids, ownerKey, writeJson } from "./CliFixture.js"

const dir = tempDir()
const databases: Array<FreshDatabase> = []
beforeAll(build)
afterAll(async () => {
  dir.remove()
  await Promise.all(databases.map((database) => database.drop()))
})

const fresh = async () => {
  const database = await freshDatabase()
  databases.push(database)
  return database.url
}

/** Every row of every table of the public schema, each table's rows sorted (a reader independent of the store). */
const dumpPostgres = async (url: string): Promise<Record<string, ReadonlyArray<string>>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name"
    )
    const dump: Record<string, ReadonlyArray<string>> = {}
    for (const { table_name } of tables.rows) {
      const rows = await client.query(`SELECT * FROM "${table_name.replaceAll("\"", "\"\"")}"`)
      dump[table_name] = rows.rows.map((row: unknown) => JSON.stringify(row)).sort()
    }
    return dump
  } finally {
    await client.end()
  }
}

describe("stint on PostgreSQL", () => {
  it("migrate creates the tables of a fresh database", async () => {
    const url = await fresh()
    expect(Object.keys(await dumpPostgres(url))).toEqual([])
    const result = await stint(["migrate", "--database", url])
    expect(result.code, result.stderr).toBe(0)
    expect(Object.keys(await dumpPostgres(url))).toEqual(
      expect.arrayContaining(["workspaces", "users", "api_keys", "time_entries"])
    )
  })

  it("seed loads the fixture and prints the same summary as on SQLite; postgresql:// is accepted too", async () => {
    const url = await fresh()
    const file = writeJson(join(dir.path, "fixture.json"), fixture)
    const summary = await stintJson(["seed", file, "--database", url.replace(/^postgres:/, "postgresql:")]) as {
      apiKeys: Array<{ id: string; key: string }>
      counts: Record<string, number>
    }
    expect(summary.counts).toEqual({
      workspaces: 1,
      users: 2,
      memberships: 2,
      clients: 1,
      projects: 1,
      assignments: 1,
      apiKeys: 2,
      timeEntries: 1
    })
    expect(summary.apiKeys[0]).toMatchObject({ id: ids.ownerKey, key: ownerKey })
    const dump = await dumpPostgres(url)
    expect(dump["workspaces"]).toHaveLength(1)
    expect(dump["time_entries"]).toHaveLength(1)
    expect(JSON.stringify(dump)).not.toContain(ownerKey)

    // An invalid fixture (found only against what is stored) is refused in one line, and nothing is written.
    const before = await dumpPostgres(url)
    const invalid = writeJson(join(dir.path, "invalid.json"), {
      workspaces: [{ id: "0190a000-0000-7000-8000-0000000000ad", name: "Fine" }],
      users: [{ id: ids.member, name: "Again", email: "again@example.com" }]
    })
    const refused = await stint(["seed", invalid, "--database", url])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe("")
    expect(refused.stderr.trim().split("\n")).toHaveLength(1)
    expect(refused.stderr).toMatch(/\$\.users\[0\]\.id/)
    expect(await dumpPostgres(url)).toEqual(before)
  })

  it("serve --demo creates the demo once; its key works", async () => {
    const url = await fresh()
    const server = await serve(["--demo", "--port", "0", "--database", url])
    try {
      const curl = server.lines.find((line) => line.startsWith("curl "))
      const key = /Bearer (stint_[A-Za-z0-9_-]{43})/.exec(curl ?? "")?.[1] ?? ""
      const response = await fetch(`${server.url}/api/v1/clients`, { headers: { authorization: `Bearer ${key}` } })
      expect(response.status).toBe(200)
      server.process.kill("SIGTERM")
      expect((await server.exited).code).toBe(0)
    } finally {
      server.kill()
    }
    const again = await serve(["--demo", "--port", "0", "--database", url])
    try {
      expect(again.lines).toContain(Demo.skipped)
      expect((await dumpPostgres(url))["workspaces"]).toHaveLength(1)
    } finally {
      again.kill()
    }
  })

  it("an unreachable server fails in one line with exit 1", async () => {
    const port = await freePort()
    const result = await stint(["migrate", "--database", `postgres://postgres:secret@127.0.0.1:${port}/nothing`])
    expect(result.code).toBe(1)
    expect(result.stderr.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toMatch(/^stint: database error: .*ECONNREFUSED/)
    expect(result.stderr).not.toContain("secret")
  })
})
