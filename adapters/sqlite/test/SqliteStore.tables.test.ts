import { describe, expect, it } from "@effect/vitest"
import { Operations, Records, Settings, Store } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { createHash } from "node:crypto"
import { as, backdoor, fixture, ids, keys, NOW, seed, start, stop, tempFile, uuid } from "./support.js"

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const scope: Records.UserScope = { workspaceId: ids.workspace, userId: ids.owner }

const entryRow = (id: string, overrides: Partial<Records.EntryRow> = {}): Records.EntryRow => ({
  id,
  workspaceId: ids.workspace,
  userId: ids.owner,
  projectId: ids.website,
  status: "active",
  billable: true,
  note: null,
  startedAt: NOW,
  endedAt: null,
  payRateCents: 1,
  ...overrides
})

const rows = (filename: string, sql: string, ...params: Array<unknown>) =>
  backdoor(filename, (db) => db.prepare(sql).all(...params) as Array<Record<string, unknown>>)

/** A rate-limit window as SQLite's `hex()` shows it: 16 hex digits per time, big-endian, in ascending order. */
const packedHex = (times: ReadonlyArray<number>) =>
  [...times].sort((a, b) => a - b).map((time) => time.toString(16).padStart(16, "0")).join("").toUpperCase()

describe("SqliteStore, read through a backdoor", () => {
  it.effect("stores API keys only as their SHA-256 digest", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      const stored = rows(filename, "SELECT id, digest, scopes, created_at, revoked_at FROM api_keys ORDER BY id")
      expect(stored).toHaveLength(fixture.apiKeys.length)
      for (const key of fixture.apiKeys) {
        const row = stored.find((r) => r["id"] === key.id)
        expect(row?.["digest"]).toBe(sha256(key.key))
      }
      expect(stored.find((r) => r["id"] === uuid(0xe3))?.["scopes"]).toBe(`["timers:read"]`)
      expect(stored.find((r) => r["id"] === uuid(0xe4))?.["revoked_at"]).toBe(NOW)
      // No table holds a plaintext key anywhere.
      const tables = rows(filename, "SELECT name FROM sqlite_master WHERE type = 'table'").map((r) => String(r["name"]))
      for (const table of tables) {
        for (const row of rows(filename, `SELECT * FROM ${table}`)) {
          for (const value of Object.values(row)) {
            expect(typeof value === "string" && value.includes("stint_")).toBe(false)
          }
        }
      }
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })

  it.effect("writes entries with INTEGER times and the idempotency record with them", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      const started = yield* Operations.startTimer(start(keys.owner, "k-1", { projectId: ids.website, note: "n" }))
      const id = started.response.timer?.id ?? ""
      expect(rows(filename, "SELECT * FROM time_entries")).toEqual([{
        id,
        workspace_id: ids.workspace,
        user_id: ids.owner,
        project_id: ids.website,
        status: "active",
        billable: 1,
        note: "n",
        started_at: NOW,
        ended_at: null,
        pay_rate_cents: 7500
      }])
      expect(rows(filename, "SELECT typeof(started_at) AS t, typeof(billable) AS b FROM time_entries")).toEqual([
        { t: "integer", b: "integer" }
      ])
      expect(rows(filename, "SELECT * FROM idempotency_records")).toEqual([{
        workspace_id: ids.workspace,
        user_id: ids.owner,
        key: "k-1",
        fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
        created_at: NOW,
        response_status: 200,
        response_body: started.json
      }])

      yield* TestClock.adjust("61 seconds")
      const stopped = yield* Operations.stopTimer(stop(keys.owner, "k-2", id))
      expect(rows(filename, "SELECT status, ended_at FROM time_entries")).toEqual([
        { status: "completed", ended_at: NOW + 61_000 }
      ])
      expect(rows(filename, "SELECT key, response_body FROM idempotency_records ORDER BY key")).toEqual([
        { key: "k-1", response_body: started.json },
        { key: "k-2", response_body: stopped.json }
      ])
      // Ids are written in lowercase whatever case they arrived in.
      yield* Operations.startTimer(start(keys.owner, "k-3", { projectId: ids.website.toUpperCase() }))
      expect(rows(filename, "SELECT count(*) AS n FROM time_entries WHERE id <> lower(id) OR project_id <> lower(project_id)"))
        .toEqual([{ n: 0 }])
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })

  it.effect("counts accepted requests per key and forgets those that left the window", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      for (let i = 0; i < 3; i++) yield* Operations.getActiveTimer(as(keys.owner))
      yield* Effect.flip(Operations.getActiveTimer(as(keys.owner)))
      expect(rows(filename, "SELECT key_id, hex(accepted_at) AS window FROM rate_limit_windows_packed")).toEqual([
        { key_id: uuid(0xe1), window: packedHex([NOW, NOW, NOW]) }
      ])
      yield* TestClock.adjust("60 seconds")
      yield* Operations.getActiveTimer(as(keys.owner))
      expect(rows(filename, "SELECT key_id, hex(accepted_at) AS window FROM rate_limit_windows_packed")).toEqual([
        { key_id: uuid(0xe1), window: packedHex([NOW + 60_000]) }
      ])
      // A key that does not authenticate (revoked) is not counted.
      yield* Effect.flip(Operations.getActiveTimer(as(keys.revoked)))
      expect(rows(filename, "SELECT count(*) AS n FROM rate_limit_windows_packed")).toEqual([{ n: 1 }])
    }).pipe(
      Effect.provideService(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 3, windowMillis: 60_000 } }),
      Effect.provide(SqliteStore.layer({ filename }))
    )
  })
})

