/**
 * The core's operations against the PostgreSQL store, with the rows checked through a backdoor reader (plain SQL):
 * starts, stops, replays, conflicts, pagination, the rate limit, createProject, refused keys, and what is stored.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Admin, ApiKey, Fixture, Hashing, Operations, Settings, Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { as, seedWorld, start, stop, storeLayer, TestDatabase } from "./support.js"

const code = <A, E extends { readonly code: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.code)

describe("PgStore", () => {
  layer(storeLayer(), { excludeTestServices: true })((it) => {
    it.effect("starts, completes the running timer on the next start, stops, and refuses a second stop", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        const db = yield* TestDatabase
        expect((yield* Operations.getActiveTimer(as(keys.owner))).timer).toBeNull()
        const first = yield* Operations.startTimer(start(keys.owner, "k1", { projectId: ids.website, note: "hello" }))
        expect(first.replayed).toBe(false)
        const timer = first.response.timer
        expect(timer).toMatchObject({ projectId: ids.website, clientId: ids.globex, payRateCents: 7500, note: "hello" })
        expect(first.response.stoppedTimerId).toBeNull()
        const second = yield* Operations.startTimer(start(keys.owner, "k2", { projectId: ids.vaccine, billable: false }))
        expect(second.response.stoppedTimerId).toBe(timer?.id)
        const active = yield* db.sql<{ id: string }>(
          "SELECT id FROM time_entries WHERE workspace_id = $1 AND user_id = $2 AND status = 'active'",
          [ids.workspace, ids.owner]
        )
        expect(active.map((row) => row.id)).toEqual([second.response.timer?.id])
        const stopped = yield* Operations.stopTimer(stop(keys.owner, "k3", second.response.timer?.id ?? ""))
        expect(stopped.response).toEqual({ timer: null, stoppedTimerId: second.response.timer?.id })
        expect(yield* code(Operations.stopTimer(stop(keys.owner, "k4", second.response.timer?.id ?? ""))))
          .toBe("TIMER_ALREADY_STOPPED")
        expect(yield* code(Operations.stopTimer(stop(keys.member, "k4", timer?.id ?? "")))).toBe("TIMER_NOT_FOUND")
        expect((yield* Operations.getActiveTimer(as(keys.owner))).timer).toBeNull()
        // A voided entry.
        const third = yield* Operations.startTimer(start(keys.owner, "k5", { projectId: ids.website }))
        yield* Admin.voidEntry(third.response.timer?.id ?? "")
        expect(yield* code(Operations.stopTimer(stop(keys.owner, "k6", third.response.timer?.id ?? "")))).toBe("TIMER_VOIDED")
        // Projects not ready for tracking.
        for (const projectId of [ids.oldSite, ids.initechApp, ids.piper, randomUUID()]) {
          expect(yield* code(Operations.startTimer(start(keys.member, `p-${projectId}`, { projectId })))).toBe("PROJECT_NOT_FOUND")
        }
      }))

    it.effect("replays an idempotent request byte for byte, refuses another input under the key, and stores the record with the change", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        const db = yield* TestDatabase
        const first = yield* Operations.startTimer(start(keys.owner, "  same  ", { projectId: ids.website, note: "n" }))
        const again = yield* Operations.startTimer(start(keys.owner, "same", { note: "n", projectId: ids.website }))
        expect(again.replayed).toBe(true)
        expect(again.json).toBe(first.json)
        expect(yield* code(Operations.startTimer(start(keys.owner, "same", { projectId: ids.vaccine })))).toBe("IDEMPOTENCY_CONFLICT")
        const records = yield* db.sql<{ response_status: number; response_body: string; fingerprint: string }>(
          "SELECT response_status, response_body, fingerprint FROM idempotency_records WHERE workspace_id = $1 AND user_id = $2 AND idempotency_key = $3",
          [ids.workspace, ids.owner, "same"]
        )
        expect(records).toHaveLength(1)
        expect(records[0]?.response_status).toBe(200)
        expect(records[0]?.response_body).toBe(first.json)
        const entries = yield* db.sql<{ count: number }>(
          "SELECT count(*)::int AS count FROM time_entries WHERE workspace_id = $1 AND user_id = $2",
          [ids.workspace, ids.owner]
        )
        expect(entries[0]?.count).toBe(1)
      }))

    it.effect("commits nothing, neither entry nor record, when the step fails", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        const db = yield* TestDatabase
        expect(yield* code(Operations.startTimer(start(keys.member, "fail", { projectId: ids.vaccine })))).toBe("PROJECT_NOT_FOUND")
        const records = yield* db.sql("SELECT 1 FROM idempotency_records WHERE user_id = $1", [ids.member])
        expect(records).toHaveLength(0)
        // A key whose first use failed may be used again with another body.
        const ok = yield* Operations.startTimer(start(keys.member, "fail", { projectId: ids.website }))
        expect(ok.replayed).toBe(false)
      }))

    it.effect("forgets expired idempotency records during writes, of any user, in bounded batches", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        const db = yield* TestDatabase
        const old = Date.now() - Settings.defaults.idempotencyRetentionMillis - 60_000
        const stranger = randomUUID()
        yield* db.sql(
          `INSERT INTO idempotency_records (workspace_id, user_id, idempotency_key, fingerprint, created_at, response_status, response_body)
           SELECT $1, $2, 'old-' || n, 'f', $3, 200, '{}' FROM generate_series(1, 150) AS n`,
          [randomUUID(), stranger, old]
        )
        yield* Operations.startTimer(start(keys.owner, "fresh", { projectId: ids.website }))
        const left = yield* db.sql<{ count: number }>(
          "SELECT count(*)::int AS count FROM idempotency_records WHERE user_id = $1",
          [stranger]
        )
        expect(left[0]?.count).toBe(150 - 100)
        yield* Operations.startTimer(start(keys.owner, "fresh-2", { projectId: ids.vaccine }))
        const none = yield* db.sql("SELECT 1 FROM idempotency_records WHERE user_id = $1", [stranger])
        expect(none).toHaveLength(0)
        // An expired record of the same key is replaced, not replayed.
        yield* db.sql(
          "UPDATE idempotency_records SET created_at = $1 WHERE user_id = $2 AND idempotency_key = 'fresh'",
          [old + 1, ids.owner]
        )
        const rerun = yield* Operations.startTimer(start(keys.owner, "fresh", { projectId: ids.vaccine }))
        expect(rerun.replayed).toBe(false)
      }))

    it.effect("pages through history with keyset cursors, newest first, ties broken by id", () =>
      Effect.gen(function*() {
        const base = Date.parse("2026-01-05T09:00:00.000Z")
        const world = yield* seedWorld()
        const { ids, keys } = world
        const entries = Array.from({ length: 45 }, (_, i) => ({
          id: randomUUID(),
          userId: ids.owner,
          workspaceId: ids.workspace,
          projectId: i % 3 === 0 ? ids.vaccine : ids.website,
          status: i % 7 === 0 ? "voided" : "completed",
          // Pairs of entries share a start: the id decides.
          startedAt: new Date(base + Math.floor(i / 2) * 60_000 + 123).toISOString(),
          endedAt: new Date(base + Math.floor(i / 2) * 60_000 + 30_123).toISOString()
        }))
        yield* Fixture.load({ timeEntries: entries })
        const expected = [...entries].sort((a, b) =>
          a.startedAt === b.startedAt ? (a.id < b.id ? 1 : -1) : a.startedAt < b.startedAt ? 1 : -1
        ).map((e) => e.id)
        const pages: Array<Array<string>> = []
        let cursor: string | null = null
        do {
          const query: Array<readonly [string, string]> = cursor === null ? [] : [["cursor", cursor]]
          const page = yield* Operations.listTimeEntries(as(keys.owner, { query }))
          pages.push(page.entries.map((e) => e.id))
          cursor = page.nextCursor
        } while (cursor !== null)
        expect(pages.map((page) => page.length)).toEqual([20, 20, 5])
        expect(pages.flat()).toEqual(expected)
        const page = yield* Operations.listTimeEntries(as(keys.owner, { query: [["projectId", ids.vaccine], ["limit", "100"]] }))
        expect(page.entries.map((e) => e.id)).toEqual(expected.filter((id) => entries.find((e) => e.id === id)?.projectId === ids.vaccine))
        expect(page.entries[0]?.startedAt.endsWith(".123Z")).toBe(true)
        expect(page.nextCursor).toBeNull()
      }))

    it.effect("reads along with authentication exactly what findActiveEntry and listEntries answer for the key's scope", () =>
      Effect.gen(function*() {
        const base = Date.parse("2026-02-01T09:00:00.000Z")
        const { ids, keys } = yield* seedWorld()
        const store = yield* Store.Store
        const scope = { workspaceId: ids.workspace, userId: ids.owner }
        // Strings the adapter must escape for PostgreSQL text (U+0000), and characters JSON escapes: JSON must carry
        // them back exactly. Entries of the history, so that the active one must be found among them.
        const note = "a\u0000b \\ \" \n é 𝄞"
        const running = "\u0000\t\\u0000 \u007f"
        yield* Fixture.load({
          timeEntries: Array.from({ length: 12 }, (_, i) => ({
            id: randomUUID(),
            userId: ids.owner,
            workspaceId: ids.workspace,
            projectId: i % 2 === 0 ? ids.vaccine : ids.website,
            status: i % 5 === 0 ? "voided" : "completed",
            note,
            startedAt: new Date(base + Math.floor(i / 2) * 60_000).toISOString(),
            endedAt: new Date(base + Math.floor(i / 2) * 60_000 + 30_000).toISOString()
          }))
        })
        yield* Operations.startTimer(start(keys.owner, randomUUID(), { projectId: ids.website, note: running }))
        const digest = ApiKey.digestWith(Hashing.portable, keys.owner)
        const policy = Settings.defaults.rateLimit
        const along = (read: Store.ReadAlong) =>
          Effect.map(store.authenticate(digest, Date.now(), policy, read), Option.getOrThrow)

        const active = yield* store.findActiveEntry(scope)
        expect(Option.map(active, (entry) => entry.note)).toEqual(Option.some(running))
        expect((yield* along({ _tag: "ActiveEntry" })).activeEntry).toEqual(active)
        const all = yield* store.listEntries(scope, { projectId: null, after: null, limit: 100 })
        expect(all.filter((e) => e.note === note)).toHaveLength(all.length - 1)
        // Without a running timer, too.
        yield* Operations.stopTimer(stop(keys.owner, randomUUID(), Option.getOrThrow(active).id))
        expect((yield* along({ _tag: "ActiveEntry" })).activeEntry).toEqual(Option.none())
        // Pages of history: what listEntries answers, for every shape of query.
        const pages: ReadonlyArray<Store.EntriesQuery> = [
          { projectId: null, after: null, limit: 100 },
          { projectId: null, after: null, limit: 3 },
          { projectId: ids.vaccine, after: null, limit: 4 },
          { projectId: null, after: { startedAt: all[4]?.startedAt ?? 0, id: all[4]?.id ?? "" }, limit: 5 },
          { projectId: ids.website, after: { startedAt: all[2]?.startedAt ?? 0, id: all[2]?.id ?? "" }, limit: 100 },
          { projectId: randomUUID(), after: null, limit: 10 }
        ]
        for (const query of pages) {
          const expected = yield* store.listEntries(scope, query)
          expect((yield* along({ _tag: "EntriesPage", query })).entries).toEqual(expected)
        }
        expect((yield* along({ _tag: "EntriesPage", query: pages[0]! })).entries).toHaveLength(all.length)
        // Another user's key reads its own scope.
        const member = ApiKey.digestWith(Hashing.portable, keys.member)
        const memberScope = { workspaceId: ids.workspace, userId: ids.member }
        expect(Option.getOrThrow(yield* store.authenticate(member, Date.now(), policy, { _tag: "EntriesPage", query: pages[0]! })).entries)
          .toEqual(yield* store.listEntries(memberScope, pages[0]!))
        // An unknown key reads nothing along.
        const unknown = ApiKey.digestWith(Hashing.portable, ApiKey.generate())
        expect(yield* store.authenticate(unknown, Date.now(), policy, { _tag: "ActiveEntry" })).toEqual(Option.none())
        expect(yield* store.authenticate(unknown, Date.now(), policy, { _tag: "EntriesPage", query: pages[0]! }))
          .toEqual(Option.none())
      }))

    it.effect("answers the authentication, counted once, when only the page read along with it fails", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        const store = yield* Store.Store
        const digest = ApiKey.digestWith(Hashing.portable, keys.other)
        const policy = { limit: 2, windowMillis: 60_000 }
        // No uuid: the page's statement fails (the core only ever asks for positions it decoded).
        const failing: Store.ReadAlong = { _tag: "EntriesPage", query: { projectId: null, after: { startedAt: 0, id: "x" }, limit: 5 } }
        for (let i = 0; i < 2; i++) {
          const found = Option.getOrThrow(yield* store.authenticate(digest, Date.now(), policy, failing))
          expect(found.key.id).toBe(ids.keys.other)
          expect(found.accepted).toBe(true)
          expect(found.entries).toBeUndefined()
        }
        expect(Option.getOrThrow(yield* store.authenticate(digest, Date.now(), policy)).accepted).toBe(false)
      }))

    it.effect("counts requests per key: at most the policy's limit in the window, 429 after", () =>
      Effect.gen(function*() {
        const { keys } = yield* seedWorld()
        const policy = { ...Settings.defaults, rateLimit: { limit: 5, windowMillis: 60_000 } }
        const results = yield* Effect.forEach(Array.from({ length: 8 }), () =>
          Effect.either(Operations.getActiveTimer(as(keys.owner))).pipe(Effect.provideService(Settings.Settings, policy)))
        expect(results.map((r) => r._tag === "Right" ? "ok" : r.left.code)).toEqual([
          "ok", "ok", "ok", "ok", "ok", "API_KEY_RATE_LIMITED", "API_KEY_RATE_LIMITED", "API_KEY_RATE_LIMITED"
        ])
        // Another key has its own window.
        const other = yield* Effect.either(Operations.getActiveTimer(as(keys.member)).pipe(Effect.provideService(Settings.Settings, policy)))
        expect(other._tag).toBe("Right")
      }))

    it.effect("creates a project for owners only, under an active client of the workspace, and assigns the creator", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        const db = yield* TestDatabase
        const created = yield* Operations.createProject(as(keys.owner, { body: { _tag: "Json", value: { clientId: ids.umbrella, name: "Zeta", color: "#AbCdEf" } } }))
        expect(created.project).toMatchObject({ clientId: ids.umbrella, name: "Zeta", color: "#AbCdEf" })
        const assignment = yield* db.sql<{ pay_rate_cents: number }>(
          "SELECT pay_rate_cents FROM assignments WHERE project_id = $1 AND user_id = $2",
          [created.project.id, ids.owner]
        )
        expect(assignment).toEqual([{ pay_rate_cents: 5000 }])
        const listed = yield* Operations.listProjects(as(keys.owner, { query: [["clientId", ids.umbrella]] }))
        expect(listed.projects.map((p) => p.name)).toEqual(["Vaccine", "Zeta"])
        for (const clientId of [ids.initech, ids.hooli, randomUUID()]) {
          expect(yield* code(Operations.createProject(as(keys.owner, { body: { _tag: "Json", value: { clientId, name: "X" } } }))))
            .toBe("RESOURCE_NOT_FOUND")
        }
        expect(yield* code(Operations.createProject(as(keys.member, { body: { _tag: "Json", value: { clientId: ids.umbrella, name: "X" } } }))))
          .toBe("FORBIDDEN")
        const clients = yield* Operations.listClients(as(keys.member))
        expect(clients).toEqual({ clients: [{ id: ids.globex, name: "Globex", color: "#0A0B0C" }], canCreateProjects: false })
      }))

    it.effect("refuses unknown, revoked, expired and orphaned keys, and a key without the scope", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        for (const key of [keys.revoked, keys.expired, keys.removed, ApiKey.generate()]) {
          expect(yield* code(Operations.getActiveTimer(as(key)))).toBe("INVALID_API_KEY")
        }
        expect(yield* code(Operations.listClients(as(keys.readOnly)))).toBe("INSUFFICIENT_SCOPE")
        yield* Admin.revokeApiKey(ids.keys.owner)
        expect(yield* code(Operations.getActiveTimer(as(keys.owner)))).toBe("INVALID_API_KEY")
        yield* Admin.removeMembership({ workspaceId: ids.workspace, userId: ids.member })
        expect(yield* code(Operations.getActiveTimer(as(keys.member)))).toBe("INVALID_API_KEY")
      }))

    it.effect("stores keys as SHA-256 digests only, and times to the millisecond", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld({
          timeEntries: []
        })
        const db = yield* TestDatabase
        const stored = yield* db.sql<{ digest: string; created_at: number }>("SELECT digest, created_at::float8 AS created_at FROM api_keys WHERE id = $1", [ids.keys.owner])
        expect(stored[0]?.digest).toBe(yield* ApiKey.digest(keys.owner))
        const everything = yield* db.sql<{ row: string }>("SELECT row_to_json(k)::text AS row FROM api_keys k")
        for (const key of Object.values(keys)) {
          expect(everything.some((r) => r.row.includes(key))).toBe(false)
        }
        const at = "2026-02-03T04:05:06.789Z"
        const entryId = randomUUID()
        yield* Fixture.load({
          timeEntries: [{ id: entryId, userId: ids.owner, workspaceId: ids.workspace, projectId: ids.website, status: "completed", startedAt: "2026-02-03T05:05:06.789+01:00", endedAt: at }]
        })
        const row = yield* db.sql<{ started_at: number; ended_at: number }>("SELECT started_at::float8 AS started_at, ended_at::float8 AS ended_at FROM time_entries WHERE id = $1", [entryId])
        expect(row).toEqual([{ started_at: Date.parse(at), ended_at: Date.parse(at) }])
        const page = yield* Operations.listTimeEntries(as(keys.owner))
        expect(page.entries.find((e) => e.id === entryId)).toMatchObject({ startedAt: at, endedAt: at, durationSeconds: 0 })
      }))

    it.effect("keeps strings PostgreSQL text cannot hold (U+0000, lone surrogates) exactly", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        const db = yield* TestDatabase
        const store = yield* Store.Store
        const note = "a\u0000b c \uffff0000 😀"
        const started = yield* Operations.startTimer(start(keys.owner, "nul\u0000key", { projectId: ids.website, note }))
        expect(started.response.timer?.note).toBe(note)
        expect((yield* Operations.getActiveTimer(as(keys.owner))).timer?.note).toBe(note)
        const replay = yield* Operations.startTimer(start(keys.owner, "nul\u0000key", { projectId: ids.website, note }))
        expect(replay.replayed).toBe(true)
        const project = yield* Operations.createProject(as(keys.owner, { body: { _tag: "Json", value: { clientId: ids.umbrella, name: "x\u0000y" } } }))
        const listed = yield* Operations.listProjects(as(keys.owner, { query: [["clientId", ids.umbrella]] }))
        expect(listed.projects.find((p) => p.id === project.project.id)?.name).toBe("x\u0000y")
        // The core refuses unpaired surrogates in requests; the port still keeps them, like the memory store.
        const odd = "x\ud800y\udc00"
        const entryId = randomUUID()
        yield* store.admin.insert({
          workspaces: [],
          users: [],
          memberships: [],
          clients: [],
          projects: [],
          assignments: [],
          apiKeys: [],
          timeEntries: [{
            id: entryId,
            workspaceId: ids.workspace,
            userId: ids.member,
            projectId: ids.website,
            status: "completed",
            billable: true,
            note: odd,
            startedAt: 1,
            endedAt: 2,
            payRateCents: 0
          }]
        })
        const [entry] = yield* store.listEntries({ workspaceId: ids.workspace, userId: ids.member }, { projectId: null, after: null, limit: 1 })
        expect(entry?.note).toBe(odd)
        // Ordinary strings are stored as they are.
        const plain = yield* db.sql<{ name: string }>("SELECT name FROM clients WHERE id = $1", [ids.globex])
        expect(plain).toEqual([{ name: "Globex" }])
      }))

    it.effect("answers RecordConflict for rows that already exist, and writes nothing of that dataset", () =>
      Effect.gen(function*() {
        const { ids } = yield* seedWorld()
        const store = yield* Store.Store
        const db = yield* TestDatabase
        const fresh = randomUUID()
        const dataset = {
          workspaces: [{ id: fresh, name: "New" }],
          users: [],
          memberships: [],
          clients: [],
          projects: [],
          assignments: [],
          apiKeys: [],
          timeEntries: []
        }
        const duplicate = yield* Effect.flip(store.admin.insert({ ...dataset, users: [{ id: ids.owner, name: "A", email: "a" }] }))
        expect(duplicate).toMatchObject({ _tag: "RecordConflict", entity: "user", id: ids.owner, reason: "already exists" })
        expect(yield* db.sql("SELECT 1 FROM workspaces WHERE id = $1", [fresh])).toHaveLength(0)
        const active = (id: string) => ({
          id,
          workspaceId: ids.workspace,
          userId: ids.member,
          projectId: ids.website,
          status: "active" as const,
          billable: true,
          note: null,
          startedAt: 1,
          endedAt: null,
          payRateCents: 0
        })
        yield* store.admin.insert({ ...dataset, workspaces: [], timeEntries: [active(randomUUID())] })
        const second = randomUUID()
        const conflict = yield* Effect.flip(store.admin.insert({ ...dataset, timeEntries: [active(second)] }))
        expect(conflict).toMatchObject({ _tag: "RecordConflict", entity: "timeEntry", id: second, reason: "second active entry" })
        expect(yield* db.sql("SELECT 1 FROM workspaces WHERE id = $1", [fresh])).toHaveLength(0)
        expect(Option.isSome(yield* store.admin.findEntryScope(second))).toBe(false)
      }))

    it.effect("retries a timer transaction that PostgreSQL rolls back at COMMIT (deadlock, serialization): each start commits once", () =>
      Effect.gen(function*() {
        const { ids, keys } = yield* seedWorld()
        const db = yield* TestDatabase
        const store = yield* Store.Store
        // A deferred trigger fails the first COMMIT of each of the owner's new entries, the next one passes; the
        // sequence counts the attempts (it is not rolled back with them).
        const name = `commit_fault_${randomUUID().replaceAll("-", "")}`
        yield* db.sql(`CREATE SEQUENCE ${name}`)
        yield* db.sql(`
          CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
          DECLARE attempt bigint;
          BEGIN
            IF NEW.user_id = '${ids.owner}'::uuid THEN
              attempt := nextval('${name}');
              IF attempt = 1 THEN RAISE EXCEPTION 'injected deadlock' USING ERRCODE = '40P01'; END IF;
              IF attempt = 3 THEN RAISE EXCEPTION 'injected serialization failure' USING ERRCODE = '40001'; END IF;
            END IF;
            RETURN NULL;
          END $$`)
        yield* db.sql(`
          CREATE CONSTRAINT TRIGGER ${name} AFTER INSERT ON time_entries
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ${name}()`)
        // The store's two kinds of timer transaction: the key checked inside it, and (for a store that does not
        // offer that) checked first, then the transaction.
        expect(store.authenticateInTimerTransaction).toBeDefined()
        const separate = Object.fromEntries(
          Object.entries(store).filter(([method]) => method !== "authenticateInTimerTransaction")
        ) as Store.Store["Type"]
        const first = yield* Operations.startTimer(start(keys.owner, "commit-fault-1", { projectId: ids.website }))
        const second = yield* Operations.startTimer(start(keys.owner, "commit-fault-2", { projectId: ids.vaccine })).pipe(
          Effect.provideService(Store.Store, separate)
        )
        expect(second.response.stoppedTimerId).toBe(first.response.timer?.id)
        yield* db.sql(`DROP TRIGGER ${name} ON time_entries`)
        expect(yield* db.sql<{ last_value: string }>(`SELECT last_value FROM ${name}`)).toEqual([{ last_value: "4" }])
        const rows = yield* db.sql<{ id: string; status: string }>(
          "SELECT id, status FROM time_entries WHERE workspace_id = $1 AND user_id = $2 ORDER BY started_at, id",
          [ids.workspace, ids.owner]
        )
        expect(rows).toEqual([
          { id: first.response.timer?.id, status: "completed" },
          { id: second.response.timer?.id, status: "active" }
        ])
        // Each key's one stored answer: a retry replays it.
        const replay = yield* Operations.startTimer(start(keys.owner, "commit-fault-1", { projectId: ids.website }))
        expect([replay.replayed, replay.response]).toEqual([true, first.response])
      }))
  })
})
