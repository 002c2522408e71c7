/**
 * `stint seed` of generated large fixtures (40,000 time entries, tens of batches) on SQLite and PostgreSQL: the
 * summary, every row stored, all or nothing when the very last row is bad, a row names a member twice or the file
 * breaks off (the database is read back unchanged, the JSON path named), and memory that does not grow with the file.
 */
import { execFile } from "node:child_process"
import { closeSync, openSync, statSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type FreshDatabase, freshDatabase } from "../../../testing/postgres.js"
import { bin, build, root, stint, tempDir } from "./CliHarness.js"
import { dumpSqlite } from "./CliFixture.js"

const dir = tempDir()
const databases: Array<FreshDatabase> = []
beforeAll(build)
afterAll(async () => {
  dir.remove()
  await Promise.all(databases.map((database) => database.drop()))
})

const ENTRIES = 40_000
const id = (kind: number, n: number) => `0190a6b2-${kind.toString(16).padStart(4, "0")}-7000-8000-${n.toString(16).padStart(12, "0")}`
const W = id(1, 1), U = id(2, 1), C = id(3, 1), P = id(4, 1)

const entry = (n: number, note: string | null) => ({
  id: id(5, n),
  userId: U,
  workspaceId: W,
  projectId: P,
  status: "completed",
  billable: n % 2 === 0,
  note,
  startedAt: new Date(Date.UTC(2024, 0, 1) + n * 60_000).toISOString(),
  endedAt: new Date(Date.UTC(2024, 0, 1) + n * 60_000 + 45_000).toISOString()
})

/** The JSON of `row` with its member `name` given a second time, with `value`. */
const repeating = (row: object, name: string, value: unknown): string =>
  `${JSON.stringify(row).slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`

let counter = 0
/**
 * Writes a fixture with `entries` time entries, streamed (time entries first: the file's order does not matter), and
 * optionally a different last entry or a file cut short.
 */
const writeFixture = (
  entries: number,
  options: {
    readonly last?: unknown
    readonly note?: (n: number) => string | null
    readonly cut?: boolean
    /** The JSON text of row `n` instead of its entry's, when it answers one (a text `JSON.stringify` cannot write). */
    readonly text?: (n: number) => string | undefined
  } = {}
): string => {
  const file = join(dir.path, `large-${++counter}.json`)
  const fd = openSync(file, "w")
  let out = `{\n  "timeEntries": [`
  for (let n = 0; n < entries; n++) {
    const row = n === entries - 1 && options.last !== undefined
      ? options.last
      : entry(n, options.note?.(n) ?? (n % 3 === 0 ? `entry ${n}\t"quoted" \\ [not] {json}` : null))
    out += `${n === 0 ? "" : ","}\n    ${options.text?.(n) ?? JSON.stringify(row)}`
    if (out.length > 1 << 16) {
      writeSync(fd, out)
      out = ""
    }
  }
  out += `\n  ],\n  "workspaces": [{ "id": "${W}", "name": "Acme" }],\n  "users": [{ "id": "${U}", "name": "Ada", ` +
    `"email": "ada@example.com" }],\n  "memberships": [{ "workspaceId": "${W}", "userId": "${U}", "role": "owner", ` +
    `"payRateCents": 5000 }],\n  "clients": [{ "id": "${C}", "workspaceId": "${W}", "name": "Globex" }],\n` +
    `  "projects": [{ "id": "${P}", "clientId": "${C}", "name": "Website" }],\n` +
    `  "apiKeys": [{ "userId": "${U}", "workspaceId": "${W}" }]\n}\n`
  writeSync(fd, options.cut === true ? out.slice(0, -3) : out)
  closeSync(fd)
  return file
}

const counts = { workspaces: 1, users: 1, memberships: 1, clients: 1, projects: 1, assignments: 0, apiKeys: 1 }

const fresh = async () => {
  const database = await freshDatabase()
  databases.push(database)
  return database.url
}

const countPostgres = async (url: string): Promise<Record<string, number>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const result: Record<string, number> = {}
    for (const table of ["workspaces", "users", "memberships", "clients", "projects", "api_keys", "time_entries"]) {
      const rows = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)
      result[table] = Number(rows.rows[0]?.n)
    }
    const sample = await client.query(`SELECT note, pay_rate_cents FROM time_entries WHERE id = $1`, [id(5, 3)])
    result["sampleNoteLength"] = String(sample.rows[0]?.note ?? "").length
    return result
  } finally {
    await client.end()
  }
}

const stores: ReadonlyArray<{
  readonly name: string
  readonly database: () => Promise<string>
  readonly read: (database: string) => Promise<unknown>
}> = [
  {
    name: "SQLite",
    database: () => Promise.resolve(`sqlite:${join(dir.path, `db-${++counter}.db`)}`),
    read: (database) => dumpSqlite(database.slice("sqlite:".length))
  },
  { name: "PostgreSQL", database: fresh, read: countPostgres }
]