describe("SqliteStore timer transactions are atomic", () => {
  it.effect("a body that fails after writing leaves nothing behind", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      const store = yield* Store.Store
      const failed = yield* Effect.flip(store.withTimerTransaction(scope, (tx) =>
        tx.write({
          insert: entryRow(uuid(0x501)),
          idempotency: { key: "x", fingerprint: "f", createdAt: NOW, response: { status: 200, body: "{}" } }
        }).pipe(Effect.zipRight(Effect.fail("boom" as const)))))
      expect(failed).toBe("boom")
      expect(rows(filename, "SELECT count(*) AS n FROM time_entries")).toEqual([{ n: 0 }])
      expect(rows(filename, "SELECT count(*) AS n FROM idempotency_records")).toEqual([{ n: 0 }])
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })

  it.effect("a write that breaks a constraint undoes the changes already applied", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      const store = yield* Store.Store
      yield* store.withTimerTransaction(scope, (tx) => tx.write({ insert: entryRow(uuid(0x501)) }))
      // Finish the running entry, then insert an entry whose id is taken: all or nothing.
      const error = yield* Effect.flip(store.withTimerTransaction(scope, (tx) =>
        tx.write({
          finish: { id: uuid(0x501), status: "completed", endedAt: NOW + 1 },
          insert: entryRow(uuid(0x501)),
          idempotency: { key: "y", fingerprint: "f", createdAt: NOW, response: { status: 200, body: "{}" } }
        })))
      expect(error._tag).toBe("StoreError")
      expect(rows(filename, "SELECT id, status, ended_at FROM time_entries")).toEqual([
        { id: uuid(0x501), status: "active", ended_at: null }
      ])
      expect(rows(filename, "SELECT count(*) AS n FROM idempotency_records")).toEqual([{ n: 0 }])
      // The partial unique index refuses a second active entry even when the body does not finish the first.
      const second = yield* Effect.flip(store.withTimerTransaction(scope, (tx) => tx.write({ insert: entryRow(uuid(0x502)) })))
      expect(second._tag).toBe("StoreError")
      // The connection is usable afterwards, and only the last write of a body is applied.
      yield* store.withTimerTransaction(scope, (tx) =>
        Effect.zipRight(
          tx.write({ insert: entryRow(uuid(0x503)) }),
          tx.write({ finish: { id: uuid(0x501), status: "voided", endedAt: NOW + 2 } })
        ))
      expect(rows(filename, "SELECT id, status, ended_at FROM time_entries")).toEqual([
        { id: uuid(0x501), status: "voided", ended_at: NOW + 2 }
      ])
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })

  it.effect("holds the write lock from its start, and an interrupted body rolls back and releases it", () => {
    const filename = tempFile()
    const tryWriteLock = () =>
      backdoor(filename, (db) => {
        try {
          db.exec("BEGIN IMMEDIATE")
          db.exec("ROLLBACK")
          return "acquired"
        } catch (error) {
          return error instanceof Error ? error.message : "failed"
        }
      }, true)
    return Effect.gen(function*() {
      yield* seed()
      const store = yield* Store.Store
      const inside = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(store.withTimerTransaction(scope, (tx) =>
        tx.read({}).pipe(
          Effect.zipRight(tx.write({ insert: entryRow(uuid(0x601)) })),
          Effect.zipRight(Deferred.succeed(inside, undefined)),
          Effect.zipRight(Effect.never)
        )))
      yield* Deferred.await(inside)
      // Only reads so far, yet no other connection can begin writing.
      expect(tryWriteLock()).toBe("database is locked")
      yield* Fiber.interrupt(fiber)
      expect(tryWriteLock()).toBe("acquired")
      expect(rows(filename, "SELECT count(*) AS n FROM time_entries")).toEqual([{ n: 0 }])
      yield* store.withTimerTransaction(scope, (tx) => tx.write({ insert: entryRow(uuid(0x602)) }))
      expect(Option.map(yield* store.findActiveEntry(scope), (e) => e.id)).toEqual(Option.some(uuid(0x602)))
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })

  it.effect("prunes idempotency records older than asked, in every scope", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      const store = yield* Store.Store
      const record = (key: string, createdAt: number) => ({ key, fingerprint: "f", createdAt, response: null })
      const member = { workspaceId: ids.workspace, userId: ids.member }
      yield* store.withTimerTransaction(member, (tx) => tx.write({ idempotency: record("old", NOW - 10) }))
      yield* store.withTimerTransaction(scope, (tx) => tx.write({ idempotency: record("edge", NOW - 5) }))
      yield* store.withTimerTransaction(scope, (tx) =>
        tx.write({ idempotency: record("new", NOW), forgetIdempotencyBefore: NOW - 5 }))
      expect(rows(filename, "SELECT key, response_status FROM idempotency_records ORDER BY key")).toEqual([
        { key: "edge", response_status: null },
        { key: "new", response_status: null }
      ])
      const snapshot = yield* store.withTimerTransaction(scope, (tx) => tx.read({ idempotencyKey: "edge" }))
      expect(snapshot.idempotency).toEqual(Option.some(record("edge", NOW - 5)))
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })
})

