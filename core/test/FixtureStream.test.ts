/**
 * Loading large fixtures from a `FixtureSource`: the fast element check never accepts what the Schema refuses, the
 * compact id set behaves as a set, and a fixture of many batches loads all or nothing, naming the JSON path of a bad
 * row anywhere (the last one included), whatever the order of its members.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema, Stream } from "effect"
import * as fc from "fast-check"
import { Errors, Fixture, FixtureSource, MemoryStore } from "@stint/core"
import * as FastGuard from "../src/internal/fastGuard.js"
import { BATCH_SIZE } from "../src/internal/fixtureImport.js"
import { SECTION_NAMES, Sections } from "../src/internal/fixtureSchema.js"
import { UuidSet } from "../src/internal/uuidSet.js"

const id = (n: number) => `0190a6b2-0000-7000-8000-${n.toString(16).padStart(12, "0")}`
const W = id(1), U = id(2), C = id(3), P = id(4)
const ENTRIES = 3 * BATCH_SIZE + 17

const entry = (n: number) => ({
  id: id(0x100000 + n),
  userId: U,
  workspaceId: W,
  projectId: P,
  status: "completed",
  billable: n % 2 === 0,
  note: n % 3 === 0 ? `entry ${n}` : null,
  startedAt: new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString(),
  endedAt: new Date(Date.UTC(2025, 0, 1) + n * 60_000 + 30_000).toISOString()
})

const large = () => ({
  workspaces: [{ id: W, name: "Acme" }],
  users: [{ id: U, name: "Ada", email: "ada@example.com" }],
  memberships: [{ workspaceId: W, userId: U, role: "owner", payRateCents: 5000 }],
  clients: [{ id: C, workspaceId: W, name: "Globex" }],
  projects: [{ id: P, clientId: C, name: "Website" }],
  assignments: [{ projectId: P, userId: U }],
  apiKeys: [{ userId: U, workspaceId: W }],
  timeEntries: Array.from({ length: ENTRIES }, (_, n) => entry(n))
})

const written = Effect.map(MemoryStore.MemoryDriver, ({ tables }) =>
  Object.values(tables).reduce((n, table) => n + table.size, 0))

const refused = (input: unknown) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(Fixture.load(input))
    return { error, written: yield* written }
  }).pipe(Effect.provide(MemoryStore.layerMemory))

const examples: Record<(typeof SECTION_NAMES)[number], ReadonlyArray<unknown>> = {
  workspaces: [{ id: W, name: "Acme" }, { id: id(8).toUpperCase(), name: "😀 \u0000 x" }],
  users: [{ id: U, name: "Ada", email: "ada@example.com" }],
  memberships: [{ workspaceId: W, userId: U, role: "owner", payRateCents: 5000 }, { workspaceId: W, userId: U, role: "member" }],
  clients: [{ id: C, workspaceId: W, name: "Globex", color: "#123abc", archived: false }, { id: C, workspaceId: W, name: "G", color: null }],
  projects: [{ id: P, clientId: C, name: "Website", color: null, archived: true }, { id: P, clientId: C, name: "W" }],
  assignments: [{ projectId: P, userId: U }, { projectId: P, userId: U, payRateCents: 0 }],
  apiKeys: [
    { userId: U, workspaceId: W },
    { id: id(9), key: `stint_${"a".repeat(43)}`, userId: U, workspaceId: W, scopes: ["timers:read"] },
    { userId: U, workspaceId: W, createdAt: "2026-01-01T00:00:00+02:00", revoked: true, scopes: [] }
  ],
  timeEntries: [entry(1), entry(3), { ...entry(2), status: "active", endedAt: null, payRateCents: 1 }]
}

describe("FastGuard", () => {
  for (const section of SECTION_NAMES) {
    const schema = Sections[section] as Schema.Schema<unknown>
    const guard = FastGuard.compile(schema)
    const decode = Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })
    const valid = fc.constantFrom<unknown>(...examples[section])
    it(`accepts every valid ${section} element unchanged`, () => {
      expect(guard).toBeDefined()
      fc.assert(fc.property(valid, (value) => guard?.(value) === true && Either.isRight(decode(value))), { numRuns: 200 })
    })

    it(`never accepts a ${section} element the Schema refuses`, () => {
      const changed = fc.tuple(valid, fc.string(), fc.option(fc.jsonValue(), { nil: undefined }), fc.boolean()).map(
        ([value, key, replacement, pick]) => {
          const record = { ...(value as Record<string, unknown>) }
          const keys = Object.keys(record)
          const target = pick && keys.length > 0 ? keys[key.length % keys.length] ?? key : key
          if (replacement === undefined) delete record[target]
          else record[target] = replacement
          return record
        }
      )
      const anything = fc.oneof(changed, fc.jsonValue({ maxDepth: 3 }))
      fc.assert(fc.property(anything, (value) => !(guard?.(value) ?? false) || Either.isRight(decode(value))), {
        numRuns: 300, endOnFailure: true
      })
    })
  }
})

describe("UuidSet", () => {
  it("behaves as a set of lowercase ids, across growth", () => {
    const uuid = fc.tuple(fc.nat({ max: 3000 }), fc.boolean()).map(([n, upper]) => upper ? id(n).toUpperCase() : id(n))
    fc.assert(fc.property(fc.array(fc.oneof(uuid, fc.string()), { maxLength: 4000 }), (ids) => {
      const set = new UuidSet()
      const model = new Set<string>()
      for (const value of ids) {
        const key = /^[0-9a-f-]{36}$/i.test(value) ? value.toLowerCase() : value
        expect(set.add(value)).toBe(!model.has(key))
        model.add(key)
        expect(set.has(value)).toBe(true)
      }
      expect(set.size).toBe(model.size)
    }), { numRuns: 30 })
  })
})

describe("Fixture.loadFrom, many batches", () => {
  it.effect("loads every row with its defaults and prints the same summary as a small load", () =>
    Effect.gen(function*() {
      const summary = yield* Fixture.load(large())
      expect(summary.counts).toEqual({
        workspaces: 1, users: 1, memberships: 1, clients: 1, projects: 1, assignments: 1, apiKeys: 1, timeEntries: ENTRIES
      })
      expect(summary.apiKeys).toHaveLength(1)
      const { tables } = yield* MemoryStore.MemoryDriver
      expect(tables.entries.size).toBe(ENTRIES)
      const last = tables.entries.get(id(0x100000 + ENTRIES - 1))
      expect(last?.payRateCents).toBe(5000)
      expect(last?.startedAt).toBe(Date.UTC(2025, 0, 1) + (ENTRIES - 1) * 60_000)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("reads the members in any order (time entries before the projects they refer to)", () =>
    Effect.gen(function*() {
      const { timeEntries, ...rest } = large()
      const summary = yield* Fixture.load({ timeEntries, ...rest })
      expect(summary.counts.timeEntries).toBe(ENTRIES)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  const badLast: Array<[string, (entries: Array<ReturnType<typeof entry>>) => unknown, string]> = [
    ["an unknown project", (e) => ({ ...e.at(-1), projectId: id(99) }), `$.timeEntries[${ENTRIES - 1}].projectId`],
    ["a schema error", (e) => ({ ...e.at(-1), billable: "yes" }), `$.timeEntries[${ENTRIES - 1}].billable`],
    ["an id of an earlier batch", (e) => ({ ...e.at(-1), id: e[3]?.id }), `$.timeEntries[${ENTRIES - 1}].id`],
    ["an end before the start", (e) => ({ ...e.at(-1), endedAt: "2024-01-01T00:00:00Z" }), `$.timeEntries[${ENTRIES - 1}].endedAt`],
    ["an element that is not an object", () => 7, `$.timeEntries[${ENTRIES - 1}]`]
  ]
  for (const [name, last, path] of badLast) {
    it.effect(`refuses ${name} in the last row at ${path} and writes nothing`, () =>
      Effect.gen(function*() {
        const fixture = large()
        const entries: Array<unknown> = fixture.timeEntries
        entries[ENTRIES - 1] = last(fixture.timeEntries)
        const { error, written } = yield* refused(fixture)
        expect(error).toBeInstanceOf(Errors.AdminInputInvalid)
        expect(error._tag === "AdminInputInvalid" ? error.path : "").toBe(path)
        expect(written).toBe(0)
      }))
  }

  it.effect("refuses, in a late batch, an id already stored and a second active entry", () =>
    Effect.gen(function*() {
      const stored = entry(ENTRIES + 5)
      yield* Fixture.load({ ...large(), timeEntries: [stored, { ...entry(ENTRIES + 6), status: "active", endedAt: null }] })
      const { workspaces: _w, users: _u, memberships: _m, clients: _c, projects: _p, assignments: _a, apiKeys: _k } = large()
      const entries = Array.from({ length: ENTRIES }, (_, n) => entry(n))
      const taken = yield* Effect.flip(Fixture.load({ timeEntries: entries.map((e, n) => n === ENTRIES - 2 ? { ...e, id: stored.id } : e) }))
      expect(taken._tag === "AdminInputInvalid" ? [taken.path, taken.message] : []).toEqual([
        `$.timeEntries[${ENTRIES - 2}].id`,
        `${stored.id} already exists`
      ])
      const active = yield* Effect.flip(Fixture.load({
        timeEntries: entries.map((e, n) => n === ENTRIES - 1 ? { ...e, status: "active", endedAt: null } : e)
      }))
      expect(active._tag === "AdminInputInvalid" ? active.path : "").toBe(`$.timeEntries[${ENTRIES - 1}].status`)
      const { tables } = yield* MemoryStore.MemoryDriver
      expect(tables.entries.size).toBe(2)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("passes a failure of the source through and writes nothing", () =>
    Effect.gen(function*() {
      const fixture = large()
      const source: FixtureSource.FixtureSource<string> = {
        open: Effect.succeed({
          _tag: "Object",
          members: [
            ...Object.entries(fixture).filter(([name]) => name !== "timeEntries").map(([name, rows]) => ({
              _tag: "Array" as const,
              name,
              elements: Stream.fromIterable(rows as ReadonlyArray<unknown>)
            })),
            {
              _tag: "Array",
              name: "timeEntries",
              elements: Stream.concat(Stream.fromIterable(fixture.timeEntries), Stream.fail("disk gone"))
            }
          ]
        })
      }
      const error = yield* Effect.flip(Fixture.loadFrom(source))
      expect(error).toBe("disk gone")
      expect(yield* written).toBe(0)
    }).pipe(Effect.provide(MemoryStore.layerMemory)))

  it.effect("refuses a member that appears twice", () =>
    Effect.gen(function*() {
      const source: FixtureSource.FixtureSource<never> = {
        open: Effect.succeed({
          _tag: "Object",
          members: [
            { _tag: "Array", name: "users", elements: Stream.empty },
            { _tag: "Array", name: "users", elements: Stream.empty }
          ]
        })
      }
      const error = yield* Effect.flip(Fixture.loadFrom(source))
      expect(error._tag === "AdminInputInvalid" ? error.path : "").toBe("$.users")
    }).pipe(Effect.provide(MemoryStore.layerMemory)))
})
