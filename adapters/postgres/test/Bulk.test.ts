/**
 * `AdminStore.bulk` on PostgreSQL with a batch's `COPY` still running while the caller prepares the next one: every
 * batch stored on success, and a batch the database refuses reported as that batch's `RecordConflict` (before
 * whatever the caller did afterwards, even when it is the last batch) with nothing of the load left behind.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Store } from "@stint/core"
import { type Dataset, emptyDataset, emptyRefs, type EntryRow } from "@stint/core/Records"
import * as Effect from "effect/Effect"
import { randomUUID } from "node:crypto"
import { seedWorld, storeLayer, TestDatabase } from "./support.js"

const NO_ROWS: Dataset = emptyDataset

const entries = (world: { readonly workspace: string; readonly owner: string; readonly website: string }, n: number) =>
  Array.from({ length: n }, (_, i): EntryRow => ({
    id: randomUUID(),
    workspaceId: world.workspace,
    userId: world.owner,
    projectId: world.website,
    status: "completed",
    billable: i % 2 === 0,
    note: i % 3 === 0 ? `note ${i}\twith a tab` : null,
    startedAt: Date.UTC(2024, 0, 1) + i * 60_000,
    endedAt: Date.UTC(2024, 0, 1) + i * 60_000 + 30_000,
    payRateCents: 7500
  }))

const batch = (timeEntries: ReadonlyArray<EntryRow>): Dataset => ({ ...NO_ROWS, timeEntries })

/** The number of entries stored with one of `ids`. */
const stored = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(TestDatabase, (db) =>
    Effect.map(
      db.sql<{ n: number }>("SELECT count(*)::int AS n FROM time_entries WHERE id = ANY($1::uuid[])", [ids]),
      (rows) => rows[0]?.n ?? -1
    ))

describe("PgStore bulk", () => {
  layer(storeLayer(), { excludeTestServices: true })((it) => {
    it.effect("stores every batch, the rows of earlier batches visible to later lookups", () =>
      Effect.gen(function*() {
        const { ids } = yield* seedWorld()
        const store = yield* Store.Store
        const bulk = store.admin.bulk
        if (bulk === undefined) return expect.unreachable("PgStore has a bulk path")
        const batches = [entries(ids, 500), entries(ids, 500), entries(ids, 3)]
        const seen = yield* bulk((tx) =>
          Effect.forEach(batches, (rows, n) =>
            Effect.gen(function*() {
              const earlier = batches[n - 1]?.map((e) => e.id) ?? []
              const found = yield* tx.lookup({
                workspaceIds: [],
                userIds: [],
                clientIds: [],
                projectIds: [],
                entryIds: earlier,
                apiKeyIds: [],
                apiKeyDigests: [],
                userScopes: [],
                assignments: []
              })
              yield* tx.insert(batch(rows))
              return found.entryIds.length
            })))
        expect(seen).toEqual([0, 500, 500])
        expect(yield* stored(batches.flat().map((e) => e.id))).toBe(1003)
      }))

    it.effect("reports a refused batch as its own conflict before what came after, and keeps nothing", () =>
      Effect.gen(function*() {
        const { ids } = yield* seedWorld()
        const store = yield* Store.Store
        const bulk = store.admin.bulk
        if (bulk === undefined) return expect.unreachable("PgStore has a bulk path")
        const [taken] = entries(ids, 1)
        if (taken === undefined) return expect.unreachable("one entry")
        yield* store.admin.insert(batch([taken]))
        const good = entries(ids, 200)
        const clash = [...entries(ids, 50), taken]
        // The caller goes on after the refused batch: a later lookup, then a failure of its own.
        const failure = yield* Effect.flip(bulk((tx) =>
          Effect.gen(function*() {
            yield* tx.insert(batch(good))
            yield* tx.insert(batch(clash))
            yield* tx.lookup({ ...emptyRefs, workspaceIds: [ids.workspace] })
            return yield* Effect.fail("the caller's own later failure" as const)
          })
        ))
        expect(failure).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: taken.id, reason: "already exists" })
        expect(yield* stored([...good, ...clash].map((e) => e.id))).toBe(1)
        // The caller fails right after handing over the refused batch: the batch's conflict still comes first.
        const direct = yield* Effect.flip(bulk((tx) =>
          Effect.zipRight(tx.insert(batch(clash)), Effect.fail("the caller's own later failure" as const))
        ))
        expect(direct).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: taken.id, reason: "already exists" })
        expect(yield* stored(clash.map((e) => e.id))).toBe(1)
      }))

    it.effect("names the entry behind a second active entry, found after its batch was handed over", () =>
      Effect.gen(function*() {
        const { ids } = yield* seedWorld()
        const store = yield* Store.Store
        const bulk = store.admin.bulk
        if (bulk === undefined) return expect.unreachable("PgStore has a bulk path")
        const [running, second] = entries(ids, 2).map((e): EntryRow => ({ ...e, status: "active", endedAt: null }))
        if (running === undefined || second === undefined) return expect.unreachable("two entries")
        yield* store.admin.insert(batch([running]))
        const before = entries(ids, 20)
        const failure = yield* Effect.flip(bulk((tx) =>
          Effect.gen(function*() {
            yield* tx.insert(batch([...before, second, ...entries(ids, 20)]))
            return "done"
          })
        ))
        expect(failure).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: second.id, reason: "second active entry" })
        expect(yield* stored([...before, second].map((e) => e.id))).toBe(0)
      }))

    it.effect("reports a refused last batch as the failure of bulk, and commits nothing", () =>
      Effect.gen(function*() {
        const { ids } = yield* seedWorld()
        const store = yield* Store.Store
        const bulk = store.admin.bulk
        if (bulk === undefined) return expect.unreachable("PgStore has a bulk path")
        const good = entries(ids, 300)
        // A project of another workspace: the composite foreign key refuses it (the core would have caught it).
        const [stray] = entries({ ...ids, website: ids.piper }, 1)
        if (stray === undefined) return expect.unreachable("one entry")
        const failure = yield* Effect.flip(bulk((tx) =>
          Effect.gen(function*() {
            yield* tx.insert(batch(good))
            yield* tx.insert(batch([...entries(ids, 10), stray]))
            return "done"
          })
        ))
        expect(failure).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry" })
        expect(String((failure as { readonly reason?: unknown }).reason)).toMatch(/refers to a missing record/)
        expect(yield* stored([...good, stray].map((e) => e.id))).toBe(0)
      }))
  })
})
