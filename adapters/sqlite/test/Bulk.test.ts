/**
 * `AdminStore.bulk` on SQLite stages the load and copies it into the file in one short transaction: the file's write
 * lock is free while the load is staged, lookups answer what the file holds at that moment, a conflict inside the
 * load, with the file, or with what another writer stored meanwhile is named by its row, and nothing of a failed,
 * interrupted or refused load remains, the staging database included.
 */
import { describe, expect, it } from "@effect/vitest"
import { Store } from "@stint/core"
import { type Dataset, emptyDataset, emptyRefs, type EntryRow } from "@stint/core/Records"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import type Database from "better-sqlite3"
import { backdoor, freshLayer, ids, NOW, seed, tempFile, uuid } from "./support.js"

const entry = (n: number, overrides: Partial<EntryRow> = {}): EntryRow => ({
  id: uuid(0x50000 + n),
  workspaceId: ids.workspace,
  userId: ids.owner,
  projectId: ids.website,
  status: "completed",
  billable: n % 2 === 0,
  note: n % 3 === 0 ? `note ${n}\twith a tab` : null,
  startedAt: NOW - (n + 1) * 60_000,
  endedAt: NOW - (n + 1) * 60_000 + 30_000,
  payRateCents: 7500,
  ...overrides
})

/** A workspace of its own with one member, a client, a project, an assignment, a key and an active entry. */
const world = {
  workspace: uuid(0x70001),
  user: uuid(0x70002),
  client: uuid(0x70003),
  project: uuid(0x70004),
  key: uuid(0x70005),
  digest: "d".repeat(64),
  running: uuid(0x70006)
}
const worldDataset: Dataset = {
  workspaces: [{ id: world.workspace, name: "Staged" }],
  users: [{ id: world.user, name: "Sam", email: "sam@example.com" }],
  memberships: [{ workspaceId: world.workspace, userId: world.user, role: "owner", payRateCents: 4200 }],
  clients: [{ id: world.client, workspaceId: world.workspace, name: "Client", color: "#000000", archived: false }],
  projects: [{
    id: world.project,
    workspaceId: world.workspace,
    clientId: world.client,
    name: "Project",
    color: "#000000",
    archived: false
  }],
  assignments: [{ projectId: world.project, userId: world.user, payRateCents: 4300 }],
  apiKeys: [{
    id: world.key,
    digest: world.digest,
    userId: world.user,
    workspaceId: world.workspace,
    scopes: ["timers:read"],
    createdAt: NOW,
    revokedAt: null
  }],
  timeEntries: [
    entry(0, { id: world.running, workspaceId: world.workspace, userId: world.user, projectId: world.project, status: "active", endedAt: null })
  ]
}

const countOf = (filename: string, table: string) =>
  backdoor(filename, (db) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n)

const entries = (from: number, count: number) => Array.from({ length: count }, (_, i) => entry(from + i))

const batch = (timeEntries: ReadonlyArray<EntryRow>): Dataset => ({ ...emptyDataset, timeEntries })

const countEntries = (filename: string) => countOf(filename, "time_entries")

type Bulk = NonNullable<Store.Store["Type"]["admin"]["bulk"]>

/** A test on a fresh file holding the base fixture: `body` gets the file's path and the store's `bulk`. */
const onFreshFile = <E>(body: (filename: string, bulk: Bulk) => Effect.Effect<void, E, Store.Store>) => () => {
  const filename = tempFile()
  return Effect.gen(function*() {
    yield* seed()
    const store = yield* Store.Store
    if (store.admin.bulk === undefined) return yield* Effect.die("SqliteStore has a bulk path")
    yield* body(filename, store.admin.bulk)
  }).pipe(Effect.provide(freshLayer(filename)))
}

/** Takes the file's write lock from another connection, without waiting: throws `SQLITE_BUSY` when it is held. */
const writeFromOutside = (filename: string, statement = "SELECT 1", ...params: Array<unknown>) =>
  backdoor(filename, (db) => {
    db.exec("BEGIN IMMEDIATE")
    db.prepare(statement).run(...params)
    db.exec("COMMIT")
  }, true)

