/**
 * The connection's synchronous transaction (`transactionSync`, which `Store.authenticate` runs in): rolled back when
 * its body throws, never begun while another transaction holds the connection, and an authentication whose read along
 * made SQLite end the transaction fails as a whole instead of claiming a count that is gone. The `@effect/sql` client
 * on the same connection waits for a transaction in progress too.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { describe, expect, it } from "@effect/vitest"
import { ApiKey, Hashing, Store } from "@stint/core"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { authenticate } from "../src/internal/access.js"
import type { Connection, Prepared } from "../src/internal/connection.js"
import { open } from "../src/internal/database.js"
import { backdoor, freshLayer, keys, NOW, seed, tempFile } from "./support.js"

const TABLE = "CREATE TABLE IF NOT EXISTS t (n INTEGER NOT NULL)"
const countOf = (connection: Connection) => connection.prepare("SELECT count(*) FROM t").pluck().get() as unknown as number

/** A migrated and seeded file, and a connection of its own on it. */
const seeded = (filename: string) =>
  Effect.zipRight(
    seed().pipe(Effect.provide(freshLayer(filename))),
    open({ filename })
  )

describe("Connection.transactionSync", () => {
  it.scoped("rolls back a body that throws after writing, fails about its work, and the next one runs", () =>
    Effect.gen(function*() {
      const connection = yield* open({ filename: tempFile() })
      connection.prepare(TABLE).run()
      const error = yield* Effect.flip(connection.transactionSync("writing t", () => {
        connection.prepare("INSERT INTO t (n) VALUES (1)").run()
        throw new Error("boom")
      }))
      expect([error._tag, error.message]).toEqual(["StoreError", "SQLite: writing t failed: boom"])
      expect([countOf(connection), connection.inTransaction()]).toEqual([0, false])
      yield* connection.transactionSync("writing t", () => connection.prepare("INSERT INTO t (n) VALUES (2)").run())
      expect(countOf(connection)).toBe(1)
    }).pipe(Effect.provide(Reactivity.layer)))

  it.scoped("waits while another transaction holds the connection, and begins after its commit", () =>
    Effect.gen(function*() {
      const connection = yield* open({ filename: tempFile() })
      connection.prepare(TABLE).run()
      const events: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(connection.transaction(
        "holding",
        Effect.zipRight(
          Effect.sync(() => events.push("holder began")),
          Effect.zipRight(Deferred.await(gate), Effect.sync(() => connection.prepare("INSERT INTO t (n) VALUES (1)").run()))
        ),
        () => events.push("holder commits")
      ))
      yield* Effect.yieldNow().pipe(Effect.repeatN(5))
      const waiter = yield* Effect.fork(connection.transactionSync("waiting", () => {
        events.push(`waiter began, ${countOf(connection)} row`)
      }))
      yield* Effect.yieldNow().pipe(Effect.repeatN(5))
      expect(events).toEqual(["holder began"])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.join(waiter)
      expect(events).toEqual(["holder began", "holder commits", "waiter began, 1 row"])
    }).pipe(Effect.provide(Reactivity.layer)))
})

describe("the @effect/sql client on the connection", () => {
  it.scoped("waits for a transaction in progress, and never reads its uncommitted rows", () =>
    Effect.gen(function*() {
      const connection = yield* open({ filename: tempFile() })
      connection.prepare(TABLE).run()
      const gate = yield* Deferred.make<void>()
      const began = yield* Deferred.make<void>()
      // Inserts a row, waits, and is rolled back: a statement run inside it would count that row.
      const holder = yield* Effect.fork(Effect.either(connection.transaction(
        "holding",
        Effect.zipRight(
          Effect.sync(() => connection.prepare("INSERT INTO t (n) VALUES (1)").run()),
          Effect.zipRight(Deferred.succeed(began, undefined), Effect.zipRight(Deferred.await(gate), Effect.fail("undo")))
        )
      )))
      yield* Deferred.await(began)
      const counted = yield* Effect.fork(connection.sql<{ readonly n: number }>`SELECT count(*) AS n FROM t`)
      yield* Effect.yieldNow().pipe(Effect.repeatN(5))
      expect(counted.unsafePoll()).toBeNull()
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      expect(yield* Fiber.join(counted)).toEqual([{ n: 0 }])
    }).pipe(Effect.provide(Reactivity.layer)))
})

describe("Store.authenticate's read along on SQLite", () => {
  it.scoped("fails the authentication, counting nothing, when the read made SQLite end the transaction", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      const connection = yield* seeded(filename)
      const history = (text: string) => text.includes("FROM time_entries e")
      // The read along fails as a full disk would: SQLite has rolled back the whole transaction when it throws.
      const ended: Prepared = new Proxy(connection.prepare("SELECT 1"), {
        get: (target, property) =>
          property === "get" || property === "all"
            ? () => {
              connection.prepare("ROLLBACK").run()
              throw new Error("SQLITE_FULL: database or disk is full")
            }
            : Reflect.get(target, property)
      })
      const faulty: Connection = { ...connection, prepare: (text) => history(text) ? ended : connection.prepare(text) }
      const windows = () => backdoor(filename, (db) => db.prepare("SELECT * FROM rate_limit_windows_packed").all())
      const before = windows()
      const digest = ApiKey.digestWith(Hashing.portable, keys.owner)
      const along: Store.ReadAlong = { _tag: "ActiveEntry" }
      const error = yield* Effect.flip(authenticate(faulty)(digest, NOW, { limit: 10, windowMillis: 60_000 }, along))
      expect([error._tag, error.message]).toEqual([
        "StoreError",
        "SQLite: authenticating a key failed: SQLITE_FULL: database or disk is full"
      ])
      expect(windows()).toEqual(before)
      expect(connection.inTransaction()).toBe(false)
      // Without the read, the same key authenticates and is counted.
      const found = yield* authenticate(faulty)(digest, NOW, { limit: 10, windowMillis: 60_000 })
      expect(Option.map(found, (f) => f.accepted)).toEqual(Option.some(true))
      expect(windows()).toHaveLength(before.length + 1)
    }).pipe(Effect.provide(Reactivity.layer))
  })
})
