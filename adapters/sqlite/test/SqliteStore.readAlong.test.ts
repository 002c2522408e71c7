import { describe, expect, it } from "@effect/vitest"
import { ApiKey, Hashing, Operations, Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { as, backdoor, freshLayer, ids, keys, NOW, seed, start, stop, tempFile, uuid } from "./support.js"

const digestOf = (key: string) => ApiKey.digestWith(Hashing.portable, key)
const policy = { limit: 1000, windowMillis: 60_000 }
const scope = { workspaceId: ids.workspace, userId: ids.owner }

/** 12 entries of the owner's, two projects, two per start time, ids out of time order. */
const history = Array.from({ length: 12 }, (_, i) => ({
  id: uuid(0x200000 + ((i * 5) % 12)),
  userId: ids.owner,
  workspaceId: ids.workspace,
  projectId: i % 2 === 0 ? ids.website : ids.vaccine,
  status: i % 5 === 0 ? "voided" : "completed",
  startedAt: new Date(NOW - 3_600_000 * (Math.floor(i / 2) + 1)).toISOString(),
  endedAt: new Date(NOW - 3_600_000 * Math.floor(i / 2) - 60_000).toISOString()
}))

describe("SqliteStore reads along with authentication (Store.ReadAlong)", () => {
  it.effect("exactly what findActiveEntry and listEntries answer for the key's own scope", () =>
    Effect.gen(function*() {
      yield* seed({ timeEntries: history })
      const store = yield* Store.Store
      const along = (key: string, read: Store.ReadAlong) =>
        Effect.map(store.authenticate(digestOf(key), NOW, policy, read), Option.getOrThrow)

      const running = yield* Operations.startTimer(start(keys.owner, "a", { projectId: ids.website, note: "é 𝄞" }))
      const active = yield* store.findActiveEntry(scope)
      expect(Option.map(active, (entry) => entry.id)).toEqual(Option.some(running.response.timer?.id))
      expect((yield* along(keys.owner, { _tag: "ActiveEntry" })).activeEntry).toEqual(active)
      // A key reads its own scope: the member has no timer.
      expect((yield* along(keys.member, { _tag: "ActiveEntry" })).activeEntry).toEqual(Option.none())
      yield* Operations.stopTimer(stop(keys.owner, "b", running.response.timer?.id ?? ""))
      expect((yield* along(keys.owner, { _tag: "ActiveEntry" })).activeEntry).toEqual(Option.none())

      const all = yield* store.listEntries(scope, { projectId: null, after: null, limit: 100 })
      expect(all).toHaveLength(13)
      const queries: ReadonlyArray<Store.EntriesQuery> = [
        { projectId: null, after: null, limit: 100 },
        { projectId: null, after: null, limit: 3 },
        { projectId: ids.vaccine, after: null, limit: 4 },
        { projectId: null, after: { startedAt: all[4]!.startedAt, id: all[4]!.id }, limit: 5 },
        { projectId: ids.website, after: { startedAt: all[2]!.startedAt, id: all[2]!.id }, limit: 100 },
        { projectId: uuid(0xfff), after: null, limit: 10 }
      ]
      for (const query of queries) {
        expect((yield* along(keys.owner, { _tag: "EntriesPage", query })).entries)
          .toEqual(yield* store.listEntries(scope, query))
      }
      expect((yield* along(keys.member, { _tag: "EntriesPage", query: queries[0]! })).entries).toEqual([])
    }).pipe(Effect.provide(freshLayer())))

  it.effect("reads nothing along for an unknown, refused or rate-limited key", () =>
    Effect.gen(function*() {
      yield* seed({ timeEntries: history })
      const store = yield* Store.Store
      const page: Store.ReadAlong = { _tag: "EntriesPage", query: { projectId: null, after: null, limit: 5 } }
      expect(yield* store.authenticate(digestOf(`stint_${"q".repeat(43)}`), NOW, policy, page)).toEqual(Option.none())
      for (const key of [keys.revoked, keys.removed]) {
        const found = Option.getOrThrow(yield* store.authenticate(digestOf(key), NOW, policy, page))
        expect([found.accepted, found.entries, found.activeEntry]).toEqual([false, undefined, undefined])
      }
      const one = { limit: 1, windowMillis: 60_000 }
      expect(Option.getOrThrow(yield* store.authenticate(digestOf(keys.owner), NOW, one, page)).entries).toHaveLength(5)
      const limited = Option.getOrThrow(yield* store.authenticate(digestOf(keys.owner), NOW, one, page))
      expect([limited.accepted, limited.entries]).toEqual([false, undefined])
    }).pipe(Effect.provide(freshLayer())))

  it.effect("answers the authentication, counted once, when only the read along fails", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed({ timeEntries: history })
      const store = yield* Store.Store
      // The history's joins become unreadable; authentication reads none of those tables.
      backdoor(filename, (db) => db.exec("PRAGMA foreign_keys = OFF; DROP TABLE clients"), true)
      const two = { limit: 2, windowMillis: 60_000 }
      for (const read of [{ _tag: "ActiveEntry" }, { _tag: "EntriesPage", query: { projectId: null, after: null, limit: 5 } }] as const) {
        const found = Option.getOrThrow(yield* store.authenticate(digestOf(keys.member), NOW, two, read))
        expect([found.key.id, found.accepted, found.activeEntry, found.entries]).toEqual([uuid(0xe2), true, undefined, undefined])
      }
      expect(Option.getOrThrow(yield* store.authenticate(digestOf(keys.member), NOW, two)).accepted).toBe(false)
      // Through the core: the read the usual way fails as a store error, after the key was counted.
      expect((yield* Effect.flip(Operations.getActiveTimer(as(keys.owner))))._tag).toBe("StoreError")
    }).pipe(Effect.provide(freshLayer(filename)))
  })
})
