/**
 * The adapter's own use of the wire protocol (`Exchange.ts`, `Database.ts`, `Transaction.ts`), on one pooled
 * connection so that every statement reuses what the one before left behind: rows read like node-postgres reads them,
 * the first time a statement is described and every later time from what was remembered; a refused statement leaves
 * the connection usable at once; a parameter that cannot be sent costs the connection, not the process; a statement
 * whose preparation was left in doubt by a failure is prepared again; a transaction whose write fails is rolled back
 * and leaves no transaction open.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type pg from "pg"
import { makePool, query, queryAll } from "../src/internal/Database.js"
import { raw } from "../src/internal/Sql.js"
import * as Transaction from "../src/internal/Transaction.js"
import { databaseLayer, onePool, TestDatabase } from "./support.js"

class OnePool extends Effect.Service<OnePool>()("test/OnePool", {
  scoped: Effect.flatMap(TestDatabase, (db) =>
    makePool(onePool(db.url)))
}) {}

const testLayer = Layer.provideMerge(OnePool.Default, databaseLayer)

/** A table of whole numbers of this test's own (created through the backdoor): its INSERT, and its rows as read back. */
const numbers = (name: string) =>
  Effect.gen(function*() {
    const db = yield* TestDatabase
    yield* db.sql(`CREATE TABLE IF NOT EXISTS ${name} (n integer PRIMARY KEY)`)
    return {
      insert: (n: number) => ({ text: `INSERT INTO ${name} (n) VALUES ($1::integer)`, values: [n] }),
      rows: db.sql(`SELECT n FROM ${name} ORDER BY n`)
    }
  })

/** Every column type the adapter reads, including a null and a `bigint` beyond 32 bits. */
const KINDS = {
  text: `SELECT $1::uuid AS id, $2::text AS name, $3::bigint AS at, $4::integer AS cents, $5::boolean AS flag,
    json_build_object('a', $2::text, 'n', $4::integer) AS doc, NULL::text AS nothing, ARRAY['x', $2::text] AS list,
    ''::text AS empty`,
  values: ["0193d3a2-7c4e-7b1a-9f00-1234567890ab", "naïve 😀 \\ \"quoted\"", 1_732_600_000_123, 2_147_483_647, false]
}