describe.each(stores)("stint seed of $name, 40,000 entries", ({ database, read }) => {
  it("loads every row and prints the summary", async () => {
    const url = await database()
    const result = await stint(["seed", writeFixture(ENTRIES), "--database", url])
    expect(result.code, result.stderr).toBe(0)
    const summary = JSON.parse(result.stdout) as { apiKeys: Array<{ key: string }>; counts: Record<string, number> }
    expect(summary.counts).toEqual({ ...counts, timeEntries: ENTRIES })
    expect(summary.apiKeys[0]?.key).toMatch(/^stint_/)
    const stored = await read(url) as Record<string, ReadonlyArray<unknown> | number>
    const size = (table: string) => {
      const value = stored[table]
      return typeof value === "number" ? value : value?.length
    }
    expect(size("time_entries")).toBe(ENTRIES)
    expect(size("api_keys")).toBe(1)
  }, 180_000)

  const refusals: ReadonlyArray<readonly [string, Parameters<typeof writeFixture>[1], RegExp]> = [
    ["an unknown project in the last row", { last: { ...entry(ENTRIES - 1, null), projectId: id(4, 9) } }, /at \$\.timeEntries\[39999\]\.projectId: unknown project/],
    ["a schema error in the last row", { last: { ...entry(ENTRIES - 1, null), status: "paused" } }, /at \$\.timeEntries\[39999\]\.status/],
    ["a repeated id in the last row", { last: entry(17, null) }, /at \$\.timeEntries\[39999\]\.id/],
    ["a file cut short at the end", { cut: true }, /not JSON/],
    // `JSON.parse` would read each of these as its last value, and the rows would load with the first one lost.
    [
      "a member named twice in the last row",
      { text: (n) => n === ENTRIES - 1 ? repeating(entry(n, "written first"), "note", "written last") : undefined },
      /at \$\.timeEntries\[39999\]\.note: appears more than once/
    ],
    [
      "a member named twice in a row amid the batches",
      { text: (n) => n === 20_017 ? repeating(entry(n, null), "billable", true) : undefined },
      /at \$\.timeEntries\[20017\]\.billable: appears more than once/
    ]
  ]
  it.each(refusals)("refuses %s in one line and leaves the database as it was", async (_, options, message) => {
    const url = await database()
    const other = join(dir.path, `other-${++counter}.json`)
    writeFileSync(other, JSON.stringify({ workspaces: [{ id: id(9, 1), name: "Other" }] }))
    const base = await stint(["seed", other, "--database", url])
    expect(base.code, base.stderr).toBe(0)
    const before = await read(url)
    const result = await stint(["seed", writeFixture(ENTRIES, options), "--database", url])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr.trim().split("\n")).toHaveLength(1)
    expect(result.stderr).toMatch(message)
    expect(await read(url)).toEqual(before)
  }, 180_000)
})

/** Runs `stint seed` and returns its peak resident set size (KiB), as the process itself measured it. */
const peakRss = (file: string, database: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const report = `process.on("exit", () => process.stderr.write("\\nmaxrss " + process.resourceUsage().maxRSS + "\\n"))`
    execFile(
      process.execPath,
      ["--import", `data:text/javascript,${encodeURIComponent(report)}`, bin, "seed", file, "--database", database],
      { cwd: root, timeout: 170_000, maxBuffer: 1 << 24 },
      (error, _stdout, stderr) => {
        const rss = /maxrss (\d+)/.exec(stderr)?.[1]
        if (error !== null || rss === undefined) reject(new Error(`seed failed: ${error?.message} ${stderr}`))
        else resolve(Number(rss))
      }
    )
  })

describe("stint seed memory", () => {
  it("does not grow with the file: 75 MB of entries need less than twice that much more memory than 3 entries", async () => {
    // Long notes (500 two-byte characters) make a large file of few rows.
    const note = (n: number) => `${"é".repeat(490)}${String(n).padStart(10, "0")}`
    const big = writeFixture(60_000, { note })
    const small = writeFixture(3, { note })
    const bytes = statSync(big).size
    expect(bytes).toBeGreaterThan(60 << 20)
    const smallRss = await peakRss(small, `sqlite:${join(dir.path, `mem-${++counter}.db`)}`)
    const bigRss = await peakRss(big, `sqlite:${join(dir.path, `mem-${++counter}.db`)}`)
    // Loading the whole file took about eight times its size; streaming stays well under twice.
    expect((bigRss - smallRss) * 1024).toBeLessThan(bytes * 2)
  }, 360_000)
})
