/**
 * The memory store is the reference: for the same data, every method of the PostgreSQL store must answer exactly what
 * the memory store answers. Both are loaded with the same fixture and driven with the same calls, at the same
 * (test) clock and with the same ids.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Admin, Fixture, Ids, MemoryStore, Operations, type Records, Request, Settings, Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as TestClock from "effect/TestClock"
import { createHash } from "node:crypto"
import { storeLayer } from "./support.js"

type StoreService = Store.Store["Type"]

const NOW = Date.parse("2026-03-01T12:00:00.000Z")
const DAY = 24 * 3600 * 1000

/** A rate limit no session reaches. */
const generous = { limit: 1_000_000, windowMillis: 60_000 }

/** A valid UUIDv7 whose last group is `n` in hex. */
const uuid = (n: number): string => `00000000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** A world whose ids all lie in the block `base`, so worlds of different runs never share a row. */
const worldAt = (base: number) => {
  const id = (n: number) => uuid(base * 0x1000 + n)
  const ids = {
    workspace: id(1),
    other: id(2),
    owner: id(0xa),
    member: id(0xb),
    removed: id(0xc),
    globex: id(0xc1),
    initech: id(0xc2),
    umbrella: id(0xc3),
    hooli: id(0xc4),
    website: id(0xd1),
    oldSite: id(0xd2),
    app: id(0xd3),
    vaccine: id(0xd4),
    piper: id(0xd5)
  }
  const key = (name: string) => `stint_${name}${"x".repeat(30)}${base}`
  const keys = { owner: key("owner"), member: key("member"), removed: key("removed"), other: key("other") }
  const fixture = {
    workspaces: [{ id: ids.workspace, name: "Acme" }, { id: ids.other, name: "Other" }],
    users: [
      { id: ids.owner, name: "Ada", email: "ada@example.com" },
      { id: ids.member, name: "Bob", email: "bob@example.com" },
      { id: ids.removed, name: "Cy", email: "cy@example.com" }
    ],
    memberships: [
      { workspaceId: ids.workspace, userId: ids.owner, role: "owner", payRateCents: 5000 },
      { workspaceId: ids.workspace, userId: ids.member, role: "member", payRateCents: 3000 },
      { workspaceId: ids.other, userId: ids.owner, role: "member" }
    ],
    clients: [
      { id: ids.globex, workspaceId: ids.workspace, name: "Globex", color: "#0A0B0C" },
      { id: ids.initech, workspaceId: ids.workspace, name: "Initech", archived: true },
      { id: ids.umbrella, workspaceId: ids.workspace, name: "umbrella" },
      { id: ids.hooli, workspaceId: ids.other, name: "Hooli" }
    ],
    projects: [
      { id: ids.website, clientId: ids.globex, name: "Website", color: "#123abc" },
      { id: ids.oldSite, clientId: ids.globex, name: "Old site", archived: true },
      { id: ids.app, clientId: ids.initech, name: "App" },
      { id: ids.vaccine, clientId: ids.umbrella, name: "Vaccine" },
      { id: ids.piper, clientId: ids.hooli, name: "Piper" }
    ],
    assignments: [
      { projectId: ids.website, userId: ids.owner, payRateCents: 7500 },
      { projectId: ids.website, userId: ids.member },
      { projectId: ids.oldSite, userId: ids.member },
      { projectId: ids.app, userId: ids.member },
      { projectId: ids.vaccine, userId: ids.owner },
      { projectId: ids.vaccine, userId: ids.member, payRateCents: 1 },
      { projectId: ids.piper, userId: ids.owner }
    ],
    apiKeys: [
      { id: id(0xe1), key: keys.owner, userId: ids.owner, workspaceId: ids.workspace },
      { id: id(0xe2), key: keys.member, userId: ids.member, workspaceId: ids.workspace },
      { id: id(0xe3), key: keys.removed, userId: ids.removed, workspaceId: ids.workspace },
      { id: id(0xe4), key: keys.other, userId: ids.owner, workspaceId: ids.other, scopes: ["timers:read", "timers:write"] }
    ],
    timeEntries: [
      {
        id: id(0xf1),
        userId: ids.member,
        workspaceId: ids.workspace,
        projectId: ids.oldSite,
        status: "completed",
        note: "old\u0000one",
        startedAt: "2026-02-01T09:00:00.001Z",
        endedAt: "2026-02-01T10:00:00Z"
      }
    ]
  }
  return { id, ids, keys, fixture }
}

type World = ReturnType<typeof worldAt>

/** The same id sequence for each store. */
const countingIds = (base: number) => {
  let n = 0
  return { next: Effect.sync(() => uuid(base * 0x1000 + 0x800 + n++)) }
}

/** Answers as plain data: values as JSON, failures as their tag (and code, for public errors). */
const recorder = () => {
  const out: Array<unknown> = []
  const record = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.either(effect), (result) =>
      Effect.sync(() => {
        out.push(result._tag === "Right" ? JSON.parse(JSON.stringify(result.right ?? null)) : result.left._tag)
        return result
      }))
  return { out, record }
}

/** Cursors are signed with each store's own secret: keep only whether there is one. */
const withoutCursors = (answers: ReadonlyArray<unknown>) =>
  answers.map((answer) =>
    typeof answer === "object" && answer !== null && "nextCursor" in answer
      ? { ...answer, nextCursor: answer.nextCursor !== null }
      : answer
  )

const auth = (key: string) => `Bearer ${key}`

/** Runs `session` against a fresh memory store and the PostgreSQL store, each loaded with the world at `NOW + day`. */
const onBoth = <A>(world: World, day: number, session: (world: World) => Effect.Effect<A, unknown, Store.Store>) =>
  Effect.gen(function*() {
    const pg = yield* Store.Store
    const { store: memory } = yield* MemoryStore.make
    const run = (store: StoreService) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(NOW + day * DAY)
        yield* Fixture.load(world.fixture)
        return yield* session(world)
      }).pipe(
        Effect.provideService(Store.Store, store),
        Effect.provideService(Ids.Ids, countingIds(day + 1))
      )
    return { pg: yield* run(pg), memory: yield* run(memory), stores: { pg, memory } }
  })

const scripted = (world: World) =>
  Effect.gen(function*() {
    const { ids, keys } = world
    const { out, record } = recorder()
    const start = (key: string, idem: string, body: Record<string, unknown>) =>
      record(Operations.startTimer({ authorization: auth(key), idempotencyKey: idem, body: Request.json(body) }))
    const stop = (key: string, idem: string, timerId: string) =>
      record(Operations.stopTimer({ authorization: auth(key), idempotencyKey: idem, path: { timerId } }))
    const first = yield* start(keys.owner, "a", { projectId: ids.website, note: "é 🚀 \u0000" })
    const timerId = first._tag === "Right" ? first.right.response.timer?.id ?? "" : ""
    yield* TestClock.adjust("17 minutes")
    yield* start(keys.owner, "a", { note: "é 🚀 \u0000", projectId: ids.website })
    yield* start(keys.owner, "a", { projectId: ids.vaccine })
    const second = yield* start(keys.owner, "b", { projectId: ids.vaccine, billable: false })
    const secondId = second._tag === "Right" ? second.right.response.timer?.id ?? "" : ""
    yield* stop(keys.owner, "c", timerId)
    yield* TestClock.adjust("3 minutes")
    yield* stop(keys.owner, "d", secondId)
    yield* stop(keys.owner, "d", secondId)
    yield* stop(keys.owner, "e", secondId)
    yield* start(keys.member, "a", { projectId: ids.website })
    yield* start(keys.member, "b", { projectId: ids.oldSite })
    yield* start(keys.other, "a", { projectId: ids.piper })
    yield* TestClock.adjust("1 hour")
    yield* record(Admin.moveEntryStart(timerId, "2026-03-01T10:00:00Z"))
    yield* record(Operations.listTimeEntries({ authorization: auth(keys.owner) }))
    yield* record(Operations.listTimeEntries({ authorization: auth(keys.member), query: [["limit", "1"]] }))
    yield* record(Operations.getActiveTimer({ authorization: auth(keys.owner) }))
    yield* record(Operations.createProject({
      authorization: auth(keys.owner),
      body: Request.json({ clientId: ids.umbrella, name: "Zeta\u0000", color: "#AbCdEf" })
    }))
    yield* record(Operations.listProjects({ authorization: auth(keys.owner), query: [["clientId", ids.umbrella]] }))
    yield* record(Operations.listClients({ authorization: auth(keys.member) }))
    yield* record(Admin.setArchived("client", ids.globex, true))
    yield* record(Operations.listClients({ authorization: auth(keys.member) }))
    yield* record(Operations.getActiveTimer({ authorization: auth(keys.member) }))
    yield* start(keys.member, "c", { projectId: ids.website })
    yield* record(Admin.voidEntry(timerId))
    yield* record(Admin.voidEntry(timerId))
    yield* record(Admin.voidEntry("not-a-uuid"))
    yield* record(Admin.removeMembership({ workspaceId: ids.workspace, userId: ids.member }))
    yield* record(Operations.getActiveTimer({ authorization: auth(keys.member) }))
    yield* record(Admin.revokeApiKey(world.id(0xe1)))
    yield* record(Operations.getActiveTimer({ authorization: auth(keys.owner) }))
    yield* record(Admin.listApiKeys({ workspaceId: ids.workspace }))
    yield* record(Admin.createApiKey({ workspaceId: ids.workspace, userId: ids.owner }).pipe(Effect.map((k) => k.userId)))
    return { answers: withoutCursors(out), timerId }
  })

const byId = <A extends { readonly id: string }>(rows: ReadonlyArray<A>) =>
  [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

describe("PgStore answers what MemoryStore answers", () => {
  layer(storeLayer())((it) => {
    it.effect("for a scripted session of public and admin operations, then every read of the port", () =>
      Effect.gen(function*() {
        const world = worldAt(1)
        const { ids, keys } = world
        const { memory, pg, stores } = yield* onBoth(world, 0, scripted)
        expect(pg.answers).toEqual(memory.answers)
        expect(pg.answers.filter((answer) => typeof answer === "string" && /^[A-Z][A-Za-z]+$/.test(answer))).toEqual([
          "IdempotencyConflict",
          "TimerAlreadyStopped",
          "TimerAlreadyStopped",
          "ProjectNotFound",
          "ProjectNotFound",
          "RecordConflict",
          "RecordNotFound",
          "InvalidApiKey",
          "InvalidApiKey"
        ])

        const both = <A, E>(f: (store: StoreService) => Effect.Effect<A, E>) =>
          Effect.all([f(stores.pg), f(stores.memory)])
        const same = <A, E>(f: (store: StoreService) => Effect.Effect<A, E>) =>
          Effect.map(both(f), ([a, b]) => expect(a).toEqual(b))

        const scopes: ReadonlyArray<Records.UserScope> = [
          { workspaceId: ids.workspace, userId: ids.owner },
          { workspaceId: ids.workspace, userId: ids.member },
          { workspaceId: ids.workspace, userId: ids.removed },
          { workspaceId: ids.other, userId: ids.owner },
          { workspaceId: world.id(0x999), userId: ids.owner }
        ]
        const clients = [ids.globex, ids.initech, ids.umbrella, ids.hooli, world.id(0x998), "nope"]
        const projects = [ids.website, ids.oldSite, ids.app, ids.vaccine, ids.piper, world.id(0x997)]
        for (const key of Object.values(keys)) yield* same((s) => s.authenticate(sha256(key), NOW + DAY, generous))
        yield* same((s) => s.authenticate(sha256("unknown"), NOW + DAY, generous))
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
            for (const entryId of [undefined, pg.timerId, world.id(0xf1), world.id(0x996)]) {
              for (const idempotencyKey of [undefined, "a", "b", "zzz"]) {
                yield* same((s) => s.withTimerTransaction(scope, (tx) => tx.read({ idempotencyKey, entryId, projectId })))
              }
            }
          }
        }
        yield* same((s) => s.admin.listApiKeys({ userId: ids.owner }))
        yield* same((s) => s.admin.listApiKeys({ workspaceId: ids.other, userId: ids.owner }))
        yield* same((s) => s.admin.listApiKeys({ workspaceId: "nope" }))
        yield* same((s) => s.admin.findEntryScope(pg.timerId))
        yield* same((s) => s.admin.findEntryScope(world.id(0x996)))
        yield* same((s) => s.admin.findEntryScope("nope"))
        yield* same((s) =>
          s.admin.lookup({
            workspaceIds: [ids.workspace, world.id(0x995), ids.workspace, ids.other],
            userIds: [ids.member, world.id(0x995), ids.owner],
            clientIds: [ids.hooli, world.id(0x995), ids.globex, ids.hooli],
            projectIds: [world.id(0x995), ...projects],
            entryIds: [pg.timerId, world.id(0x995), world.id(0xf1)],
            apiKeyIds: [world.id(0xe4), world.id(0x995), world.id(0xe1)],
            apiKeyDigests: [sha256(keys.removed), sha256("nope"), sha256(keys.owner)],
            userScopes: scopes,
            assignments: [
              { projectId: ids.website, userId: ids.member },
              { projectId: ids.vaccine, userId: ids.removed },
              { projectId: ids.piper, userId: ids.owner }
            ]
          })
        )
        yield* same((s) => s.admin.setArchived("project", ids.piper, true))
        yield* same((s) => s.admin.setArchived("client", world.id(0x995), true))
        yield* same((s) => s.admin.revokeApiKey(world.id(0xe2), NOW + 5))
        yield* same((s) => s.admin.revokeApiKey(world.id(0xe2), NOW + 9))
        yield* same((s) => s.admin.revokeApiKey(world.id(0x995), NOW))
        yield* same((s) => s.authenticate(sha256(keys.member), NOW + DAY, generous))
        yield* same((s) => s.admin.removeMembership({ workspaceId: ids.other, userId: ids.owner }))
        yield* same((s) => s.admin.removeMembership({ workspaceId: ids.other, userId: ids.owner }))
        for (const [i, clientId] of clients.entries()) {
          yield* same((s) =>
            s.createProject({
              id: world.id(0x900 + i),
              workspaceId: ids.workspace,
              clientId,
              name: "N",
              color: "#000000",
              creatorUserId: ids.member,
              creatorRateCents: 12
            })
          )
        }
        yield* Effect.map(
          both((s) => s.listProjects({ workspaceId: ids.workspace, userId: ids.member }, ids.umbrella)),
          ([a, b]) => expect(byId(a)).toEqual(byId(b))
        )
      }))

    it.effect("for the rate limit, whatever the order of the clocks, counting only keys that authenticate", () =>
      Effect.gen(function*() {
        const world = worldAt(0x77)
        const { stores } = yield* onBoth(world, 3, () => Effect.void)
        const nows = [0, 10, 10, 999, 1000, 1001, 500, 1500, 2000, 2001, 2001, 2002, 1999, 5000, 5000, 5000, 5000]
        const policies = [{ limit: 3, windowMillis: 1000 }, { limit: 1, windowMillis: 1 }, { limit: 0, windowMillis: 10 }]
        for (const [i, policy] of policies.entries()) {
          for (const key of [...Object.values(world.keys), "unknown"]) {
            for (const now of nows) {
              const at = NOW + 3 * DAY + (i + 1) * 100_000 + now
              const [pg, memory] = yield* Effect.all([
                stores.pg.authenticate(sha256(key), at, policy),
                stores.memory.authenticate(sha256(key), at, policy)
              ])
              expect(pg).toEqual(memory)
            }
          }
        }
      }))

    let users = 0

    it.effect.prop(
      "for history pages: ties, project filters and positions between, before and after the rows",
      {
        entries: FastCheck.uniqueArray(
          FastCheck.record({
            id: FastCheck.uuid(),
            slot: FastCheck.integer({ min: 0, max: 6 }),
            vaccine: FastCheck.boolean(),
            status: FastCheck.constantFrom("completed" as const, "voided" as const)
          }),
          { selector: (e) => e.id, maxLength: 30 }
        ),
        queries: FastCheck.array(
          FastCheck.record({
            project: FastCheck.constantFrom<"website" | "vaccine" | "none" | null>(null, "website", "vaccine", "none"),
            after: FastCheck.option(
              FastCheck.record({
                slot: FastCheck.integer({ min: -1, max: 7 }),
                id: FastCheck.oneof(FastCheck.uuid(), FastCheck.constant("00000000-0000-0000-0000-000000000000"))
              }),
              { nil: null }
            ),
            fromEntry: FastCheck.nat(),
            limit: FastCheck.integer({ min: 0, max: 12 })
          }),
          { minLength: 1, maxLength: 8 }
        )
      },
      ({ entries, queries }) =>
        Effect.gen(function*() {
          const world = worldAt(5)
          const pg = yield* Store.Store
          const { store: memory } = yield* MemoryStore.make
          if (users === 0) yield* Fixture.load(world.fixture)
          yield* Fixture.load(world.fixture).pipe(Effect.provideService(Store.Store, memory))
          // A new user per run, so runs do not see each other's entries.
          const userId = uuid(0x900000 + ++users)
          const scope = { workspaceId: world.ids.workspace, userId }
          const at = (slot: number) => NOW - slot * 60_000
          const rows: Array<Records.EntryRow> = entries.map((e) => ({
            id: e.id,
            workspaceId: world.ids.workspace,
            userId,
            projectId: e.vaccine ? world.ids.vaccine : world.ids.website,
            status: e.status,
            billable: true,
            note: null,
            startedAt: at(e.slot),
            endedAt: at(e.slot) + 1000,
            payRateCents: 0
          }))
          const dataset = {
            workspaces: [],
            users: [{ id: userId, name: "P", email: "p" }],
            memberships: [],
            clients: [],
            projects: [],
            assignments: [],
            apiKeys: [],
            timeEntries: rows
          }
          yield* pg.admin.insert(dataset)
          yield* memory.admin.insert(dataset)
          for (const query of queries) {
            const from = rows.length === 0 ? undefined : rows[query.fromEntry % rows.length]
            const after = query.after !== null
              ? { startedAt: at(query.after.slot), id: query.after.id }
              : from === undefined
              ? null
              : { startedAt: from.startedAt, id: from.id }
            const projectId = query.project === null
              ? null
              : query.project === "none"
              ? world.id(0x994)
              : world.ids[query.project]
            const entriesQuery = { projectId, after, limit: query.limit }
            expect(yield* pg.listEntries(scope, entriesQuery)).toEqual(yield* memory.listEntries(scope, entriesQuery))
          }
        }),
      { fastCheck: { numRuns: 60 } }
    )

    let runs = 0

    it.effect.prop(
      "for random sequences of timer operations on a few users",
      {
        commands: FastCheck.array(
          FastCheck.oneof(
            FastCheck.record({
              kind: FastCheck.constant("start" as const),
              user: FastCheck.constantFrom("owner" as const, "member" as const, "other" as const),
              project: FastCheck.constantFrom("website" as const, "vaccine" as const, "oldSite" as const, "piper" as const),
              idem: FastCheck.constantFrom("a", "b", "c", " a "),
              billable: FastCheck.option(FastCheck.boolean(), { nil: undefined })
            }),
            FastCheck.record({
              kind: FastCheck.constant("stop" as const),
              user: FastCheck.constantFrom("owner" as const, "member" as const, "other" as const),
              target: FastCheck.nat(),
              idem: FastCheck.constantFrom("a", "b", "s", "t")
            }),
            FastCheck.record({ kind: FastCheck.constant("wait" as const), millis: FastCheck.integer({ min: 0, max: 90_000_000 }) }),
            FastCheck.record({ kind: FastCheck.constant("void" as const), target: FastCheck.nat() }),
            FastCheck.record({ kind: FastCheck.constant("archive" as const), archived: FastCheck.boolean() })
          ),
          { maxLength: 25 }
        )
      },
      ({ commands }) =>
        Effect.gen(function*() {
          const run = ++runs + 10
          const world = worldAt(run)
          const session = (w: World) =>
            Effect.gen(function*() {
              const { out, record } = recorder()
              const seen: Array<string> = [w.id(0xf1)]
              for (const command of commands) {
                switch (command.kind) {
                  case "start": {
                    const result = yield* record(Operations.startTimer({
                      authorization: auth(w.keys[command.user]),
                      idempotencyKey: command.idem,
                      body: Request.json({ projectId: w.ids[command.project], ...(command.billable === undefined ? {} : { billable: command.billable }) })
                    }))
                    if (result._tag === "Right" && result.right.response.timer !== null) seen.push(result.right.response.timer.id)
                    break
                  }
                  case "stop":
                    yield* record(Operations.stopTimer({
                      authorization: auth(w.keys[command.user]),
                      idempotencyKey: command.idem,
                      path: { timerId: seen[command.target % seen.length] ?? w.id(0) }
                    }))
                    break
                  case "wait":
                    yield* TestClock.adjust(command.millis)
                    break
                  case "void":
                    yield* record(Admin.voidEntry(seen[command.target % seen.length] ?? w.id(0)))
                    break
                  case "archive":
                    yield* record(Admin.setArchived("project", w.ids.vaccine, command.archived))
                    break
                }
              }
              for (const key of [w.keys.owner, w.keys.member, w.keys.other]) {
                yield* record(Operations.getActiveTimer({ authorization: auth(key) }))
                yield* record(Operations.listTimeEntries({ authorization: auth(key), query: [["limit", "100"]] }))
              }
              return withoutCursors(out)
            })
          const { memory, pg } = yield* onBoth(world, run, session).pipe(
            Effect.provideService(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 1000, windowMillis: 60_000 } })
          )
          expect(pg).toEqual(memory)
        }),
      { fastCheck: { numRuns: 40 } }
    )
  })
})
