/**
 * The memory store is the reference: for the same data, every method of the SQLite store must answer exactly what the
 * memory store answers. Both are loaded with the same fixture and driven with the same calls.
 */
import { describe, expect, it } from "@effect/vitest"
import { Admin, Fixture, Ids, MemoryStore, Operations, Records, Request, Store } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { createHash } from "node:crypto"
import { fixture, ids, keys, NOW, start, stop, tempFile, uuid } from "./support.js"

type StoreService = Store.Store["Type"]

class Stores extends Context.Tag("test/Stores")<Stores, {
  readonly sqlite: StoreService
  readonly memory: StoreService
}>() {}

/** Both stores, each loaded with the base fixture at `NOW`. */
const StoresLive = Layer.effect(
  Stores,
  Effect.gen(function*() {
    const sqlite = yield* Store.Store
    const { store: memory } = yield* MemoryStore.make
    yield* TestClock.setTime(NOW)
    for (const store of [sqlite, memory]) yield* Fixture.load(fixture).pipe(Effect.provideService(Store.Store, store))
    return { sqlite, memory }
  })
).pipe(Layer.provide(SqliteStore.layer({ filename: tempFile("parity") })))

/** Runs `f` on both stores; the SQLite answer first. */
const both = <A, E>(f: (store: StoreService) => Effect.Effect<A, E>) =>
  Effect.flatMap(Stores, ({ memory, sqlite }) => Effect.all([f(sqlite), f(memory)]))

const same = <A, E>(f: (store: StoreService) => Effect.Effect<A, E>) =>
  Effect.map(both(f), ([sqlite, memory]) => {
    expect(sqlite).toEqual(memory)
    return sqlite
  })

const byId = <A extends { readonly id: string }>(rows: ReadonlyArray<A>) => [...rows].sort((a, b) => a.id.localeCompare(b.id))

/** A rate limit no session reaches. */
const generous = { limit: 1_000_000, windowMillis: 60_000 }

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const scopes: ReadonlyArray<Records.UserScope> = [
  { workspaceId: ids.workspace, userId: ids.owner },
  { workspaceId: ids.workspace, userId: ids.member },
  { workspaceId: ids.workspace, userId: ids.removed },
  { workspaceId: ids.otherWorkspace, userId: ids.owner },
  { workspaceId: uuid(0x999), userId: ids.owner }
]
const clients = [ids.globex, ids.initech, ids.umbrella, ids.hooli, uuid(0x998)]
const projects = [ids.website, ids.oldSite, ids.initechApp, ids.vaccine, ids.piper, uuid(0x997)]

/** The same id sequence for each store. */
const countingIds = () => {
  let n = 0
  return { next: Effect.sync(() => uuid(0x10000 + n++)) }
}

/** A scripted session of public and admin operations; each answer as JSON text or an error tag. */
const session = Effect.gen(function*() {
  const out: Array<unknown> = []
  const record = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(
      Effect.either(effect),
      (result) =>
        Effect.sync(() => {
          out.push(result._tag === "Right" ? JSON.parse(JSON.stringify(result.right)) : result.left._tag)
          return result
        })
    )
  const first = yield* record(Operations.startTimer(start(keys.owner, "a", { projectId: ids.website, note: "é 🚀" })))
  const timerId = first._tag === "Right" ? first.right.response.timer?.id ?? "" : ""
  yield* TestClock.adjust("17 minutes")
  yield* record(Operations.startTimer(start(keys.owner, "a", { note: "é 🚀", projectId: ids.website })))
  yield* record(Operations.startTimer(start(keys.owner, "a", { projectId: ids.vaccine })))
  const second = yield* record(Operations.startTimer(start(keys.owner, "b", { projectId: ids.vaccine, billable: false })))
  yield* record(Operations.stopTimer(stop(keys.owner, "c", timerId)))
  yield* TestClock.adjust("3 minutes")
  const secondId = second._tag === "Right" ? second.right.response.timer?.id ?? "" : ""
  yield* record(Operations.stopTimer(stop(keys.owner, "d", secondId)))
  yield* record(Operations.stopTimer(stop(keys.owner, "d", secondId)))
  yield* record(Operations.startTimer(start(keys.member, "a", { projectId: ids.website })))
  yield* record(Operations.startTimer(start(keys.member, "b", { projectId: ids.oldSite })))
  yield* TestClock.adjust("1 hour")
  yield* record(Admin.moveEntryStart(timerId, "2026-03-01T10:00:00Z"))
  yield* record(Operations.listTimeEntries({ authorization: `Bearer ${keys.owner}` }))
  yield* record(Operations.getActiveTimer({ authorization: `Bearer ${keys.owner}` }))
  yield* record(Operations.createProject({
    authorization: `Bearer ${keys.owner}`,
    body: Request.json({ clientId: ids.umbrella, name: "Zeta", color: "#AbCdEf" })
  }))
  yield* record(Operations.listProjects({ authorization: `Bearer ${keys.owner}`, query: [["clientId", ids.umbrella]] }))
  yield* record(Operations.listClients({ authorization: `Bearer ${keys.member}` }))
  yield* record(Admin.setArchived("client", ids.globex, true))
  yield* record(Operations.listClients({ authorization: `Bearer ${keys.member}` }))
  yield* record(Operations.getActiveTimer({ authorization: `Bearer ${keys.member}` }))
  yield* record(Operations.startTimer(start(keys.member, "c", { projectId: ids.website })))
  yield* record(Admin.voidEntry(timerId))
  yield* record(Admin.voidEntry(timerId))
  yield* record(Operations.listTimeEntries({ authorization: `Bearer ${keys.owner}`, query: [["limit", "1"]] }))
  return out.map((answer) =>
    // Cursors are signed with each store's own secret: compare whether there is one.
    typeof answer === "object" && answer !== null && "nextCursor" in answer
      ? { ...answer, nextCursor: answer.nextCursor !== null }
      : answer
  )
})

