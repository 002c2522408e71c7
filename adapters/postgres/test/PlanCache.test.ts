/**
 * A connection does not keep a query plan made for a table far smaller than it has become (`Database.ts`,
 * `REPLAN_AFTER_MILLIS`). The hazard, reproduced: `idempotency_records` is empty and analyzed (as after seeding a
 * fresh database and `VACUUM ANALYZE`), a connection runs the timer read a few times and caches its plan, which
 * reads the idempotency record by scanning the table; then the table grows. Without statistics being refreshed
 * (autovacuum off) nothing invalidates that plan, and every start and stop on the connection would scan the whole
 * table. The store's connections plan generically (`SESSION_SETUP`), so the cached plan is the one PostgreSQL made
 * at first.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makePool, query } from "../src/internal/Database.js"
import { nameOf } from "../src/internal/Exchange.js"
import * as TimerStatements from "../src/internal/TimerStatements.js"
import { onePool, seedWorld, storeLayer, TestDatabase } from "./support.js"

/** The plan the pool's connection would run its prepared timer read with, for the user and the key `k`. */
const cachedPlan = (pool: Parameters<typeof query>[0], workspaceId: string, userId: string) =>
  Effect.map(
    query(pool, "explaining", {
      text: `EXPLAIN (COSTS OFF) EXECUTE ${
        nameOf(TimerStatements.read({ workspaceId, userId }, { idempotencyKey: "k" }).text)
      }('${workspaceId}', '${userId}', 'k', NULL, NULL)`,
      values: []
    }),
    (rows) => rows.map((row) => String(row["QUERY PLAN"])).join("\n")
  )

describe("a pooled connection's query plans", () => {
  layer(storeLayer(), { excludeTestServices: true })((it) => {
    it.scoped("are made again once older than the re-plan interval, for the tables as they have grown", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase
        const { ids } = yield* seedWorld()
        // No autovacuum on this table of the throwaway database (a server may run it): an ANALYZE between the growth and
        // the first look would replace the stale plan before the test could see it.
        yield* db.sql("ALTER TABLE idempotency_records SET (autovacuum_enabled = false)")
        yield* db.sql("ANALYZE idempotency_records")
        const replanAfterMillis = 5_000
        const pool = yield* makePool({ ...onePool(db.url), replanAfterMillis })
        const startedAt = Date.now()
        const read = TimerStatements.read({ workspaceId: ids.workspace, userId: ids.owner }, { idempotencyKey: "k" })
        for (let i = 0; i < 6; i++) yield* query(pool, "reading", read)
        yield* db.sql(
          `INSERT INTO idempotency_records
             (workspace_id, user_id, idempotency_key, fingerprint, created_at, response_status, response_body)
           SELECT $1, $2, 'grown-' || n, 'f', $3::bigint, 200, '{}' FROM generate_series(1, 20000) AS n`,
          [ids.workspace, ids.owner, Date.now()]
        )
        // Within the interval, the connection still has the plan it made for the empty table.
        const stale = yield* cachedPlan(pool, ids.workspace, ids.owner)
        expect(Date.now() - startedAt).toBeLessThan(replanAfterMillis)
        expect(stale).toMatch(/Seq Scan on idempotency_records/)
        // Once the interval has passed, its next use plans again: the record is found through the primary key.
        yield* Effect.sleep(replanAfterMillis + 100)
        const fresh = yield* cachedPlan(pool, ids.workspace, ids.owner)
        console.log(`The timer read's plan, made again after the table grew:\n${fresh}\n`)
        expect(fresh).toMatch(/Index Scan using idempotency_records_pkey on idempotency_records/)
        expect(fresh).not.toMatch(/Seq Scan on idempotency_records/)
        // The statements stay prepared: the read still runs, under the same name.
        expect(yield* query(pool, "reading", read)).toHaveLength(1)
      }))
  })
})