describe("SqliteStore bulk", () => {
  it.effect("stores every batch; lookups answer what the file holds, not the staged rows", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const batches = [entries(0, 700), entries(700, 700), entries(1400, 3)]
      const seen = yield* bulk((tx) =>
        Effect.forEach(batches, (rows, n) =>
          Effect.gen(function*() {
            const earlier = batches[n - 1]?.map((e) => e.id) ?? []
            const found = yield* tx.lookup({ ...emptyRefs, entryIds: earlier })
            yield* tx.insert(batch(rows))
            return found.entryIds.length
          })))
      // The core keeps the ids of the rows it staged itself: the store need not look them up.
      expect(seen).toEqual([0, 0, 0])
      const stored = backdoor(filename, (db) =>
        db.prepare(
          `SELECT id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents
             FROM time_entries ORDER BY id`
        ).all())
      expect(stored).toEqual(batches.flat().map((e) => ({
        id: e.id,
        workspace_id: e.workspaceId,
        user_id: e.userId,
        project_id: e.projectId,
        status: e.status,
        billable: e.billable ? 1 : 0,
        note: e.note,
        started_at: e.startedAt,
        ended_at: e.endedAt,
        pay_rate_cents: e.payRateCents
      })))
    })
  ))

  it.effect("looks up the file as it is at each lookup, and stages every kind of row", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const refs = {
        ...emptyRefs,
        workspaceIds: [ids.workspace, world.workspace],
        entryIds: [uuid(0x60002)],
        userScopes: [{ workspaceId: ids.workspace, userId: ids.member }]
      }
      const [before, after] = yield* bulk((tx) =>
        Effect.gen(function*() {
          yield* tx.insert(worldDataset)
          const before = yield* tx.lookup(refs)
          // Another writer stores an active entry meanwhile: the next lookup sees it.
          backdoor(filename, (db) =>
            db.prepare(
              `INSERT INTO time_entries (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at,
                 pay_rate_cents) VALUES (?, ?, ?, ?, 'active', 0, NULL, 1, NULL, 0)`
            ).run(uuid(0x60002), ids.workspace, ids.member, ids.website), true)
          return [before, yield* tx.lookup(refs)] as const
        })
      )
      expect([before.workspaceIds, before.entryIds, before.activeEntries]).toEqual([[ids.workspace], [], []])
      expect([after.workspaceIds, after.entryIds, after.activeEntries])
        .toEqual([[ids.workspace], [uuid(0x60002)], [{ workspaceId: ids.workspace, userId: ids.member }]])
      // Every kind of row was staged and copied, as given.
      const stored = backdoor(filename, (db) => ({
        workspace: db.prepare("SELECT id, name FROM workspaces WHERE id = ?").get(world.workspace),
        user: db.prepare("SELECT id, name, email FROM users WHERE id = ?").get(world.user),
        membership: db.prepare("SELECT role, pay_rate_cents FROM memberships WHERE user_id = ?").get(world.user),
        client: db.prepare("SELECT workspace_id, name, color, archived FROM clients WHERE id = ?").get(world.client),
        project: db.prepare("SELECT client_id, name, archived FROM projects WHERE id = ?").get(world.project),
        assignment: db.prepare("SELECT pay_rate_cents FROM assignments WHERE user_id = ?").get(world.user),
        key: db.prepare("SELECT digest, scopes, created_at, revoked_at FROM api_keys WHERE id = ?").get(world.key),
        entry: db.prepare("SELECT status, ended_at, pay_rate_cents FROM time_entries WHERE id = ?").get(world.running)
      }))
      expect(stored).toEqual({
        workspace: { id: world.workspace, name: "Staged" },
        user: { id: world.user, name: "Sam", email: "sam@example.com" },
        membership: { role: "owner", pay_rate_cents: 4200 },
        client: { workspace_id: world.workspace, name: "Client", color: "#000000", archived: 0 },
        project: { client_id: world.client, name: "Project", archived: 0 },
        assignment: { pay_rate_cents: 4300 },
        key: { digest: world.digest, scopes: '["timers:read"]', created_at: NOW, revoked_at: null },
        entry: { status: "active", ended_at: null, pay_rate_cents: 7500 }
      })
    })
  ))

  it.effect("lets the same process's other work on the store run while the load is staged, and loads one at a time", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const store = yield* Store.Store
      const staged = yield* Deferred.make<void>()
      const goOn = yield* Deferred.make<void>()
      const load = yield* Effect.fork(bulk((tx) =>
        Effect.gen(function*() {
          yield* tx.insert(batch(entries(0, 1200)))
          yield* Deferred.succeed(staged, undefined)
          yield* Deferred.await(goOn)
        })
      ))
      yield* Deferred.await(staged)
      // With the load in one transaction, this would wait for the connection until the load ends (never, here).
      yield* store.admin.insert(batch([entry(9000)])).pipe(
        Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => "the insert waited for the load" }),
        Effect.withClock(Clock.make())
      )
      expect(countEntries(filename)).toBe(1)
      // A second load in the same process waits for the first (one staging database per connection), then runs.
      const second = yield* Effect.fork(bulk((tx) => tx.insert(batch(entries(2000, 10)))))
      yield* Deferred.succeed(goOn, undefined)
      yield* Fiber.join(load)
      yield* Fiber.join(second)
      expect(countEntries(filename)).toBe(1211)
    })
  ))

  it.effect("leaves the file's write lock free while the load is staged, and takes it only to copy", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const staged = yield* Deferred.make<void>()
      const goOn = yield* Deferred.make<void>()
      const load = yield* Effect.fork(bulk((tx) =>
        Effect.gen(function*() {
          yield* tx.insert(batch(entries(0, 1200)))
          yield* tx.lookup({ ...emptyRefs, entryIds: [entry(0).id] })
          yield* Deferred.succeed(staged, undefined)
          yield* Deferred.await(goOn)
        })
      ))
      yield* Deferred.await(staged)
      // Another process writes while 1,200 rows are staged: with the load inside one write transaction, SQLITE_BUSY.
      expect(() => writeFromOutside(filename, "UPDATE workspaces SET name = name WHERE id = ?", ids.workspace))
        .not.toThrow()
      expect(countEntries(filename)).toBe(0)
      yield* Deferred.succeed(goOn, undefined)
      yield* Fiber.join(load)
      expect(countEntries(filename)).toBe(1200)
    })
  ))

  it.effect("names a row the file already has, and keeps nothing of the load", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const store = yield* Store.Store
      const taken = entry(5000)
      yield* store.admin.insert(batch([taken]))
      const failure = yield* Effect.flip(bulk((tx) =>
        Effect.gen(function*() {
          yield* tx.insert(batch(entries(0, 600)))
          yield* tx.insert(batch([...entries(600, 700), taken, ...entries(1300, 10)]))
        })
      ))
      expect(failure).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: taken.id, reason: "already exists" })
      expect(countEntries(filename)).toBe(1)
    })
  ))

  it.effect("rolls back every table of a refused load, not only the table whose copy failed", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const store = yield* Store.Store
      const taken = entry(5000)
      yield* store.admin.insert(batch([taken]))
      const tables = ["workspaces", "users", "memberships", "clients", "projects", "assignments", "api_keys"]
      const before = tables.map((table) => countOf(filename, table))
      const failure = yield* Effect.flip(bulk((tx) =>
        Effect.zipRight(tx.insert(worldDataset), tx.insert(batch([...entries(0, 600), taken])))
      ))
      expect(failure).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: taken.id, reason: "already exists" })
      expect(tables.map((table) => countOf(filename, table))).toEqual(before)
      expect(countEntries(filename)).toBe(1)
    })
  ))

  it.effect("refuses a duplicate inside the load when it copies the load, naming it", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const twice = entry(42)
      const failure = yield* Effect.flip(bulk((tx) =>
        Effect.gen(function*() {
          yield* tx.insert(batch(entries(0, 600)))
          yield* tx.insert(batch([entry(900), { ...twice, startedAt: NOW - 1, endedAt: NOW }]))
        })
      ))
      expect(failure).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: twice.id, reason: "already exists" })
      const active = yield* Effect.flip(bulk((tx) =>
        tx.insert(batch([
          entry(1, { status: "active", endedAt: null }),
          entry(2, { status: "active", endedAt: null })
        ]))
      ))
      expect(active).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: entry(2).id, reason: "second active entry" })
      expect(countEntries(filename)).toBe(0)
    })
  ))

  it.effect("refuses what another writer stored while the load was staged (a taken id, a second active entry)", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const load = (meanwhile: () => void, last: EntryRow) =>
        Effect.flip(bulk((tx) =>
          Effect.gen(function*() {
            yield* tx.insert(batch(entries(0, 800)))
            const found = yield* tx.lookup({ ...emptyRefs, entryIds: [last.id], userScopes: [{ workspaceId: ids.workspace, userId: ids.member }] })
            expect(found.entryIds).toEqual([])
            expect(found.activeEntries).toEqual([])
            meanwhile()
            yield* tx.insert(batch([last]))
          })
        ))
      const raced = entry(900)
      const taken = yield* load(() =>
        writeFromOutside(
          filename,
          `INSERT INTO time_entries (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at,
             pay_rate_cents) VALUES (?, ?, ?, ?, 'completed', 0, NULL, 1, 2, 0)`,
          raced.id,
          ids.workspace,
          ids.owner,
          ids.website
        ), raced)
      expect(taken).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: raced.id, reason: "already exists" })

      const running = entry(901, { userId: ids.member, status: "active", endedAt: null })
      const second = yield* load(() =>
        writeFromOutside(
          filename,
          `INSERT INTO time_entries (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at,
             pay_rate_cents) VALUES (?, ?, ?, ?, 'active', 0, NULL, 1, NULL, 0)`,
          uuid(0x60001),
          ids.workspace,
          ids.member,
          ids.website
        ), running)
      expect(second).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: running.id, reason: "second active entry" })
      // Only the two rows the other writer stored.
      expect(countEntries(filename)).toBe(2)
    })
  ))

  it.effect("names a membership or a key digest another writer stored while the load was staged", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const load = (dataset: Dataset, meanwhile: (db: Database.Database) => void) =>
        Effect.flip(bulk((tx) =>
          Effect.gen(function*() {
            yield* tx.insert(batch(entries(0, 600)))
            yield* tx.insert(dataset)
            backdoor(filename, meanwhile, true)
          })
        ))
      // Cy (`ids.removed`) is a member of no workspace: the load makes him one, and so does another writer meanwhile.
      const membership = yield* load(
        { ...emptyDataset, memberships: [{ workspaceId: ids.workspace, userId: ids.removed, role: "member", payRateCents: 1 }] },
        (db) =>
          db.prepare("INSERT INTO memberships (workspace_id, user_id, role, pay_rate_cents) VALUES (?, ?, 'member', 0)")
            .run(ids.workspace, ids.removed)
      )
      expect(membership).toMatchObject({
        _tag: "RecordConflict",
        entity: "membership",
        id: `${ids.workspace} ${ids.removed}`,
        reason: "already exists"
      })
      const digest = yield* load({ ...worldDataset, timeEntries: [] }, (db) =>
        db.prepare(
          `INSERT INTO api_keys (id, digest, user_id, workspace_id, scopes, created_at, revoked_at)
             VALUES (?, ?, ?, ?, '["timers:read"]', ?, NULL)`
        ).run(uuid(0x70009), world.digest, ids.owner, ids.workspace, NOW))
      expect(digest).toMatchObject({ _tag: "RecordConflict", entity: "apiKey", id: world.key, reason: "digest already exists" })
      expect(countEntries(filename)).toBe(0)
      expect(countOf(filename, "workspaces")).toBe(2)
    })
  ))

  it.effect("keeps nothing of a load that fails or is interrupted, and detaches its staging database", onFreshFile((filename, bulk) =>
    Effect.gen(function*() {
      const failed = yield* Effect.exit(bulk((tx) =>
        Effect.zipRight(tx.insert(batch(entries(0, 600))), Effect.fail("the caller's own failure" as const))
      ))
      expect(failed).toEqual(Exit.fail("the caller's own failure"))
      const staged = yield* Deferred.make<void>()
      const interrupted = yield* Effect.fork(bulk((tx) =>
        Effect.zipRight(tx.insert(batch(entries(0, 600))), Effect.zipRight(Deferred.succeed(staged, undefined), Effect.never))
      ))
      yield* Deferred.await(staged)
      yield* Fiber.interrupt(interrupted)
      expect(countEntries(filename)).toBe(0)
      // The staging database was detached each time (attaching it again would fail otherwise) and a new load starts
      // from empty staging tables: the copy holds its two rows, none of the 600 staged by each load above.
      yield* bulk((tx) => tx.insert(batch(entries(0, 2))))
      expect(countEntries(filename)).toBe(2)
    })
  ))
})