describe("SqliteStore answers what MemoryStore answers", () => {
  it.layer(StoresLive)((it) => {
    it.effect("for the public and admin operations, call by call", () =>
      Effect.gen(function*() {
        const { memory, sqlite } = yield* Stores
        const run = (store: StoreService) =>
          Effect.gen(function*() {
            yield* TestClock.setTime(NOW)
            return yield* session
          }).pipe(
            Effect.provideService(Store.Store, store),
            Effect.provideService(Ids.Ids, countingIds())
          )
        const fromSqlite = yield* run(sqlite)
        const fromMemory = yield* run(memory)
        expect(fromSqlite).toEqual(fromMemory)
        expect(fromSqlite.filter((answer) => typeof answer === "string")).toEqual([
          "IdempotencyConflict",
          "TimerAlreadyStopped",
          "ProjectNotFound",
          "ProjectNotFound",
          "RecordConflict"
        ])

        // Then every read of the port, on the state the session left.
        for (const k of Object.values(keys)) yield* same((s) => s.authenticate(sha256(k), NOW, generous))
        yield* same((s) => s.authenticate(sha256("unknown"), NOW, generous))
        for (const scope of scopes) {
          yield* Effect.map(both((s) => s.listClients(scope)), ([a, b]) => expect(byId(a)).toEqual(byId(b)))
          for (const clientId of clients) {
            yield* Effect.map(both((s) => s.listProjects(scope, clientId)), ([a, b]) => expect(byId(a)).toEqual(byId(b)))
          }
          yield* same((s) => s.findActiveEntry(scope))
          for (const projectId of [null, ...projects]) {
            yield* same((s) => s.listEntries(scope, { projectId, after: null, limit: 100 }))
          }
          for (const projectId of [undefined, ...projects]) {
            for (const entryId of [undefined, timerIdOf(fromSqlite), uuid(0x10001), uuid(0x996)]) {
              for (const idempotencyKey of [undefined, "a", "b", "zzz"]) {
                yield* same((s) => s.withTimerTransaction(scope, (tx) => tx.read({ idempotencyKey, entryId, projectId })))
              }
            }
          }
        }
        yield* same((s) => s.admin.listApiKeys({}))
        yield* same((s) => s.admin.listApiKeys({ workspaceId: ids.workspace }))
        yield* same((s) => s.admin.listApiKeys({ userId: ids.owner }))
        yield* same((s) => s.admin.listApiKeys({ workspaceId: ids.otherWorkspace, userId: ids.owner }))
        yield* same((s) => s.admin.findEntryScope(timerIdOf(fromSqlite)))
        yield* same((s) => s.admin.findEntryScope(uuid(0x996)))
        yield* same((s) =>
          s.admin.lookup({
            workspaceIds: [ids.workspace, uuid(0x995), ids.workspace, ids.otherWorkspace],
            userIds: [ids.member, uuid(0x995), ids.owner],
            clientIds: [ids.hooli, uuid(0x995), ids.globex, ids.hooli],
            projectIds: [uuid(0x995), ...projects],
            entryIds: [uuid(0x10001), uuid(0x995), timerIdOf(fromSqlite)],
            apiKeyIds: [uuid(0xe7), uuid(0x995), uuid(0xe1)],
            apiKeyDigests: [sha256(keys.removed), sha256("nope"), sha256(keys.owner)],
            userScopes: scopes,
            assignments: [
              { projectId: ids.website, userId: ids.member },
              { projectId: ids.vaccine, userId: ids.member },
              { projectId: ids.piper, userId: ids.owner }
            ]
          })
        )
        // Memberships follow the users asked about, whatever the scopes.
        yield* same((s) =>
          s.admin.lookup({
            workspaceIds: [],
            userIds: [ids.owner, ids.removed],
            clientIds: [],
            projectIds: [],
            entryIds: [],
            apiKeyIds: [],
            apiKeyDigests: [],
            userScopes: [{ workspaceId: ids.workspace, userId: ids.member }],
            assignments: []
          })
        )
        // Updates answer alike.
        yield* same((s) => s.admin.setArchived("project", ids.piper, true))
        yield* same((s) => s.admin.setArchived("client", uuid(0x995), true))
        yield* same((s) => s.admin.revokeApiKey(uuid(0xe2), NOW + 5))
        yield* same((s) => s.admin.revokeApiKey(uuid(0xe2), NOW + 9))
        yield* same((s) => s.admin.revokeApiKey(uuid(0x995), NOW))
        yield* same((s) => s.authenticate(sha256(keys.member), NOW, generous))
        yield* same((s) => s.admin.removeMembership({ workspaceId: ids.otherWorkspace, userId: ids.owner }))
        yield* same((s) => s.admin.removeMembership({ workspaceId: ids.otherWorkspace, userId: ids.owner }))
        for (const clientId of clients) {
          yield* same((s) =>
            s.createProject({
              id: uuid(0x20000 + clients.indexOf(clientId)),
              workspaceId: ids.workspace,
              clientId,
              name: "N",
              color: "#000000",
              creatorUserId: ids.member,
              creatorRateCents: 12
            })
          )
        }
        yield* same((s) => s.listProjects({ workspaceId: ids.workspace, userId: ids.member }, ids.umbrella))
        expect(Option.isSome(yield* memory.authenticate(sha256(keys.owner), NOW, generous))).toBe(true)
        expect(Option.isSome(yield* sqlite.authenticate(sha256(keys.owner), NOW, generous))).toBe(true)
      }))

    it.effect("for the rate limit, whatever the order of the clocks, counting only keys that authenticate", () =>
      Effect.gen(function*() {
        const nows = [0, 10, 10, 999, 1000, 1001, 500, 1500, 2000, 2001, 2001, 2002, 1999, 5000, 5000, 5000, 5000]
        const policies = [{ limit: 3, windowMillis: 1000 }, { limit: 1, windowMillis: 1 }, { limit: 0, windowMillis: 10 }]
        for (const [i, policy] of policies.entries()) {
          for (const k of [...Object.values(keys), "unknown"]) {
            for (const now of nows) yield* same((s) => s.authenticate(sha256(k), NOW + (i + 1) * 100_000 + now, policy))
          }
        }
      }))

    it.effect.prop(
      "for history pages, ties and cursors included",
      {
        entries: FastCheck.uniqueArray(
          FastCheck.record({
            id: FastCheck.uuid(),
            slot: FastCheck.integer({ min: 0, max: 6 }),
            vaccine: FastCheck.boolean(),
            voided: FastCheck.boolean()
          }),
          { selector: (e) => e.id, maxLength: 30 }
        ),
        queries: FastCheck.array(
          FastCheck.record({
            project: FastCheck.constantFrom<string | null>(null, ids.website, ids.vaccine, uuid(0x994)),
            after: FastCheck.option(FastCheck.record({
              slot: FastCheck.integer({ min: -1, max: 7 }),
              id: FastCheck.oneof(FastCheck.uuid(), FastCheck.constant("00000000-0000-7000-8000-000000000000"))
            }), { nil: null }),
            fromEntry: FastCheck.nat(),
            limit: FastCheck.integer({ min: 1, max: 12 })
          }),
          { minLength: 1, maxLength: 8 }
        )
      },
      ({ entries, queries }) =>
        Effect.gen(function*() {
          // A new user per run, so runs do not see each other's entries.
          const userId = uuid(0x30000 + runs++)
          const scope = { workspaceId: ids.workspace, userId }
          const at = (slot: number) => NOW - slot * 60_000
          const rows: Array<Records.EntryRow> = entries.map((e, i) => ({
            id: e.id,
            workspaceId: ids.workspace,
            userId,
            projectId: e.vaccine ? ids.vaccine : ids.website,
            status: i === 0 ? "active" : e.voided ? "voided" : "completed",
            billable: true,
            note: null,
            startedAt: at(e.slot),
            endedAt: i === 0 ? null : at(e.slot) + 1000,
            payRateCents: 0
          }))
          yield* both((s) =>
            s.admin.insert({
              workspaces: [],
              users: [{ id: userId, name: "P", email: "p" }],
              memberships: [],
              clients: [],
              projects: [],
              assignments: [],
              apiKeys: [],
              timeEntries: rows
            })
          )
          for (const query of queries) {
            const fromEntry = rows.length === 0 ? undefined : rows[query.fromEntry % rows.length]
            const after = query.after !== null
              ? { startedAt: at(query.after.slot), id: query.after.id }
              : fromEntry === undefined
              ? null
              : { startedAt: fromEntry.startedAt, id: fromEntry.id }
            const [sqlite, memory] = yield* both((s) =>
              s.listEntries(scope, { projectId: query.project, after, limit: query.limit })
            )
            expect(sqlite).toEqual(memory)
          }
        }),
      { fastCheck: { numRuns: 60 } }
    )
  })
})

let runs = 0

const timerIdOf = (answers: ReadonlyArray<unknown>): string => {
  const first = answers[0]
  if (typeof first !== "object" || first === null || !("response" in first)) return uuid(0)
  const response = first.response
  if (typeof response !== "object" || response === null || !("timer" in response)) return uuid(0)
  const timer = response.timer
  return typeof timer === "object" && timer !== null && "id" in timer && typeof timer.id === "string"
    ? timer.id
    : uuid(0)
}
