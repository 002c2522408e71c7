/**
 * The fixture loader: the JSON path of every kind of problem, nothing written on refusal, defaults, and the summary.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { ApiKey, Errors, Fixture, MemoryStore, Operations, Store } from "@stint/core"

const id = (n: number) => `0190a6b2-0000-7000-8000-${String(n).padStart(12, "0")}`
const W = id(1), U = id(2), C = id(3), P = id(4), E = id(5)

const valid = () => ({
  workspaces: [{ id: W, name: "Acme" }],
  users: [{ id: U, name: "Ada", email: "ada@example.com" }],
  memberships: [{ workspaceId: W, userId: U, role: "owner", payRateCents: 5000 }],
  clients: [{ id: C, workspaceId: W, name: "Globex", color: "#123abc", archived: false }],
  projects: [{ id: P, clientId: C, name: "Website", color: null, archived: false }],
  assignments: [{ projectId: P, userId: U }],
  apiKeys: [{ key: `stint_${"a".repeat(43)}`, userId: U, workspaceId: W, createdAt: "2026-01-01T00:00:00+02:00" }],
  timeEntries: [{
    id: E,
    userId: U,
    workspaceId: W,
    projectId: P,
    status: "completed",
    billable: true,
    note: null,
    startedAt: "2026-01-02T09:00:00Z",
    endedAt: "2026-01-02T10:30:00Z"
  }]
})

const refusal = (fixture: unknown) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(Fixture.load(fixture))
    const { tables } = yield* MemoryStore.MemoryDriver
    const written = Object.values(tables).reduce((n, table) => n + table.size, 0)
    return { error, written }
  }).pipe(Effect.provide(MemoryStore.layerMemory))

describe("Fixture.load", () => {
  it.effect("loads every kind, fills defaults, stores digests only and prints a summary", () =>
    Effect.gen(function*() {
      const summary = yield* Fixture.load(valid())
      expect(summary.counts).toEqual({
        workspaces: 1, users: 1, memberships: 1, clients: 1, projects: 1, assignments: 1, apiKeys: 1, timeEntries: 1
      })
      expect(summary.apiKeys).toEqual([{ id: summary.apiKeys[0]?.id, key: `stint_${"a".repeat(43)}`, userId: U, workspaceId: W }])
      const { tables } = yield* MemoryStore.MemoryDriver
      const [key] = [...tables.apiKeys.values()]
      expect(key?.digest).toBe(yield* ApiKey.digest(`stint_${"a".repeat(43)}`))
      expect(JSON.stringify([...tables.apiKeys.values()])).not.toContain("aaaaaaaaaaaaaaaa")
      expect(key?.createdAt).toBe(Date.UTC(2025, 11, 31, 22))
      expect(key?.scopes).toEqual(["clients:read", "projects:read", "projects:write", "timers:read", "timers:write"])
      expect(tables.projects.get(P)?.color).toBe("#ff5c35")
      expect(tables.assignments.get(`${P} ${U}`)?.payRateCents).toBe(5000)
      expect(tables.entries.get(E)?.payRateCents).toBe(5000)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("a membership without payRateCents has 0, and its assignments and entries take it", () =>
    Effect.gen(function*() {
      const fixture = valid()
      yield* Fixture.load({ ...fixture, memberships: [{ workspaceId: W, userId: U, role: "owner" }] })
      const { tables } = yield* MemoryStore.MemoryDriver
      expect(tables.memberships.get(`${W} ${U}`)?.payRateCents).toBe(0)
      expect(tables.assignments.get(`${P} ${U}`)?.payRateCents).toBe(0)
      expect(tables.entries.get(E)?.payRateCents).toBe(0)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("references in upper case name the same rows, and their rates default as in lower case", () =>
    Effect.gen(function*() {
      const fixture = valid()
      const upper = (value: string) => value.toUpperCase()
      yield* Fixture.load({
        ...fixture,
        assignments: [{ projectId: upper(P), userId: upper(U) }],
        timeEntries: fixture.timeEntries.map((e) => ({ ...e, userId: upper(U), workspaceId: upper(W), projectId: upper(P) }))
      })
      const { tables } = yield* MemoryStore.MemoryDriver
      expect(tables.assignments.get(`${P} ${U}`)?.payRateCents).toBe(5000)
      expect(tables.entries.get(E)).toMatchObject({ userId: U, workspaceId: W, projectId: P, payRateCents: 5000 })
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("generates a key when none is given and prints it once", () =>
    Effect.gen(function*() {
      const fixture = { ...valid(), apiKeys: [{ userId: U, workspaceId: W }] }
      const summary = yield* Fixture.load(fixture)
      expect(summary.apiKeys[0]?.key).toMatch(/^stint_[A-Za-z0-9_-]{43}$/)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  const cases: Array<[string, (f: ReturnType<typeof valid>) => unknown, string]> = [
    ["not an object", () => [], "$"],
    ["unknown top-level array", (f) => ({ ...f, invoices: [] }), "$.invoices"],
    ["bad uuid", (f) => ({ ...f, users: [{ ...f.users[0], id: "nope" }] }), "$.users[0].id"],
    ["bad role", (f) => ({ ...f, memberships: [{ ...f.memberships[0], role: "boss" }] }), "$.memberships[0].role"],
    ["bad color", (f) => ({ ...f, clients: [{ ...f.clients[0], color: "red" }] }), "$.clients[0].color"],
    ["unknown field", (f) => ({ ...f, projects: [{ ...f.projects[0], budget: 1 }] }), "$.projects[0].budget"],
    ["negative rate", (f) => ({ ...f, assignments: [{ projectId: P, userId: U, payRateCents: -1 }] }), "$.assignments[0].payRateCents"],
    ["bad key", (f) => ({ ...f, apiKeys: [{ ...f.apiKeys[0], key: "stint_short" }] }), "$.apiKeys[0].key"],
    ["bad scope", (f) => ({ ...f, apiKeys: [{ ...f.apiKeys[0], scopes: ["admin"] }] }), "$.apiKeys[0].scopes[0]"],
    ["invalid date", (f) => ({ ...f, timeEntries: [{ ...f.timeEntries[0], startedAt: "2026-02-29T00:00:00Z" }] }), "$.timeEntries[0].startedAt"],
    // Valid timestamps whose instant leaves the four-digit years in UTC could never be written back.
    ["an instant past 9999", (f) => ({ ...f, timeEntries: [{ ...f.timeEntries[0], endedAt: "9999-12-31T23:00:00-02:00" }] }), "$.timeEntries[0].endedAt"],
    ["an instant before 0000", (f) => ({ ...f, timeEntries: [{ ...f.timeEntries[0], startedAt: "0000-01-01T00:30:00+01:00" }] }), "$.timeEntries[0].startedAt"],
    ["duplicate id", (f) => ({ ...f, users: [f.users[0], f.users[0]] }), "$.users[1].id"],
    ["unknown workspace", (f) => ({ ...f, clients: [{ ...f.clients[0], workspaceId: id(99) }] }), "$.clients[0].workspaceId"],
    ["unknown client", (f) => ({ ...f, projects: [{ ...f.projects[0], clientId: id(99) }] }), "$.projects[0].clientId"],
    ["unknown user", (f) => ({ ...f, assignments: [{ projectId: P, userId: id(99) }] }), "$.assignments[0].userId"],
    ["active with end", (f) => ({ ...f, timeEntries: [{ ...f.timeEntries[0], status: "active" }] }), "$.timeEntries[0].endedAt"],
    ["completed without end", (f) => ({ ...f, timeEntries: [{ ...f.timeEntries[0], endedAt: null }] }), "$.timeEntries[0].endedAt"],
    ["end before start", (f) => ({ ...f, timeEntries: [{ ...f.timeEntries[0], endedAt: "2026-01-02T08:00:00Z" }] }), "$.timeEntries[0].endedAt"],
    [
      "two active entries",
      (f) => ({
        ...f,
        timeEntries: [
          { ...f.timeEntries[0], status: "active", endedAt: null },
          { ...f.timeEntries[0], id: id(6), status: "active", endedAt: null }
        ]
      }),
      "$.timeEntries[1].status"
    ],
    [
      "project of another workspace",
      (f) => ({ ...f, workspaces: [...f.workspaces, { id: id(7), name: "B" }], timeEntries: [{ ...f.timeEntries[0], workspaceId: id(7) }] }),
      "$.timeEntries[0].projectId"
    ]
  ]
  for (const [name, change, path] of cases) {
    it.effect(`refuses ${name} at ${path} and writes nothing`, () =>
      Effect.gen(function*() {
        const { error, written } = yield* refusal(change(valid()))
        expect(error).toBeInstanceOf(Errors.AdminInputInvalid)
        expect(error._tag === "AdminInputInvalid" ? error.path : "").toBe(path)
        expect(written).toBe(0)
      }))
  }

  it.effect("words a refused value by every value allowed: each literal of a role, scope or status, a color's format", () =>
    Effect.gen(function*() {
      const messages: Array<[(f: ReturnType<typeof valid>) => unknown, string]> = [
        [(f) => ({ ...f, memberships: [{ ...f.memberships[0], role: "boss" }] }), `Expected "owner" | "admin" | "member", actual "boss"`],
        [(f) => ({ ...f, memberships: [{ ...f.memberships[0], role: 5 }] }), `Expected "owner" | "admin" | "member", actual 5`],
        [(f) => ({ ...f, timeEntries: [{ ...f.timeEntries[0], status: "done" }] }), `Expected "active" | "completed" | "voided", actual "done"`],
        [
          (f) => ({ ...f, apiKeys: [{ ...f.apiKeys[0], scopes: ["admin"] }] }),
          `Expected "clients:read" | "projects:read" | "projects:write" | "timers:read" | "timers:write", actual "admin"`
        ],
        [(f) => ({ ...f, clients: [{ ...f.clients[0], color: "#12345" }] }), "must be #rrggbb (# and six hex digits)"]
      ]
      for (const [change, message] of messages) {
        const { error } = yield* refusal(change(valid()))
        expect(error._tag === "AdminInputInvalid" ? error.message : error).toBe(message)
      }
    }))

  it.effect("checks references and uniqueness against what is already stored", () =>
    Effect.gen(function*() {
      yield* Fixture.load(valid())
      const again = yield* Effect.flip(Fixture.load({ users: [{ id: U, name: "Ada", email: "a@b" }] }))
      expect(again._tag === "AdminInputInvalid" && again.path).toBe("$.users[0].id")
      // A key stored already is named by its path, not by its digest.
      const key = valid().apiKeys[0]
      const taken = yield* Effect.flip(Fixture.load({ apiKeys: [{ ...key, id: id(20) }] }))
      expect(taken._tag === "AdminInputInvalid" && [taken.path, taken.message]).toEqual(["$.apiKeys[0].key", "key already exists"])
      const twice = yield* Effect.flip(Fixture.load({ apiKeys: [{ ...key, id: id(21), key: `stint_${"b".repeat(43)}` }, { ...key, id: id(22), key: `stint_${"b".repeat(43)}` }] }))
      expect(twice._tag === "AdminInputInvalid" && [twice.path, twice.message]).toEqual(["$.apiKeys[1].key", "duplicate apiKeys key"])
      const active = { ...valid().timeEntries[0], status: "active", endedAt: null }
      yield* Fixture.load({ timeEntries: [{ ...active, id: id(10) }] })
      const second = yield* Effect.flip(Fixture.load({ timeEntries: [{ ...active, id: id(11) }] }))
      expect(second._tag === "AdminInputInvalid" && second.path).toBe("$.timeEntries[0].status")
      // A reference to a stored project and membership resolves, with the stored membership's rate.
      const entry = yield* Fixture.load({ timeEntries: [{ ...valid().timeEntries[0], id: id(12) }] })
      expect(entry.counts.timeEntries).toBe(1)
      const { tables } = yield* MemoryStore.MemoryDriver
      expect(tables.entries.get(id(12))?.payRateCents).toBe(5000)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("refuses a revoked key at once, even one created in the future", () =>
    Effect.gen(function*() {
      const fixture = { ...valid(), apiKeys: [{ ...valid().apiKeys[0], createdAt: "2099-01-01T00:00:00Z", revoked: true }] }
      yield* Fixture.load(fixture)
      const error = yield* Effect.flip(Operations.listClients({ authorization: `Bearer stint_${"a".repeat(43)}` }))
      expect(error.code).toBe("INVALID_API_KEY")
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("the memory store refuses a taken key digest on insert, like a database's unique index", () =>
    Effect.gen(function*() {
      yield* Fixture.load(valid())
      const store = yield* Store.Store
      const { tables } = yield* MemoryStore.MemoryDriver
      const [key] = [...tables.apiKeys.values()]
      const error = yield* Effect.flip(store.admin.insert({
        workspaces: [], users: [], memberships: [], clients: [], projects: [], assignments: [], timeEntries: [],
        apiKeys: key === undefined ? [] : [{ ...key, id: id(77) }]
      }))
      expect(error._tag).toBe("RecordConflict")
      expect(tables.apiKeys.size).toBe(1)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it("decodes without a store, pure", () => {
    expect(Either.isRight(Fixture.decode({}))).toBe(true)
    expect(Either.isLeft(Fixture.decode({ workspaces: {} }))).toBe(true)
  })
})
