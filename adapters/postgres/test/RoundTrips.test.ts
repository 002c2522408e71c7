/**
 * Round trips, measured on the wire: the store talks to PostgreSQL through a counting proxy over a single pooled
 * connection (so no connecting is counted), and each Store method and each public operation is measured on its own.
 * The figures are printed and must equal those of the README. The connection's periodic re-planning (one round trip
 * at most every `replanAfterMillis`, `Database.ts`) is put out of the way: it belongs to no operation.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Admin, ApiKey, Fixture, Operations, Request, Settings, Store } from "@stint/core"
import { PgStore } from "@stint/postgres"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"
import * as Proxy from "./proxy.js"
import { as, databaseLayer, seedWorld, start, stop, TestDatabase } from "./support.js"

class Counter extends Effect.Service<Counter>()("test/RoundTripCounter", {
  scoped: Effect.gen(function*() {
    const db = yield* TestDatabase
    const target = new URL(db.url)
    const proxy = yield* Effect.acquireRelease(
      Effect.promise(() => Proxy.start({ host: target.hostname, port: Number(target.port || 5432) })),
      (p) => Effect.promise(p.close)
    )
    const through = new URL(db.url)
    through.hostname = "127.0.0.1"
    through.port = String(proxy.port)
    return { proxy, url: through.toString() }
  })
}) {}

const storeThroughProxy = Layer.unwrapEffect(Effect.map(Counter, ({ url }) => PgStore.layer({ url, poolSize: 1, replanAfterMillis: 3_600_000 })))
const testLayer = Layer.provideMerge(storeThroughProxy, Layer.provideMerge(Counter.Default, databaseLayer))

describe("round trips", () => {
  layer(testLayer, { excludeTestServices: true })((it) => {
    it.effect("of every Store method and public operation", () =>
      Effect.gen(function*() {
        const { proxy } = yield* Counter
        const store = yield* Store.Store
        const measured: Record<string, number> = {}
        const measure = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>) =>
          Effect.gen(function*() {
            const before = proxy.roundTrips()
            const result = yield* Effect.either(effect)
            measured[name] = proxy.roundTrips() - before
            return result
          })
        const { ids, keys } = yield* seedWorld()
        const scope = { workspaceId: ids.workspace, userId: ids.owner }
        yield* store.ping

        // The port.
        yield* measure("ping", store.ping)
        yield* measure("authenticate", store.authenticate(yield* ApiKey.digest(keys.owner), Date.now(), Settings.defaults.rateLimit))
        yield* measure("cursorSecret", store.cursorSecret)
        yield* measure("listClients", store.listClients(scope))
        yield* measure("listProjects", store.listProjects(scope, ids.globex))
        yield* measure("createProject", store.createProject({
          id: randomUUID(),
          workspaceId: ids.workspace,
          clientId: ids.umbrella,
          name: "P",
          color: "#000000",
          creatorUserId: ids.owner,
          creatorRateCents: 1
        }))
        yield* measure("findActiveEntry", store.findActiveEntry(scope))
        yield* measure("listEntries", store.listEntries(scope, { projectId: null, after: null, limit: 21 }))
        yield* measure("withTimerTransaction (read, write)", store.withTimerTransaction(scope, (tx) =>
          Effect.zipRight(tx.read({ idempotencyKey: "x", projectId: ids.website }), tx.write({ forgetIdempotencyBefore: 0 }))))
        yield* measure("withTimerTransaction (read only)", store.withTimerTransaction(scope, (tx) => tx.read({ entryId: randomUUID() })))
        yield* measure("withTimerTransaction (body fails after reading)", store.withTimerTransaction(scope, (tx) =>
          Effect.zipRight(tx.read({}), Effect.fail("no"))))
        yield* measure("withTimerTransaction (write only)", store.withTimerTransaction(scope, (tx) => tx.write({ forgetIdempotencyBefore: 0 })))
        yield* measure("admin.lookup", store.admin.lookup({
          workspaceIds: [ids.workspace],
          userIds: [ids.owner],
          clientIds: [],
          projectIds: [],
          entryIds: [],
          apiKeyIds: [],
          apiKeyDigests: [],
          userScopes: [scope],
          assignments: []
        }))
        yield* measure("admin.insert", store.admin.insert({
          workspaces: [{ id: randomUUID(), name: "W" }],
          users: [{ id: randomUUID(), name: "U", email: "u" }],
          memberships: [],
          clients: [],
          projects: [],
          assignments: [],
          apiKeys: [],
          timeEntries: []
        }))
        yield* measure("admin.setArchived", store.admin.setArchived("project", ids.piper, false))
        yield* measure("admin.removeMembership", store.admin.removeMembership({ workspaceId: ids.otherWorkspace, userId: ids.member }))
        yield* measure("admin.revokeApiKey", store.admin.revokeApiKey(ids.keys.revoked, Date.now()))
        yield* measure("admin.listApiKeys", store.admin.listApiKeys({ workspaceId: ids.workspace }))
        yield* measure("admin.findEntryScope", store.admin.findEntryScope(randomUUID()))

        // The public operations, authentication included.
        yield* measure("GET /clients", Operations.listClients(as(keys.owner)))
        yield* measure("GET /projects", Operations.listProjects(as(keys.owner, { query: [["clientId", ids.globex]] })))
        yield* measure("POST /projects", Operations.createProject(as(keys.owner, { body: Request.json({ clientId: ids.umbrella, name: "Q" }) })))
        yield* measure("GET /timer", Operations.getActiveTimer(as(keys.owner)))
        const first = yield* measure("POST /timers/start", Operations.startTimer(start(keys.owner, "a", { projectId: ids.website })))
        yield* measure("POST /timers/start (completing the running timer)", Operations.startTimer(start(keys.owner, "b", { projectId: ids.vaccine })))
        yield* measure("POST /timers/start (replay)", Operations.startTimer(start(keys.owner, "a", { projectId: ids.website })))
        yield* measure("POST /timers/start (409 IDEMPOTENCY_CONFLICT)", Operations.startTimer(start(keys.owner, "a", { projectId: ids.vaccine })))
        yield* measure("POST /timers/start (404 PROJECT_NOT_FOUND)", Operations.startTimer(start(keys.owner, "c", { projectId: ids.initechApp })))
        const firstId = first._tag === "Right" ? first.right.response.timer?.id ?? "" : ""
        yield* measure("POST /timers/{id}/stop (409 TIMER_ALREADY_STOPPED)", Operations.stopTimer(stop(keys.owner, "d", firstId)))
        const running = yield* Operations.getActiveTimer(as(keys.owner))
        yield* measure("POST /timers/{id}/stop", Operations.stopTimer(stop(keys.owner, "e", running.timer?.id ?? "")))
        yield* measure("GET /time-entries (first page)", Operations.listTimeEntries(as(keys.owner)))
        const page = yield* Operations.listTimeEntries(as(keys.owner, { query: [["limit", "1"]] }))
        expect(page.nextCursor).not.toBeNull()
        yield* measure("GET /time-entries (next page)", Operations.listTimeEntries(as(keys.owner, { query: [["limit", "1"], ["cursor", page.nextCursor ?? ""]] })))
        yield* measure("GET /time-entries (project filter)", Operations.listTimeEntries(as(keys.owner, { query: [["projectId", ids.website]] })))
        const forged = `${(page.nextCursor ?? "").slice(0, -4)}AAAA`
        yield* measure("GET /time-entries (400 INVALID_CURSOR)", Operations.listTimeEntries(as(keys.owner, { query: [["limit", "1"], ["cursor", forged]] })))
        yield* measure("any operation (401, unknown key)", Operations.getActiveTimer(as(ApiKey.generate())))
        yield* measure("any operation (401, malformed key)", Operations.getActiveTimer(as("nope")))
        yield* measure("any operation (403 INSUFFICIENT_SCOPE)", Operations.listClients(as(keys.readOnly)))
        yield* measure("any operation (400 INVALID_REQUEST)", Operations.getActiveTimer(as(keys.owner, { query: [["x", "1"]] })))
        yield* measure("any operation (429)", Operations.getActiveTimer(as(keys.member)).pipe(
          Effect.provideService(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 0, windowMillis: 1000 } })
        ))
        yield* measure("POST /timers/start (401, unknown key)", Operations.startTimer(start(ApiKey.generate(), "f", { projectId: ids.website })))
        yield* measure("POST /timers/start (403 INSUFFICIENT_SCOPE)", Operations.startTimer(start(keys.readOnly, "g", { projectId: ids.website })))
        yield* measure("POST /timers/start (400, no Idempotency-Key)", Operations.startTimer(as(keys.owner, { body: Request.json({ projectId: ids.website }) })))
        yield* measure("Fixture.load (stint seed)", Fixture.load({ workspaces: [{ id: randomUUID(), name: "S" }] }))
        yield* measure("Admin.voidEntry", Admin.voidEntry(firstId))

        console.log(
          "Round trips:\n" + Object.entries(measured).map(([name, n]) => `  ${name.padEnd(56)} ${n}`).join("\n")
        )
        expect(measured).toEqual({
          "ping": 1,
          "authenticate": 1,
          "cursorSecret": 0,
          "listClients": 1,
          "listProjects": 1,
          "createProject": 1,
          "findActiveEntry": 1,
          "listEntries": 1,
          "withTimerTransaction (read, write)": 2,
          "withTimerTransaction (read only)": 2,
          "withTimerTransaction (body fails after reading)": 2,
          "withTimerTransaction (write only)": 1,
          "admin.lookup": 1,
          "admin.insert": 1,
          "admin.setArchived": 1,
          "admin.removeMembership": 1,
          "admin.revokeApiKey": 1,
          "admin.listApiKeys": 1,
          "admin.findEntryScope": 1,
          "GET /clients": 2,
          "GET /projects": 2,
          "POST /projects": 2,
          "GET /timer": 1,
          "POST /timers/start": 2,
          "POST /timers/start (completing the running timer)": 2,
          "POST /timers/start (replay)": 2,
          "POST /timers/start (409 IDEMPOTENCY_CONFLICT)": 2,
          "POST /timers/start (404 PROJECT_NOT_FOUND)": 2,
          "POST /timers/{id}/stop (409 TIMER_ALREADY_STOPPED)": 2,
          "POST /timers/{id}/stop": 2,
          // The page travels with the authentication.
          "GET /time-entries (first page)": 1,
          "GET /time-entries (next page)": 1,
          "GET /time-entries (project filter)": 1,
          "GET /time-entries (400 INVALID_CURSOR)": 1,
          "any operation (401, unknown key)": 1,
          "any operation (401, malformed key)": 0,
          "any operation (403 INSUFFICIENT_SCOPE)": 1,
          "any operation (400 INVALID_REQUEST)": 1,
          "any operation (429)": 1,
          // Authentication travels with the transaction's first round trip: a refused key costs its COMMIT too.
          "POST /timers/start (401, unknown key)": 2,
          "POST /timers/start (403 INSUFFICIENT_SCOPE)": 2,
          "POST /timers/start (400, no Idempotency-Key)": 1,
          "Fixture.load (stint seed)": 2,
          "Admin.voidEntry": 3
        })
      }))
  })
})
