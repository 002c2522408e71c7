/**
 * Migrations and startup: instances starting at once on an empty database migrate it once and share one cursor secret;
 * migrating again changes nothing; a configured secret is used as given; bad options and unreachable servers are
 * `StoreError`s, quickly.
 */
import { describe, expect, it } from "@effect/vitest"
import { PgStore } from "@stint/postgres"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import pg from "pg"
import { freePort } from "../../../testing/EmbeddedPostgres.js"
import { databaseLayer, TestDatabase } from "./support.js"

describe("migrations", () => {
  it.scoped("three instances starting at once on an empty database migrate it once and share the cursor secret", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const stores = yield* Effect.all(Array.from({ length: 3 }, () => PgStore.make({ url: db.url })), {
        concurrency: "unbounded"
      })
      const secrets = yield* Effect.forEach(stores, (store) => store.cursorSecret)
      expect(secrets[0]).toHaveLength(32)
      for (const secret of secrets) expect(Buffer.from(secret).equals(Buffer.from(secrets[0] ?? []))).toBe(true)
      expect(yield* db.sql("SELECT migration_id, name FROM stint_migrations")).toEqual([{ migration_id: 1, name: "initial" }])
      expect(yield* db.sql("SELECT name FROM settings")).toEqual([{ name: "cursor_secret" }])
      // Migrating again is a no-op; a later instance reads the same secret.
      yield* PgStore.migrate({ url: db.url })
      const later = yield* PgStore.make({ url: db.url })
      expect(Buffer.from(yield* later.cursorSecret).equals(Buffer.from(secrets[0] ?? []))).toBe(true)
      const indexes = yield* db.sql<{ indexname: string; indexdef: string }>(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'time_entries' ORDER BY indexname"
      )
      expect(indexes.find((i) => i.indexname === "time_entries_one_active")?.indexdef).toMatch(
        /CREATE UNIQUE INDEX .* \(workspace_id, user_id\) WHERE \(status = 'active'::text\)/
      )
      expect(indexes.find((i) => i.indexname === "time_entries_history")?.indexdef).toMatch(
        /\(workspace_id, user_id, started_at DESC, id DESC\)/
      )
    }).pipe(Effect.provide(databaseLayer)))

  it.scoped("uses a configured cursor secret and stores none", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const secret = new Uint8Array(32).fill(7)
      const store = yield* PgStore.make({ url: db.url, cursorSecret: secret })
      expect(yield* store.cursorSecret).toEqual(secret)
      expect(yield* db.sql("SELECT name FROM settings")).toEqual([])
    }).pipe(Effect.provide(databaseLayer)))

  it.effect("refuses addresses that are not postgres URLs and options that are not positive integers", () =>
    Effect.gen(function*() {
      for (const url of ["sqlite:./x.db", "mysql://localhost/x", "postgres//nope", ""]) {
        const error = yield* Effect.flip(PgStore.migrate({ url }))
        expect(error._tag).toBe("StoreError")
      }
      for (
        const options of [{ poolSize: 0 }, { connectTimeoutMillis: -1 }, { statementTimeoutMillis: 1.5 }, { replanAfterMillis: 0 }]
      ) {
        const error = yield* Effect.flip(Layer.build(PgStore.layer({ url: "postgres://localhost/x", ...options })).pipe(Effect.scoped))
        expect(error._tag).toBe("StoreError")
        expect(error.message).toMatch(/must be a positive integer/)
      }
    }))

  it.live("fails with a StoreError within the connect timeout when no server answers", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const began = Date.now()
      const error = yield* Effect.flip(PgStore.migrate({ url: `postgres://postgres@127.0.0.1:${port}/x`, connectTimeoutMillis: 1_000 }))
      expect(error._tag).toBe("StoreError")
      expect(error.message).toMatch(/PostgreSQL/)
      expect(Date.now() - began).toBeLessThan(3_000)
    }))
})

describe("readiness (Store.ping)", () => {
  it.scoped("fails when a migration this build knows is missing, or the migrations table is gone", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const store = yield* PgStore.make({ url: db.url })
      yield* store.ping
      // A migration of a newer build (an instance upgraded first) leaves this one ready: its schema is still there.
      yield* db.sql("INSERT INTO stint_migrations (migration_id, name) VALUES (2, 'of_a_newer_build')")
      yield* store.ping
      yield* db.sql("DELETE FROM stint_migrations WHERE migration_id = 1")
      expect((yield* Effect.flip(store.ping)).message).toBe(
        "PostgreSQL: not ready: its schema has 0 of the 1 migrations this build needs"
      )
      yield* db.sql("DROP TABLE stint_migrations")
      expect((yield* Effect.flip(store.ping)).message).toMatch(
        /^PostgreSQL: checking readiness failed: .*relation "stint_migrations" does not exist/
      )
    }).pipe(Effect.provide(databaseLayer)))

  it.scoped("stays ready, at once, while another instance's start or migration holds the migrations table", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const store = yield* PgStore.make({ url: db.url })
      // What the Migrator does inside every start's migration transaction; released before the database is dropped.
      const holdingTheTable = Effect.acquireRelease(
        Effect.promise(async () => {
          const client = new pg.Client({ connectionString: db.url })
          client.on("error", () => undefined)
          await client.connect()
          await client.query("BEGIN")
          await client.query("LOCK TABLE stint_migrations IN ACCESS EXCLUSIVE MODE")
          return client
        }),
        (client) => Effect.promise(() => client.query("ROLLBACK").then(() => client.end()))
      )
      yield* Effect.scoped(Effect.zipRight(holdingTheTable, Effect.gen(function*() {
        const began = Date.now()
        yield* store.ping
        expect(Date.now() - began).toBeLessThan(2_000)
      })))
    }).pipe(Effect.provide(databaseLayer)))

  it.scoped("fails when the stored cursor secret is not the one the store started with (a database replaced)", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const store = yield* PgStore.make({ url: db.url })
      yield* store.ping
      yield* db.sql("UPDATE settings SET value = $1 WHERE name = 'cursor_secret'", [Buffer.alloc(32, 1)])
      expect((yield* Effect.flip(store.ping)).message).toMatch(/^PostgreSQL: not ready: its cursor secret is not the one/)
      yield* db.sql("DELETE FROM settings")
      expect((yield* Effect.flip(store.ping)).message).toMatch(/^PostgreSQL: not ready: its cursor secret is not the one/)
    }).pipe(Effect.provide(databaseLayer)))

  it.scoped("with a configured cursor secret, the database keeps none and the store is ready", () =>
    Effect.gen(function*() {
      const db = yield* TestDatabase
      const store = yield* PgStore.make({ url: db.url, cursorSecret: new Uint8Array(32).fill(7) })
      yield* store.ping
      expect(yield* db.sql("SELECT name FROM settings")).toEqual([])
    }).pipe(Effect.provide(databaseLayer)))
})
