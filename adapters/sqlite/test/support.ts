/**
 * Shared test material: a temporary directory of SQLite files (one per test), the layer on such a file, a backdoor
 * reader that opens the file with better-sqlite3 directly, and a fixture with a workspace, its people and keys.
 */
import { SqliteStore } from "@stint/sqlite"
import type { Store } from "@stint/core"
import { Fixture, Request } from "@stint/core"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"

let directory: string | undefined
let counter = 0

// Registered when a test file imports this module: a hook registered from inside a running test never runs, and every
// test file left its directory of databases behind.
afterAll(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true })
})

/** A fresh database path in this test file's temporary directory (removed after the file's tests). */
export const tempFile = (name = "stint"): string => {
  if (directory === undefined) directory = mkdtempSync(join(tmpdir(), "stint-sqlite-"))
  counter += 1
  return join(directory, `${name}-${counter}.db`)
}

/** The store on a fresh file. */
export const freshLayer = (filename = tempFile()): Layer.Layer<Store.Store, unknown> =>
  SqliteStore.layer({ filename })

/**
 * Opens the file with better-sqlite3, bypassing the adapter (read-only unless `writable`, with no busy wait); closes it
 * after `use`.
 */
export const backdoor = <A>(filename: string, use: (db: Database.Database) => A, writable = false): A => {
  const db = new Database(filename, { readonly: !writable, fileMustExist: true, timeout: 0 })
  try {
    return use(db)
  } finally {
    db.close()
  }
}

/** A test id: a valid UUIDv7 whose last group is `n` in hex. */
export const uuid = (n: number): string => `00000000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`

/** A well-formed API key for tests. */
const apiKey = (name: string) => `stint_${name.padEnd(43, "x")}`

/** The instant the tests run at (`TestClock`). */
export const NOW = Date.parse("2026-03-01T12:00:00.000Z")

export const ids = {
  workspace: uuid(0x1),
  otherWorkspace: uuid(0x2),
  owner: uuid(0xa),
  member: uuid(0xb),
  removed: uuid(0xc),
  /** Active, has a project assigned to the member. */
  globex: uuid(0xc1),
  /** Archived. */
  initech: uuid(0xc2),
  /** Active, nothing assigned to the member. */
  umbrella: uuid(0xc3),
  /** In the other workspace. */
  hooli: uuid(0xc4),
  /** Under Globex, assigned to owner (7500) and member (default rate). */
  website: uuid(0xd1),
  /** Under Globex, archived, assigned to the member. */
  oldSite: uuid(0xd2),
  /** Under archived Initech, assigned to the member. */
  initechApp: uuid(0xd3),
  /** Under Umbrella, assigned to the owner only. */
  vaccine: uuid(0xd4),
  /** Under Hooli in the other workspace, assigned to the owner. */
  piper: uuid(0xd5)
} as const

export const keys = {
  owner: apiKey("owner"),
  member: apiKey("member"),
  readOnly: apiKey("readonly"),
  revoked: apiKey("revoked"),
  expired: apiKey("expired"),
  removed: apiKey("removed"),
  otherWorkspace: apiKey("other")
} as const

/** The base fixture; every key is created at `NOW` unless it says otherwise. */
export const fixture = {
  workspaces: [{ id: ids.workspace, name: "Acme" }, { id: ids.otherWorkspace, name: "Other" }],
  users: [
    { id: ids.owner, name: "Ada", email: "ada@example.com" },
    { id: ids.member, name: "Bob", email: "bob@example.com" },
    { id: ids.removed, name: "Cy", email: "cy@example.com" }
  ],
  memberships: [
    { workspaceId: ids.workspace, userId: ids.owner, role: "owner", payRateCents: 5000 },
    { workspaceId: ids.workspace, userId: ids.member, role: "member", payRateCents: 3000 },
    { workspaceId: ids.otherWorkspace, userId: ids.owner, role: "member" }
  ],
  clients: [
    { id: ids.globex, workspaceId: ids.workspace, name: "Globex", color: "#0A0B0C" },
    { id: ids.initech, workspaceId: ids.workspace, name: "Initech", archived: true },
    { id: ids.umbrella, workspaceId: ids.workspace, name: "umbrella" },
    { id: ids.hooli, workspaceId: ids.otherWorkspace, name: "Hooli" }
  ],
  projects: [
    { id: ids.website, clientId: ids.globex, name: "Website", color: "#123abc" },
    { id: ids.oldSite, clientId: ids.globex, name: "Old site", archived: true },
    { id: ids.initechApp, clientId: ids.initech, name: "App" },
    { id: ids.vaccine, clientId: ids.umbrella, name: "Vaccine" },
    { id: ids.piper, clientId: ids.hooli, name: "Piper" }
  ],
  assignments: [
    { projectId: ids.website, userId: ids.owner, payRateCents: 7500 },
    { projectId: ids.website, userId: ids.member },
    { projectId: ids.oldSite, userId: ids.member },
    { projectId: ids.initechApp, userId: ids.member },
    { projectId: ids.vaccine, userId: ids.owner },
    { projectId: ids.piper, userId: ids.owner }
  ],
  apiKeys: [
    { id: uuid(0xe1), key: keys.owner, userId: ids.owner, workspaceId: ids.workspace },
    { id: uuid(0xe2), key: keys.member, userId: ids.member, workspaceId: ids.workspace },
    {
      id: uuid(0xe3),
      key: keys.readOnly,
      userId: ids.owner,
      workspaceId: ids.workspace,
      scopes: ["timers:read"]
    },
    { id: uuid(0xe4), key: keys.revoked, userId: ids.owner, workspaceId: ids.workspace, revoked: true },
    {
      id: uuid(0xe5),
      key: keys.expired,
      userId: ids.owner,
      workspaceId: ids.workspace,
      createdAt: "2025-03-01T11:59:59.999Z"
    },
    { id: uuid(0xe6), key: keys.removed, userId: ids.removed, workspaceId: ids.workspace },
    { id: uuid(0xe7), key: keys.otherWorkspace, userId: ids.owner, workspaceId: ids.otherWorkspace }
  ]
}

/** Sets the clock to `NOW` and loads the base fixture (plus `extra` rows). */
export const seed = (extra: Partial<Record<keyof typeof fixture | "timeEntries", ReadonlyArray<unknown>>> = {}) =>
  Effect.gen(function*() {
    yield* TestClock.setTime(NOW)
    const merged: Record<string, ReadonlyArray<unknown>> = { ...fixture }
    for (const [name, rows] of Object.entries(extra)) merged[name] = [...(merged[name] ?? []), ...rows]
    return yield* Fixture.load(merged)
  })

/** A request authenticated with `key`. */
export const as = (key: string, rest: Omit<Request.ApiRequest, "authorization"> = {}): Request.ApiRequest => ({
  authorization: `Bearer ${key}`,
  ...rest
})

/** A startTimer request. */
export const start = (key: string, idempotencyKey: string, body: Record<string, unknown>): Request.ApiRequest =>
  as(key, { idempotencyKey, body: Request.json(body) })

/** A stopTimer request. */
export const stop = (key: string, idempotencyKey: string, timerId: string): Request.ApiRequest =>
  as(key, { idempotencyKey, path: { timerId } })
