import { describe, expect, it } from "@effect/vitest"
import { RateLimit, Store } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import * as Effect from "effect/Effect"
import { renameSync, rmSync } from "node:fs"
import { basename, dirname } from "node:path"
import { backdoor, tempFile } from "./support.js"

const TABLES = [
  "api_keys",
  "assignments",
  "clients",
  "idempotency_records",
  "memberships",
  "projects",
  "rate_limit_windows",
  "rate_limit_windows_packed",
  "settings",
  "stint_migrations",
  "time_entries",
  "users",
  "workspaces"
]

const schemaOf = (filename: string) =>
  backdoor(filename, (db) =>
    db.prepare("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all() as Array<{
      type: string
      name: string
      sql: string | null
    }>)

const migrationsOf = (filename: string) =>
  backdoor(filename, (db) =>
    db.prepare("SELECT migration_id AS id, name, created_at AS at FROM stint_migrations").all() as Array<{
      id: number
      name: string
      at: string
    }>)

/** Each key's rate-limit window, its bytes read back as times (`RateLimit.unpack`). */
const packedWindowsOf = (filename: string) =>
  backdoor(filename, (db) =>
    (db.prepare("SELECT key_id, accepted_at FROM rate_limit_windows_packed ORDER BY key_id").all() as Array<{
      key_id: string
      accepted_at: Uint8Array
    }>).map((row) => ({ key_id: row.key_id, accepted_at: RateLimit.unpack(row.accepted_at) })))

/** The indexed columns of an index, with their sort order. */
const indexColumns = (filename: string, index: string) =>
  backdoor(filename, (db) =>
    (db.prepare(`PRAGMA index_xinfo(${index})`).all() as Array<{ name: string | null; desc: number; key: number }>)
      .filter((column) => column.key === 1)
      .map((column) => `${column.name}${column.desc === 1 ? " DESC" : ""}`))

describe("migrations", () => {
  it.effect("a fresh file gets every table and index; running again is a no-op", () =>
    Effect.gen(function*() {
      const filename = tempFile()
      yield* SqliteStore.migrate({ filename })
      const schema = schemaOf(filename)
      expect(schema.filter((row) => row.type === "table").map((row) => row.name)).toEqual(TABLES)
      const migrations = migrationsOf(filename)
      expect(migrations.map(({ id, name }) => [id, name])).toEqual([
        [1, "initial"],
        [2, "memberships_by_user"],
        [3, "rate_limit_windows"],
        [4, "rate_limit_windows_packed"]
      ])

      yield* SqliteStore.migrate({ filename })
      // The layer migrates too, and finds nothing to do.
      yield* Effect.flatMap(Store.Store, (store) => store.ping).pipe(Effect.provide(SqliteStore.layer({ filename })))
      expect(schemaOf(filename)).toEqual(schema)
      expect(migrationsOf(filename)).toEqual(migrations)
    }))

  it.effect("indexes keyset pagination and allows one active entry per user and workspace", () =>
    Effect.gen(function*() {
      const filename = tempFile()
      yield* SqliteStore.migrate({ filename })
      expect(indexColumns(filename, "time_entries_history")).toEqual([
        "workspace_id",
        "user_id",
        "started_at DESC",
        "id DESC"
      ])
      expect(indexColumns(filename, "time_entries_project_history")).toEqual([
        "workspace_id",
        "user_id",
        "project_id",
        "started_at DESC",
        "id DESC"
      ])
      const active = backdoor(filename, (db) =>
        db.prepare("SELECT sql FROM sqlite_master WHERE name = 'time_entries_one_active'").get() as { sql: string })
      expect(active.sql).toMatch(/^CREATE UNIQUE INDEX time_entries_one_active\s+ON time_entries \(workspace_id, user_id\) WHERE status = 'active'$/)
      expect(indexColumns(filename, "time_entries_one_active")).toEqual(["workspace_id", "user_id"])
    }))

  it.effect("moves the remembered rate-limit hits into one window row per key", () =>
    Effect.gen(function*() {
      const filename = tempFile()
      yield* SqliteStore.migrate({ filename })
      // The file as 0002 left it: one row per accepted request.
      backdoor(filename, (db) => {
        db.exec(`DROP TABLE rate_limit_windows_packed;
          DROP TABLE rate_limit_windows;
          DELETE FROM stint_migrations WHERE migration_id >= 3;
          CREATE TABLE rate_limit_hits (key_id TEXT NOT NULL, at INTEGER NOT NULL) STRICT;
          INSERT INTO rate_limit_hits VALUES ('b', 30), ('a', 20), ('a', 10), ('b', 5);`)
      }, true)
      yield* SqliteStore.migrate({ filename })
      // 0003 gathers them in JSON arrays, 0004 packs those.
      expect(backdoor(filename, (db) => db.prepare("SELECT * FROM rate_limit_windows ORDER BY key_id").all())).toEqual([
        { key_id: "a", accepted_at: "[10,20]" },
        { key_id: "b", accepted_at: "[5,30]" }
      ])
      expect(packedWindowsOf(filename)).toEqual([
        { key_id: "a", accepted_at: [10, 20] },
        { key_id: "b", accepted_at: [5, 30] }
      ])
      expect(schemaOf(filename).some((row) => row.name === "rate_limit_hits")).toBe(false)
    }))

  it.effect("packs each key's window of JSON numbers into bytes, ascending, keeping every time", () =>
    Effect.gen(function*() {
      const filename = tempFile()
      yield* SqliteStore.migrate({ filename })
      // The file as 0003 left it: each window a JSON array, in the order the times were accepted.
      const late = 1_764_000_000_123
      backdoor(filename, (db) => {
        db.exec(`DROP TABLE rate_limit_windows_packed;
          DELETE FROM stint_migrations WHERE migration_id = 4;
          INSERT INTO rate_limit_windows VALUES
            ('a', '[${late},20,${late - 1},${2 ** 53 - 1}]'), ('b', '[5]'), ('c', '[]'), ('d', '"not a list"'),
            ('e', 'not JSON'), ('f', '[1.5,"7",-3,9]'), ('g', '{"x":7}'), ('h', '42');`)
      }, true)
      yield* SqliteStore.migrate({ filename })
      // An empty window needs no row; what no version wrote (fractions, text, negatives, not an array) is left out.
      expect(packedWindowsOf(filename)).toEqual([
        { key_id: "a", accepted_at: [20, late - 1, late, 2 ** 53 - 1] },
        { key_id: "b", accepted_at: [5] },
        { key_id: "f", accepted_at: [9] }
      ])
      // The JSON windows stay for a server of the earlier version still running on the file.
      const json = backdoor(filename, (db) => db.prepare("SELECT count(*) AS n FROM rate_limit_windows").get())
      expect(json).toEqual({ n: 8 })
    }))

  it.effect("opens the file in WAL mode", () =>
    Effect.gen(function*() {
      const filename = tempFile()
      yield* SqliteStore.migrate({ filename })
      expect(backdoor(filename, (db) => db.pragma("journal_mode", { simple: true }))).toBe("wal")
    }))
})

