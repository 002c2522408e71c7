/**
 * The admin operations: creating through the fixture rules, archiving, removing memberships, keys (plaintext once,
 * never listed), voiding and moving entries through the timer transaction.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Admin, ApiKey, Errors, MemoryStore, Operations, Request, Store } from "@stint/core"

const setup = Effect.gen(function*() {
  const workspace = yield* Admin.createWorkspace({ name: "Acme" })
  const user = yield* Admin.createUser({ name: "Ada", email: "ada@example.com" })
  yield* Admin.addMembership({ workspaceId: workspace.id, userId: user.id, role: "member", payRateCents: 1200 })
  const client = yield* Admin.createClient({ workspaceId: workspace.id, name: "Globex" })
  const project = yield* Admin.createProject({ clientId: client.id, name: "Website", color: "#00AA00" })
  const assignment = yield* Admin.assign({ projectId: project.id.toUpperCase(), userId: user.id })
  // Answered as stored: the rate the default gave, the ids lowercased.
  expect(assignment).toEqual({ projectId: project.id, userId: user.id, payRateCents: 1200 })
  const key = yield* Admin.createApiKey({ workspaceId: workspace.id, userId: user.id })
  return { workspace, user, client, project, key, authorization: `Bearer ${key.key}` }
})

const start = (authorization: string, projectId: string) =>
  Effect.map(
    Operations.startTimer({ authorization, idempotencyKey: crypto.randomUUID(), body: Request.json({ projectId }) }),
    (r) => r.response.timer?.id ?? ""
  )

describe("Admin", () => {
  it.effect("creates records with generated UUIDv7 ids and assigns at the membership's rate by default", () =>
    Effect.gen(function*() {
      const w = yield* setup
      expect(w.workspace.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(w.key.key).toMatch(ApiKey.WELL_FORMED)
      const started = yield* Operations.startTimer({
        authorization: w.authorization,
        idempotencyKey: "a",
        body: Request.json({ projectId: w.project.id })
      })
      expect(started.response.timer).toMatchObject({ payRateCents: 1200, color: "#00AA00", clientName: "Globex" })
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("removing a membership revokes the user's keys there: adding it back revives none", () =>
    Effect.gen(function*() {
      const w = yield* setup
      const elsewhere = yield* Admin.createWorkspace({ name: "Elsewhere" })
      yield* Admin.addMembership({ workspaceId: elsewhere.id, userId: w.user.id, role: "member" })
      const other = yield* Admin.createApiKey({ workspaceId: elsewhere.id, userId: w.user.id })
      const removed = yield* Admin.removeMembership({ workspaceId: w.workspace.id.toUpperCase(), userId: w.user.id })
      expect(removed).toEqual({ workspaceId: w.workspace.id, userId: w.user.id, removed: true, keysRevoked: 1 })
      yield* Admin.addMembership({ workspaceId: w.workspace.id, userId: w.user.id, role: "member" })
      const error = yield* Effect.flip(Operations.listClients({ authorization: w.authorization }))
      expect(error.code).toBe("INVALID_API_KEY")
      expect((yield* Admin.listApiKeys({ workspaceId: w.workspace.id }))[0]?.revokedAt).not.toBeNull()
      // The user's key in another workspace is untouched.
      expect((yield* Admin.listApiKeys({ workspaceId: elsewhere.id }))[0]?.revokedAt).toBeNull()
      yield* Operations.listClients({ authorization: `Bearer ${other.key}` })
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("a removal with no membership revokes nothing; one cut short after revoking is finished by running it again", () =>
    Effect.gen(function*() {
      const w = yield* setup
      const outsider = yield* Admin.createUser({ name: "Bob", email: "bob@example.com" })
      // A key may be made before its membership: removing the membership that does not exist yet leaves it alone.
      const early = yield* Admin.createApiKey({ workspaceId: w.workspace.id, userId: outsider.id })
      const missing = yield* Effect.flip(Admin.removeMembership({ workspaceId: w.workspace.id, userId: outsider.id }))
      expect(missing._tag).toBe("RecordNotFound")
      yield* Admin.addMembership({ workspaceId: w.workspace.id.toUpperCase(), userId: outsider.id, role: "member" })
      yield* Operations.listClients({ authorization: `Bearer ${early.key}` })

      // The removal fails after the revocation: the membership stays, its keys are revoked already.
      const store = yield* Store.Store
      const failing = { ...store, admin: { ...store.admin, removeMembership: () => Effect.fail(new Errors.StoreError({ message: "down" })) } }
      const failed = yield* Effect.flip(
        Effect.provideService(Admin.removeMembership({ workspaceId: w.workspace.id, userId: w.user.id }), Store.Store, failing)
      )
      expect(failed._tag).toBe("StoreError")
      expect((yield* Effect.flip(Operations.listClients({ authorization: w.authorization }))).code).toBe("INVALID_API_KEY")
      expect(yield* Admin.removeMembership({ workspaceId: w.workspace.id, userId: w.user.id })).toEqual({
        workspaceId: w.workspace.id,
        userId: w.user.id,
        removed: true,
        keysRevoked: 0
      })
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("answers a membership as stored: ids in lowercase, the default rate 0", () =>
    Effect.gen(function*() {
      const w = yield* setup
      const other = yield* Admin.createUser({ name: "Cy", email: "cy@example.com" })
      expect(
        yield* Admin.addMembership({ workspaceId: w.workspace.id.toUpperCase(), userId: other.id.toUpperCase(), role: "admin" })
      ).toEqual({ workspaceId: w.workspace.id, userId: other.id, role: "admin", payRateCents: 0 })
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("lists keys without plaintext or digest, and revokes them from that instant", () =>
    Effect.gen(function*() {
      const w = yield* setup
      const keys = yield* Admin.listApiKeys({ workspaceId: w.workspace.id })
      expect(keys).toEqual([{
        id: w.key.id,
        userId: w.user.id,
        workspaceId: w.workspace.id,
        scopes: ["clients:read", "projects:read", "projects:write", "timers:read", "timers:write"],
        createdAt: 0,
        revokedAt: null
      }])
      yield* Admin.revokeApiKey(w.key.id)
      const error = yield* Effect.flip(Operations.listClients({ authorization: w.authorization }))
      expect(error.code).toBe("INVALID_API_KEY")
      const missing = yield* Effect.flip(Admin.revokeApiKey(crypto.randomUUID()))
      expect(missing._tag).toBe("RecordNotFound")
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("voids an active entry at this moment and a completed one keeping its end; twice is a conflict", () =>
    Effect.gen(function*() {
      const w = yield* setup
      const first = yield* start(w.authorization, w.project.id)
      yield* TestClock.adjust("10 seconds")
      const second = yield* start(w.authorization, w.project.id)
      yield* TestClock.adjust("5 seconds")
      const voidedActive = yield* Admin.voidEntry(second)
      expect(voidedActive).toMatchObject({ status: "voided", endedAt: "1970-01-01T00:00:15.000Z", durationSeconds: 5, earnings: null })
      const voidedCompleted = yield* Admin.voidEntry(first)
      expect(voidedCompleted).toMatchObject({ status: "voided", endedAt: "1970-01-01T00:00:10.000Z", durationSeconds: 10 })
      const again = yield* Effect.flip(Admin.voidEntry(first))
      expect(again._tag).toBe("RecordConflict")
      const active = yield* Operations.getActiveTimer({ authorization: w.authorization })
      expect(active.timer).toBeNull()
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("moves an entry's start, but never past its end or, while active, past now", () =>
    Effect.gen(function*() {
      const w = yield* setup
      yield* TestClock.adjust("1 hour")
      const running = yield* start(w.authorization, w.project.id)
      const moved = yield* Admin.moveEntryStart(running, "1970-01-01T00:30:00Z")
      expect(moved.startedAt).toBe("1970-01-01T00:30:00.000Z")
      const future = yield* Effect.flip(Admin.moveEntryStart(running, "1970-01-01T02:00:00Z"))
      expect(future._tag).toBe("AdminInputInvalid")
      const bad = yield* Effect.flip(Admin.moveEntryStart(running, "yesterday"))
      expect(bad._tag).toBe("AdminInputInvalid")
      const timer = (yield* Operations.getActiveTimer({ authorization: w.authorization })).timer
      expect(timer?.elapsedSeconds).toBe(1800)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("archives and restores clients and projects; removes memberships", () =>
    Effect.gen(function*() {
      const w = yield* setup
      yield* Admin.setArchived("client", w.client.id, true)
      const hidden = yield* Operations.listClients({ authorization: w.authorization })
      expect(hidden.clients).toEqual([])
      yield* Admin.setArchived("client", w.client.id, false)
      const shown = yield* Operations.listClients({ authorization: w.authorization })
      expect(shown.clients.map((c) => c.id)).toEqual([w.client.id])
      const unknown = yield* Effect.flip(Admin.setArchived("project", crypto.randomUUID(), true))
      expect(unknown._tag).toBe("RecordNotFound")
      yield* Admin.removeMembership({ workspaceId: w.workspace.id, userId: w.user.id })
      const refused = yield* Effect.flip(Operations.listClients({ authorization: w.authorization }))
      expect(refused.code).toBe("INVALID_API_KEY")
      const twice = yield* Effect.flip(Admin.removeMembership({ workspaceId: w.workspace.id, userId: w.user.id }))
      expect(twice._tag).toBe("RecordNotFound")
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("answers a client and a project as stored: the default color when none is given, ids in lowercase", () =>
    Effect.gen(function*() {
      const w = yield* setup
      const client = yield* Admin.createClient({ workspaceId: w.workspace.id.toUpperCase(), name: "Plain" })
      expect(client).toMatchObject({ workspaceId: w.workspace.id, name: "Plain", color: "#ff5c35" })
      const project = yield* Admin.createProject({ clientId: client.id.toUpperCase(), name: "Plain", color: null })
      expect(project).toMatchObject({ clientId: client.id, name: "Plain", color: "#ff5c35" })
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("refuses admin input that breaks the fixture rules, naming the field", () =>
    Effect.gen(function*() {
      const w = yield* setup
      const error = yield* Effect.flip(Admin.createClient({ workspaceId: w.workspace.id, name: "X", color: "blue" }))
      expect(error._tag === "AdminInputInvalid" && error.path).toBe("$.clients[0].color")
      const duplicate = yield* Effect.flip(Admin.addMembership({ workspaceId: w.workspace.id, userId: w.user.id, role: "admin" }))
      expect(duplicate._tag).toBe("AdminInputInvalid")
    }).pipe(Effect.provide(MemoryStore.layerMemory)))
})
