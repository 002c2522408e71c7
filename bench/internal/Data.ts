/**
 * The benchmark's data set, the same shape as `../shared/bench/seed.mjs` makes: 64 users in one workspace, each with
 * 64 keys, a client, a project, an assignment and 200 completed entries, and a deep user in a workspace of its own
 * with many entries. Written as Stint fixture files (`../shared/spec/cli-and-fixtures.md`) and a keys file the
 * scenarios read. Deterministic: the same sizes give the same ids and keys.
 */
import { createHash } from "node:crypto"
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"

/** The keys file: per user its ids and plaintext keys; the deep user and its key. */
export interface Keys {
  readonly users: ReadonlyArray<{
    readonly userId: string
    readonly workspaceId: string
    readonly projectId: string
    readonly keys: ReadonlyArray<string>
  }>
  readonly deep: { readonly userId: string; readonly key: string; readonly entries: number } | null
}

/** How much to make. */
export interface Sizes {
  readonly users: number
  readonly keysPerUser: number
  readonly history: number
  readonly deepEntries: number
}

const SCOPES = ["clients:read", "projects:read", "projects:write", "timers:read", "timers:write"]
/** Every seeded entry lies before this instant. */
const END = Date.UTC(2026, 0, 1)
const DAY = 86_400_000

/** A stream of bytes from a counter: the same for every run. */
const bytes = (() => {
  let counter = 0
  return (n: number): Buffer => createHash("sha512").update(`stint-bench|${counter++}`).digest().subarray(0, n)
})()

const uuid7 = (millis: number): string => {
  const b = Buffer.concat([Buffer.alloc(6), bytes(10)])
  b.writeUIntBE(millis, 0, 6)
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x70
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80
  const h = b.toString("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

const apiKey = (): string => `stint_${bytes(32).toString("base64url")}`

/** Writes a fixture file one row at a time (the deep one runs to hundreds of megabytes). */
const writeFixture = (file: string, parts: Record<string, Iterable<unknown>>): void => {
  const fd = openSync(file, "w")
  let buffer = "{"
  const flush = () => {
    writeSync(fd, buffer)
    buffer = ""
  }
  let first = true
  for (const [name, rows] of Object.entries(parts)) {
    buffer += `${first ? "" : ","}\n${JSON.stringify(name)}: [`
    first = false
    let firstRow = true
    for (const row of rows) {
      buffer += `${firstRow ? "" : ","}\n${JSON.stringify(row)}`
      firstRow = false
      if (buffer.length > 1 << 20) flush()
    }
    buffer += "\n]"
  }
  buffer += "\n}\n"
  flush()
  closeSync(fd)
}

/** One workspace of `users` users, each with keys, a project and `entries` completed entries `spacing` apart. */
const workspace = (name: string, users: number, keysPerUser: number, entries: number, spacing: number) => {
  const created = Math.floor(Date.now() / DAY) * DAY - DAY
  const ws = { id: uuid7(END - 400 * DAY), name }
  const people = Array.from({ length: users }, (_, i) => ({
    user: { id: uuid7(END - 399 * DAY), name: `${name} user ${i}`, email: `${name.toLowerCase().replace(/\W/g, "")}-${i}@bench.example` },
    client: { id: uuid7(END - 398 * DAY), workspaceId: ws.id, name: `Client ${i}`, color: "#123abc", archived: false },
    projectId: uuid7(END - 398 * DAY),
    keys: Array.from({ length: keysPerUser }, apiKey)
  }))
  function* timeEntries() {
    for (const p of people) {
      for (let j = 0; j < entries; j++) {
        const start = END - (j + 1) * spacing
        yield {
          id: uuid7(start),
          userId: p.user.id,
          workspaceId: ws.id,
          projectId: p.projectId,
          status: "completed",
          billable: j % 10 !== 0,
          note: j % 3 === 0 ? `entry ${j}` : null,
          startedAt: new Date(start).toISOString(),
          endedAt: new Date(start + (40 + (j % 61)) * 60_000).toISOString(),
          payRateCents: 7500
        }
      }
    }
  }
  const fixture = {
    workspaces: [ws],
    users: people.map((p) => p.user),
    memberships: people.map((p, i) => ({
      workspaceId: ws.id,
      userId: p.user.id,
      role: i === 0 ? "owner" : "member",
      payRateCents: 5000
    })),
    clients: people.map((p) => p.client),
    projects: people.map((p, i) => ({ id: p.projectId, clientId: p.client.id, name: `Project ${i}`, color: null, archived: false })),
    assignments: people.map((p) => ({ projectId: p.projectId, userId: p.user.id, payRateCents: 7500 })),
    apiKeys: people.flatMap((p) =>
      p.keys.map((key) => ({
        key,
        userId: p.user.id,
        workspaceId: ws.id,
        scopes: SCOPES,
        createdAt: new Date(created).toISOString(),
        revoked: false
      }))
    ),
    timeEntries: { [Symbol.iterator]: timeEntries }
  }
  return { ws, people, fixture }
}

/**
 * Writes `fixture.json`, `fixture-deep.json` (when `deepEntries > 0`) and `keys.json` into `dir`; returns the keys.
 */
export const make = (dir: string, sizes: Sizes): Keys => {
  const main = workspace("Bench", sizes.users, sizes.keysPerUser, sizes.history, 3 * 3_600_000)
  writeFixture(join(dir, "fixture.json"), main.fixture)
  const deep = sizes.deepEntries > 0 ? workspace("Bench Deep", 1, 1, sizes.deepEntries, 5 * 60_000) : undefined
  if (deep !== undefined) writeFixture(join(dir, "fixture-deep.json"), deep.fixture)
  const deepPerson = deep?.people[0]
  const keys: Keys = {
    users: main.people.map((p) => ({ userId: p.user.id, workspaceId: main.ws.id, projectId: p.projectId, keys: p.keys })),
    deep: deepPerson === undefined
      ? null
      : { userId: deepPerson.user.id, key: deepPerson.keys[0] ?? "", entries: sizes.deepEntries }
  }
  writeFileSync(join(dir, "keys.json"), JSON.stringify(keys))
  return keys
}