describe("the wire protocol", () => {
  layer(testLayer, { excludeTestServices: true })((it) => {
    it.effect("reads every column type as node-postgres does, the first time and every time after", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        const db = yield* TestDatabase
        const expected = yield* db.sql(KINDS.text, KINDS.values)
        const first = yield* query(pool, "reading", KINDS)
        const again = yield* query(pool, "reading", KINDS)
        expect(first).toEqual([{ ...expected[0], at: 1_732_600_000_123 }])
        expect(again).toEqual(first)
        // The backdoor's node-postgres reads a bigint as text; the adapter reads it as a number.
        expect(typeof expected[0]?.["at"]).toBe("string")
      }))

    it.effect("answers each statement of one round trip with its own rows, and none for a statement without", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        const rows = yield* queryAll(pool, "reading", [
          { text: "SELECT generate_series(1, $1::integer) AS n", values: [3] },
          raw("SELECT 1 WHERE false"),
          { text: "SELECT $1::text AS s", values: ["x"] }
        ])
        expect(rows).toEqual([[{ n: 1 }, { n: 2 }, { n: 3 }], [], [{ s: "x" }]])
      }))

    it.effect("leaves the connection usable right after a refused statement", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        const refused = yield* Effect.flip(query(pool, "dividing", { text: "SELECT 1 / $1::integer AS q", values: [0] }))
        expect(refused.message).toContain("22012")
        expect(yield* query(pool, "dividing", { text: "SELECT 1 / $1::integer AS q", values: [1] })).toEqual([{ q: 1 }])
      }))

    it.effect("names the statement the server refused, and keeps nothing of the statements sent with it", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        const kept = yield* numbers("exchange_kept")
        const refused = yield* Effect.flip(queryAll(pool, "writing", [
          kept.insert(1),
          { text: "SELECT 1 / $1::integer AS q", values: [0] }
        ]))
        expect(refused.index).toBe(1)
        expect(yield* kept.rows).toEqual([])
      }))

    it.effect("fails a statement whose parameter cannot be sent, and replaces its connection", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        const circular: Record<string, unknown> = {}
        circular["self"] = circular
        const refused = yield* Effect.flip(query(pool, "reading", { text: "SELECT $1::json AS j", values: [circular] }))
        expect(refused.message).toContain("could not be sent")
        expect(yield* query(pool, "reading", { text: "SELECT $1::json AS j", values: [{ a: 1 }] })).toEqual([{ j: { a: 1 } }])
      }))

    it.effect("prepares again a statement whose preparation a failure left in doubt", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        // Parsed, then refused at Bind (not a uuid): the statement exists, but its success was never confirmed.
        const fresh = `SELECT $1::uuid AS id, ${Date.now()} AS marker`
        const refused = yield* Effect.flip(query(pool, "reading", { text: fresh, values: ["not a uuid"] }))
        expect(refused.message).toContain("22P02")
        const id = "0193d3a2-7c4e-7b1a-9f00-1234567890ab"
        expect(yield* query(pool, "reading", { text: fresh, values: [id] })).toEqual([{ id, marker: expect.any(Number) }])
        // Skipped after an earlier statement's failure: never parsed, then prepared on its next use.
        const skipped = `SELECT $1::text AS s, ${Date.now()} AS marker`
        const failed = yield* Effect.flip(queryAll(pool, "reading", [
          { text: "SELECT 1 / $1::integer AS q", values: [0] },
          { text: skipped, values: ["x"] }
        ]))
        expect(failed.index).toBe(0)
        expect(yield* query(pool, "reading", { text: skipped, values: ["y"] })).toEqual([{ s: "y", marker: expect.any(Number) }])
      }))

    it.effect("keeps working past the number of statements a connection keeps prepared", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        for (let i = 0; i < 520; i++) {
          const rows = yield* query(pool, "reading", { text: `SELECT $1::integer + ${i} AS n`, values: [1] })
          expect(rows).toEqual([{ n: 1 + i }])
        }
      }))

    it.effect("rolls back a transaction whose write fails, and leaves no transaction open", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        const { insert, rows } = yield* numbers("exchange_tx")
        const exit = yield* Effect.exit(Transaction.run(pool, "writing", [], (send) =>
          Effect.map(send([insert(1)]), () => ({ result: "done", commitWith: [insert(2), insert(1)] }))))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(yield* rows).toEqual([])
        // The same connection, outside any transaction: each statement is a transaction of its own, with its own now().
        const now = raw("SELECT now()::text AS t")
        const before = yield* query(pool, "checking", now)
        yield* Effect.sleep("5 millis")
        expect(yield* query(pool, "checking", now)).not.toEqual(before)
        const ok = yield* Transaction.run(pool, "writing", [], () => Effect.succeed({ result: "done", commitWith: [insert(3)] }))
        expect(ok).toBe("done")
        expect(yield* rows).toEqual([{ n: 3 }])
      }))

    it.effect("commits what a transaction read and wrote before its body failed, when asked to", () =>
      Effect.gen(function*() {
        const pool: pg.Pool = yield* OnePool
        const { insert, rows } = yield* numbers("exchange_commit")
        const body = (send: Transaction.Send) => Effect.zipRight(send([insert(1)]), Effect.fail("refused" as const))
        expect(yield* Effect.flip(Transaction.run(pool, "writing", [], body))).toBe("refused")
        expect(yield* rows).toEqual([])
        expect(yield* Effect.flip(Transaction.run(pool, "writing", [], body, "commit"))).toBe("refused")
        expect(yield* rows).toEqual([{ n: 1 }])
      }))
  })
})