describe("readiness (Store.ping)", () => {
  /** The store's ping, with `change` applied to its file between opening it and pinging. */
  const pingAfter = (change: (filename: string) => void) => {
    const filename = tempFile()
    return Effect.flatMap(Store.Store, (store) =>
      Effect.zipRight(
        Effect.flatMap(Effect.exit(store.ping), (before) => {
          expect(before._tag).toBe("Success")
          change(filename)
          return Effect.void
        }),
        Effect.flip(store.ping)
      )).pipe(Effect.provide(SqliteStore.layer({ filename })))
  }

  it.effect("fails once the file is deleted under the open store", () =>
    Effect.map(pingAfter((filename) => rmSync(filename)), (error) => expect(error.message).toMatch(/ENOENT/)))

  it.effect("fails once another file is moved into its place (a backup restored under a running server)", () =>
    Effect.gen(function*() {
      const backup = tempFile("backup")
      yield* SqliteStore.migrate({ filename: backup })
      const error = yield* pingAfter((filename) => renameSync(backup, filename))
      expect(error.message).toContain("is not the file this server opened")
    }))

  it.effect("fails when a migration this build knows is missing from the file, even with a newer one there", () =>
    Effect.map(
      pingAfter((filename) =>
        backdoor(filename, (db) =>
          db.exec(`DELETE FROM stint_migrations WHERE migration_id = 2;
            INSERT INTO stint_migrations (migration_id, name) VALUES (5, 'of_a_newer_build')`), true)),
      (error) => expect(error.message).toContain("its schema has 3 of the 4 migrations this build needs")
    ))

  it.effect("stays ready with a migration of a newer build in the file (an instance upgraded first)", () => {
    const filename = tempFile()
    return Effect.flatMap(Store.Store, (store) => {
      backdoor(filename, (db) => db.exec("INSERT INTO stint_migrations (migration_id, name) VALUES (5, 'of_a_newer_build')"), true)
      return store.ping
    }).pipe(Effect.provide(SqliteStore.layer({ filename })))
  })

  it.effect("checks the file it opened by its absolute path, also after the process changes directory", () =>
    Effect.gen(function*() {
      const filename = tempFile()
      const before = process.cwd()
      process.chdir(dirname(filename))
      try {
        yield* Effect.flatMap(Store.Store, (store) =>
          Effect.gen(function*() {
            process.chdir(before)
            yield* store.ping
            rmSync(filename)
            expect((yield* Effect.flip(store.ping)).message).toContain(`ENOENT: no such file or directory, stat '${filename}'`)
          })).pipe(Effect.provide(SqliteStore.layer({ filename: basename(filename) })))
      } finally {
        process.chdir(before)
      }
    }))

  it.effect("an in-memory database (no file to check) is ready", () =>
    Effect.forEach([":memory:", ""], (filename) =>
      Effect.flatMap(Store.Store, (store) => store.ping).pipe(Effect.provide(SqliteStore.layer({ filename })))))

  it.effect("fails when the migrations table is dropped", () =>
    Effect.map(
      pingAfter((filename) => backdoor(filename, (db) => db.exec("DROP TABLE stint_migrations"), true)),
      (error) => expect(error.message).toMatch(/checking readiness failed: no such table: stint_migrations/)
    ))
})
