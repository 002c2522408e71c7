/**
 * A small fixture for the CLI tests, and a reader of a SQLite database's whole contents (a backdoor independent of
 * the store's own reads) to prove that a refused command wrote nothing.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as Effect from "effect/Effect"
import { writeFileSync } from "node:fs"

export const ids = {
  workspace: "0190a000-0000-7000-8000-000000000001",
  owner: "0190a000-0000-7000-8000-000000000002",
  member: "0190a000-0000-7000-8000-000000000003",
  client: "0190a000-0000-7000-8000-000000000004",
  project: "0190a000-0000-7000-8000-000000000005",
  entry: "0190a000-0000-7000-8000-000000000006",
  ownerKey: "0190a000-0000-7000-8000-000000000007"
} as const

/** A supplied plaintext key (the fixture format allows short ones). */
export const ownerKey = "stint_fixtureOwnerKey0001"

/** One of everything: two users, a client, a project, an assignment, a supplied and a generated key, an entry. */
export const fixture = {
  workspaces: [{ id: ids.workspace, name: "Acme" }],
  users: [
    { id: ids.owner, name: "Ada", email: "ada@example.com" },
    { id: ids.member, name: "Bob", email: "bob@example.com" }
  ],
  memberships: [
    { workspaceId: ids.workspace, userId: ids.owner, role: "owner", payRateCents: 5000 },
    { workspaceId: ids.workspace, userId: ids.member, role: "member" }
  ],
  clients: [{ id: ids.client, workspaceId: ids.workspace, name: "Globex", color: "#123abc" }],
  projects: [{ id: ids.project, clientId: ids.client, name: "Website", color: null }],
  assignments: [{ projectId: ids.project, userId: ids.owner, payRateCents: 7500 }],
  apiKeys: [
    { id: ids.ownerKey, key: ownerKey, userId: ids.owner, workspaceId: ids.workspace },
    { userId: ids.member, workspaceId: ids.workspace }
  ],
  timeEntries: [{
    id: ids.entry,
    userId: ids.owner,
    workspaceId: ids.workspace,
    projectId: ids.project,
    status: "completed",
    startedAt: "2026-01-02T09:00:00Z",
    endedAt: "2026-01-02T10:30:00+00:00"
  }]
}

/** Writes a JSON file and returns its path. */
export const writeJson = (path: string, value: unknown): string => {
  writeFileSync(path, typeof value === "string" ? value : JSON.stringify(value, null, 2))
  return path
}

/** Every row of every table of a SQLite file, each table's rows sorted, as one comparable value. */
export const dumpSqlite = (filename: string): Promise<Record<string, ReadonlyArray<string>>> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tables = yield* sql<{ readonly name: string }>`
      SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`
    const dump: Record<string, ReadonlyArray<string>> = {}
    for (const { name } of tables) {
      const rows = yield* sql.unsafe<Record<string, unknown>>(`SELECT * FROM "${name.replaceAll("\"", "\"\"")}"`)
      dump[name] = rows.map((row) => JSON.stringify(row)).sort()
    }
    return dump
  }).pipe(Effect.provide(SqliteClient.layer({ filename, readonly: true })), Effect.runPromise)
