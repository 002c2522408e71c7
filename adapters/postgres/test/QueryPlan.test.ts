/**
 * Keyset pagination is an index range scan: with many users' entries in the table, the plan of each history page
 * (first page, a later page, with a project filter) reads `time_entries` through its history index, with the cursor
 * as an index condition, and never sorts the table; so does the generic plan PostgreSQL may switch to for the prepared
 * statement the store sends. And on the store's own connections it stays one for a user with far more entries than
 * the average, deep in their history, where the planner's estimate would otherwise choose to read and sort every
 * entry past the cursor. The plans are printed.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import pg from "pg"
import { ApiKey, Hashing } from "@stint/core"
import * as Database from "../src/internal/Database.js"
import * as Queries from "../src/internal/Queries.js"
import { onePool, seedWorld, storeLayer, TestDatabase } from "./support.js"

const explain = (text: string, values: ReadonlyArray<unknown>) =>
  Effect.flatMap(TestDatabase, (db) =>
    Effect.map(db.sql<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) ${text}`, values), (rows) =>
      rows.map((row) => row["QUERY PLAN"]).join("\n")))

/** The plan of `text` as a prepared statement forced to its generic plan (parameters unknown when planning). */
const genericPlan = (url: string, text: string, values: ReadonlyArray<unknown>) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query("SET plan_cache_mode = force_generic_plan")
      await client.query(`PREPARE page AS ${text}`)
      const args = values.map((value) => client.escapeLiteral(String(value))).join(", ")
      const rows = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN (COSTS OFF) EXECUTE page(${args})`)
      return rows.rows.map((row) => row["QUERY PLAN"]).join("\n")
    } finally {
      await client.end()
    }
  })

describe("history pages", () => {
  layer(storeLayer(), { excludeTestServices: true })((it) => {
    it.effect("are index range scans of time_entries", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase
        const { ids, keys } = yield* seedWorld()
        // 40 000 entries of 200 users (the world's owner among them), spread over two projects.
        const users = [ids.owner, ...Array.from({ length: 199 }, () => randomUUID())]
        yield* db.sql("INSERT INTO users (id, name, email) SELECT u, 'u', 'u' FROM unnest($1::uuid[]) AS u WHERE u <> $2", [users, ids.owner])
        yield* db.sql(
          `INSERT INTO time_entries (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents)
           SELECT gen_random_uuid(), $1, u, CASE WHEN n % 3 = 0 THEN $2::uuid ELSE $3::uuid END, 'completed', true, NULL,
             1700000000000 + n * 60000, 1700000000000 + n * 60000 + 1000, 0
           FROM unnest($4::uuid[]) AS u, generate_series(1, 200) AS n`,
          [ids.workspace, ids.vaccine, ids.website, users]
        )
        yield* db.sql("ANALYZE time_entries")
        const scope = { workspaceId: ids.workspace, userId: ids.owner }
        const digest = ApiKey.digestWith(Hashing.portable, keys.owner)
        const cursor = { startedAt: 1700000000000 + 100 * 60000, id: randomUUID() }
        const pages = {
          first: Queries.listEntries(scope, { projectId: null, after: null, limit: 21 }),
          later: Queries.listEntries(scope, { projectId: null, after: cursor, limit: 21 }),
          project: Queries.listEntries(scope, { projectId: ids.vaccine, after: cursor, limit: 21 }),
          // Read along with the authentication: the scope comes from the key's row.
          "first (by digest)": Queries.listEntriesByDigest(digest, { projectId: null, after: null, limit: 21 }),
          "later (by digest)": Queries.listEntriesByDigest(digest, { projectId: null, after: cursor, limit: 21 }),
          "project (by digest)": Queries.listEntriesByDigest(digest, { projectId: ids.vaccine, after: cursor, limit: 21 })
        }
        for (const [name, page] of Object.entries(pages)) {
          const plan = yield* explain(page.text, page.values)
          console.log(`EXPLAIN of the ${name} page:\n${plan}\n`)
          const index = name.startsWith("project") ? "time_entries_project_history" : "time_entries_history"
          expect(plan).toMatch(new RegExp(`Index Scan using ${index} on time_entries`))
          expect(plan).not.toMatch(/Seq Scan on time_entries/)
          expect(plan).not.toMatch(/Sort/)
          if (!name.startsWith("first")) expect(plan).toMatch(/Index Cond: .*ROW\((time_entries\.)?started_at, (time_entries\.)?id\) < ROW\(/)
          // The store prepares its statements: the generic plan PostgreSQL may adopt for them is a range scan too.
          const generic = yield* genericPlan(db.url, page.text, page.values)
          expect(generic).toMatch(new RegExp(`Index Scan using ${index} on time_entries`))
          expect(generic).not.toMatch(/Seq Scan on time_entries|Sort/)
          if (name.startsWith("later")) console.log(`Generic plan of the later page:\n${generic}\n`)
          // The page really is what the store answers.
          const rows = yield* db.sql(page.text, page.values)
          expect(rows).toHaveLength(21)
        }
      }))
  })
})

describe("a deep page of a user with far more entries than the others", () => {
  layer(storeLayer(), { excludeTestServices: true })((it) => {
    it.scoped("is a range scan that stops at the limit on the store's connections (no bitmap scan of the rest)", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase
        const { ids, keys } = yield* seedWorld()
        // The owner has 20,000 entries; 64 other users have 200 each over the same months, all stored in no useful order
        // for an index scan: the average user has about 500, so the planner expects fewer entries past a deep cursor
        // than the page's 101.
        const others = Array.from({ length: 64 }, () => randomUUID())
        yield* db.sql("INSERT INTO users (id, name, email) SELECT u, 'u', 'u' FROM unnest($1::uuid[]) AS u", [others])
        const entries = (workspaceId: string, projectId: string, users: ReadonlyArray<string>, count: number, stepMillis: number) =>
          db.sql(
            `INSERT INTO time_entries (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents)
             SELECT gen_random_uuid(), $1, u, $2, 'completed', true, NULL, 1700000000000 + n * $5::bigint,
               1700000000000 + n * $5::bigint + 1000, 0
             FROM unnest($3::uuid[]) AS u, generate_series(1, $4::integer) AS n
             ORDER BY md5(n::text || 'c')`,
            [workspaceId, projectId, users, count, stepMillis]
          )
        yield* entries(ids.workspace, ids.website, [ids.owner], 20_000, 60_000)
        yield* entries(ids.otherWorkspace, ids.piper, others, 200, 6_000_000)
        // Statistics from every row, not a sample, so that the planner's estimates are the same on every run.
        yield* db.sql(`ALTER TABLE time_entries ALTER COLUMN workspace_id SET STATISTICS 1000,
          ALTER COLUMN user_id SET STATISTICS 1000, ALTER COLUMN started_at SET STATISTICS 1000`)
        yield* db.sql("VACUUM ANALYZE time_entries")
        // The owner's page of 100 after the first `depth` entries of their history, as the store asks for it.
        const pageAt = (depth: number) =>
          Effect.map(
            db.sql<{ startedAt: string; id: string }>(
              `SELECT started_at AS "startedAt", id FROM time_entries WHERE user_id = $1
               ORDER BY started_at DESC, id DESC OFFSET $2 LIMIT 1`,
              [ids.owner, depth]
            ),
            ([position]) =>
              Queries.listEntriesByDigest(ApiKey.digestWith(Hashing.portable, keys.owner), {
                projectId: null,
                after: { startedAt: Number(position?.startedAt), id: position?.id ?? "" },
                limit: 101
              })
          )
        // At 70% of the owner's history: 6,000 entries lie past the cursor, the planner expects about 80.
        const page = yield* pageAt(14_000)
        const pool = yield* Database.makePool(onePool(db.url))
        const run = (text: string) => Database.query(pool, "explaining", { text, values: [] })
        // The setting that keeps the planner from reading them all, on every connection the store opens; and the
        // store's statements are planned once, for any values.
        expect(yield* run("SHOW enable_bitmapscan")).toEqual([{ enable_bitmapscan: "off" }])
        expect(yield* run("SHOW plan_cache_mode")).toEqual([{ plan_cache_mode: "force_generic_plan" }])
        // The page as the store sends it, a prepared statement, on a connection opened as the store opens its own
        // (`makePool`, one connection); its values are a digest, a number and a UUID.
        yield* run(`PREPARE deep AS ${page.text}`)
        const execute = `EXECUTE deep(${page.values.map((value) => `'${String(value)}'`).join(", ")})`
        // Whichever plan PostgreSQL uses for it, one made for these values or the generic one (the planner expects
        // about 80 rows with either), it must be the range scan.
        for (const mode of ["force_custom_plan", "force_generic_plan"]) {
          yield* run(`SET plan_cache_mode = ${mode}`)
          const plan = (yield* run(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${execute}`))
            .map((row) => String(row["QUERY PLAN"])).join("\n")
          console.log(`EXPLAIN ANALYZE of the deep page on the store's connection (${mode}):\n${plan}\n`)
          expect(plan).toMatch(/Index Scan using time_entries_history on time_entries \(actual rows=101(\.00)? loops=1\)/)
          expect(plan).not.toMatch(/Bitmap/)
        }
        yield* run("SET plan_cache_mode = auto")
        const rows = yield* Database.query(pool, "reading the page", page)
        expect(rows).toHaveLength(101)
        // Its text alone, under PostgreSQL's default plan cache mode (set back above), also lets a later page sent
        // again and again settle on its generic plan instead of being planned afresh each time: at 90% depth, the
        // cursor's values would make every plan made for them look cheaper than the generic one.
        const deepPage = yield* pageAt(18_000)
        for (let again = 0; again < 12; again++) yield* Database.query(pool, "reading the page", deepPage)
        const [counts] = yield* Database.query(pool, "counting plans", {
          text: "SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement = $1",
          values: [deepPage.text]
        })
        console.log(`Plans of the later pages: ${JSON.stringify(counts)}`)
        expect(counts?.["generic"]).toBeGreaterThanOrEqual(5)
      }))
  })
})