describe("SqliteStore admin inserts", () => {
  it.effect("map constraint violations to RecordConflict and write nothing", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      const store = yield* Store.Store
      const empty: Records.Dataset = {
        workspaces: [],
        users: [],
        memberships: [],
        clients: [],
        projects: [],
        assignments: [],
        apiKeys: [],
        timeEntries: []
      }
      const conflict = (dataset: Partial<Records.Dataset>) => Effect.flip(store.admin.insert({ ...empty, ...dataset }))
      const newWorkspace = { id: uuid(0x7001), name: "New" }
      // An id that exists (checked first, in the memory store's order).
      expect(yield* conflict({ workspaces: [newWorkspace], users: [{ id: ids.owner, name: "A", email: "a" }] }))
        .toMatchObject({ _tag: "RecordConflict", entity: "user", id: ids.owner, reason: "already exists" })
      // Foreign keys are on: a project under a client that does not exist.
      expect(
        yield* conflict({
          workspaces: [newWorkspace],
          projects: [{ id: uuid(0x7002), workspaceId: newWorkspace.id, clientId: uuid(0x7003), name: "P", color: "#000000", archived: false }]
        })
      ).toMatchObject({ _tag: "RecordConflict", entity: "project", id: uuid(0x7002) })
      // A digest that is taken.
      expect(
        yield* conflict({
          apiKeys: [{
            id: uuid(0x7004),
            digest: sha256(keys.owner),
            userId: ids.owner,
            workspaceId: ids.workspace,
            scopes: [],
            createdAt: NOW,
            revokedAt: null
          }]
        })
      ).toMatchObject({ _tag: "RecordConflict", entity: "apiKey", id: uuid(0x7004), reason: "digest already exists" })
      // Two active entries for one user in one dataset.
      expect(yield* conflict({ timeEntries: [entryRow(uuid(0x7005)), entryRow(uuid(0x7006))] })).toMatchObject({
        _tag: "RecordConflict",
        entity: "timeEntry",
        id: uuid(0x7006),
        reason: "second active entry"
      })
      // None of the failed datasets left a row behind.
      expect(rows(filename, "SELECT count(*) AS n FROM workspaces")).toEqual([{ n: 2 }])
      expect(rows(filename, "SELECT count(*) AS n FROM time_entries")).toEqual([{ n: 0 }])
      // A dataset that is fine goes in whole.
      yield* store.admin.insert({ ...empty, workspaces: [newWorkspace], timeEntries: [entryRow(uuid(0x7005))] })
      expect(rows(filename, "SELECT count(*) AS n FROM workspaces")).toEqual([{ n: 3 }])
      // Now an active entry exists for the scope.
      expect(yield* conflict({ timeEntries: [entryRow(uuid(0x7007))] })).toMatchObject({
        entity: "timeEntry",
        id: uuid(0x7007),
        reason: "second active entry"
      })
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })
})
