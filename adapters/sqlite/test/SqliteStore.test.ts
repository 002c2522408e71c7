import { describe, expect, it } from "@effect/vitest"
import { Admin, Operations, Request, type Schemas, Settings, Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import { as, backdoor, freshLayer, ids, keys, NOW, seed, start, stop, tempFile, uuid } from "./support.js"
import { SqliteStore } from "@stint/sqlite"

const codeOf = <A, E extends { readonly code: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error.code)

describe("SqliteStore through the core's operations", () => {
  it.effect("starts, switches and stops a timer", () =>
    Effect.gen(function*() {
      yield* seed()
      const first = yield* Operations.startTimer(start(keys.owner, "a", { projectId: ids.website, note: "hi" }))
      expect(first.replayed).toBe(false)
      expect(first.response.stoppedTimerId).toBeNull()
      expect(first.response.timer).toMatchObject({
        projectId: ids.website,
        projectName: "Website",
        clientId: ids.globex,
        clientName: "Globex",
        color: "#123abc",
        billable: true,
        note: "hi",
        startedAt: "2026-03-01T12:00:00.000Z",
        payRateCents: 7500
      })
      const firstId = first.response.timer?.id ?? ""
      const active = yield* Operations.getActiveTimer(as(keys.owner))
      expect(active.timer?.id).toBe(firstId)

      yield* TestClock.adjust("90 minutes")
      const second = yield* Operations.startTimer(
        start(keys.owner, "b", { projectId: ids.vaccine.toUpperCase(), billable: false })
      )
      expect(second.response.stoppedTimerId).toBe(firstId)
      expect(second.response.timer).toMatchObject({ projectId: ids.vaccine, billable: false, note: null })
      const secondId = second.response.timer?.id ?? ""

      yield* TestClock.adjust("30 minutes")
      const stopped = yield* Operations.stopTimer(stop(keys.owner, "c", secondId.toUpperCase()))
      expect(stopped.response).toEqual({ timer: null, stoppedTimerId: secondId })
      expect((yield* Operations.getActiveTimer(as(keys.owner))).timer).toBeNull()

      const page = yield* Operations.listTimeEntries(as(keys.owner))
      expect(page.nextCursor).toBeNull()
      expect(page.entries.map((e) => [e.id, e.status, e.durationSeconds, e.earnings])).toEqual([
        [secondId, "completed", 1800, "0.00"],
        [firstId, "completed", 5400, "112.50"]
      ])
    }).pipe(Effect.provide(freshLayer())))

  it.effect("replays a repeated key byte for byte and refuses it with other input", () =>
    Effect.gen(function*() {
      yield* seed()
      const first = yield* Operations.startTimer(start(keys.owner, " k1 ", { projectId: ids.website, note: "x" }))
      yield* TestClock.adjust("5 seconds")
      const again = yield* Operations.startTimer(start(keys.owner, "k1", { note: "x", projectId: ids.website }))
      expect(again.replayed).toBe(true)
      expect(again.json).toBe(first.json)
      expect(yield* codeOf(Operations.startTimer(start(keys.owner, "k1", { projectId: ids.vaccine })))).toBe(
        "IDEMPOTENCY_CONFLICT"
      )
      // The same key under another user is another key.
      const other = yield* Operations.startTimer(start(keys.member, "k1", { projectId: ids.website }))
      expect(other.replayed).toBe(false)
      // A stop replays too, and a key whose first use failed may be used again with other input.
      const timerId = first.response.timer?.id ?? ""
      const stopped = yield* Operations.stopTimer(stop(keys.owner, "s1", timerId))
      expect((yield* Operations.stopTimer(stop(keys.owner, "s1", timerId))).json).toBe(stopped.json)
      expect(yield* codeOf(Operations.startTimer(start(keys.owner, "s2", { projectId: ids.oldSite })))).toBe(
        "PROJECT_NOT_FOUND"
      )
      const reused = yield* Operations.startTimer(start(keys.owner, "s2", { projectId: ids.website }))
      expect(reused.replayed).toBe(false)
      const page = yield* Operations.listTimeEntries(as(keys.owner))
      expect(page.entries).toHaveLength(2)
    }).pipe(Effect.provide(freshLayer())))

  it.effect("forgets idempotency keys after 24 hours", () =>
    Effect.gen(function*() {
      yield* seed()
      const first = yield* Operations.startTimer(start(keys.owner, "day", { projectId: ids.website }))
      yield* TestClock.adjust("24 hours")
      const later = yield* Operations.startTimer(start(keys.owner, "day", { projectId: ids.website }))
      expect(later.replayed).toBe(false)
      expect(later.response.stoppedTimerId).toBe(first.response.timer?.id)
    }).pipe(Effect.provide(freshLayer())))

  it.effect("refuses projects that are not ready for tracking", () =>
    Effect.gen(function*() {
      yield* seed()
      for (const projectId of [ids.oldSite, ids.initechApp, ids.piper, uuid(0xdead)]) {
        expect(yield* codeOf(Operations.startTimer(start(keys.member, projectId, { projectId })))).toBe(
          "PROJECT_NOT_FOUND"
        )
      }
      // Assigned to the owner only.
      expect(yield* codeOf(Operations.startTimer(start(keys.member, "v", { projectId: ids.vaccine })))).toBe(
        "PROJECT_NOT_FOUND"
      )
      const started = yield* Operations.startTimer(start(keys.member, "w", { projectId: ids.website }))
      // The member's assignment has no rate of its own: the membership's default.
      expect(started.response.timer?.payRateCents).toBe(3000)
    }).pipe(Effect.provide(freshLayer())))

  it.effect("stop: unknown, someone else's, already stopped and voided timers", () =>
    Effect.gen(function*() {
      yield* seed()
      const owner = yield* Operations.startTimer(start(keys.owner, "o", { projectId: ids.website }))
      const ownerTimer = owner.response.timer?.id ?? ""
      expect(yield* codeOf(Operations.stopTimer(stop(keys.owner, "1", uuid(0xbeef))))).toBe("TIMER_NOT_FOUND")
      expect(yield* codeOf(Operations.stopTimer(stop(keys.member, "2", ownerTimer)))).toBe("TIMER_NOT_FOUND")
      // The same user in another workspace does not see it either.
      expect(yield* codeOf(Operations.stopTimer(stop(keys.otherWorkspace, "3", ownerTimer)))).toBe(
        "TIMER_NOT_FOUND"
      )
      yield* Operations.stopTimer(stop(keys.owner, "4", ownerTimer))
      expect(yield* codeOf(Operations.stopTimer(stop(keys.owner, "5", ownerTimer)))).toBe("TIMER_ALREADY_STOPPED")

      const member = yield* Operations.startTimer(start(keys.member, "m", { projectId: ids.website }))
      const memberTimer = member.response.timer?.id ?? ""
      const voided = yield* Admin.voidEntry(memberTimer)
      expect(voided).toMatchObject({ status: "voided", endedAt: "2026-03-01T12:00:00.000Z", earnings: null })
      expect(yield* codeOf(Operations.stopTimer(stop(keys.member, "6", memberTimer)))).toBe("TIMER_VOIDED")
      expect((yield* Operations.getActiveTimer(as(keys.member))).timer).toBeNull()
    }).pipe(Effect.provide(freshLayer())))

  it.effect("pages through history in (startedAt desc, id desc) order, with and without a project", () =>
    Effect.gen(function*() {
      // 45 entries, three per start time, alternating projects; ids deliberately out of time order.
      const entries = Array.from({ length: 45 }, (_, i) => ({
        id: uuid(0x100000 + ((i * 7919) % 45)),
        userId: ids.owner,
        workspaceId: ids.workspace,
        projectId: i % 2 === 0 ? ids.website : ids.vaccine,
        status: "completed",
        startedAt: new Date(NOW - 3_600_000 * (Math.floor(i / 3) + 1)).toISOString(),
        endedAt: new Date(NOW - 3_600_000 * Math.floor(i / 3) - 60_000).toISOString()
      }))
      yield* seed({ timeEntries: entries })
      const expected = [...entries]
        .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || (a.id < b.id ? 1 : -1))
      const pages = (query: ReadonlyArray<readonly [string, string]>) =>
        Effect.gen(function*() {
          const seen: Array<string> = []
          let cursor: string | null = null
          let count = 0
          do {
            const page: Schemas.TimeEntriesPage = yield* Operations.listTimeEntries(
              as(keys.owner, { query: cursor === null ? query : [...query, ["cursor", cursor]] })
            )
            seen.push(...page.entries.map((e) => e.id))
            cursor = page.nextCursor
            count += 1
          } while (cursor !== null)
          return { seen, count }
        })
      const all = yield* pages([["limit", "20"]])
      expect(all.count).toBe(3)
      expect(all.seen).toEqual(expected.map((e) => e.id))
      const filtered = yield* pages([["limit", "7"], ["projectId", ids.vaccine]])
      const vaccine = expected.filter((e) => e.projectId === ids.vaccine).map((e) => e.id)
      expect(filtered.seen).toEqual(vaccine)
      expect(filtered.count).toBe(Math.ceil(vaccine.length / 7))
      // A cursor of another filter is refused.
      const firstPage = yield* Operations.listTimeEntries(as(keys.owner, { query: [["limit", "20"]] }))
      const cursor = firstPage.nextCursor ?? ""
      expect(
        yield* codeOf(Operations.listTimeEntries(as(keys.owner, { query: [["limit", "21"], ["cursor", cursor]] })))
      ).toBe("INVALID_CURSOR")
    }).pipe(Effect.provide(freshLayer())))

  it.effect("rate-limits each key in a sliding window", () =>
    Effect.gen(function*() {
      yield* seed()
      const read = Operations.getActiveTimer(as(keys.owner))
      for (let i = 0; i < 3; i++) yield* read
      expect(yield* codeOf(read)).toBe("API_KEY_RATE_LIMITED")
      // Refused requests do not count; another key has its own window.
      yield* Operations.getActiveTimer(as(keys.member))
      yield* TestClock.adjust("59999 millis")
      expect(yield* codeOf(read)).toBe("API_KEY_RATE_LIMITED")
      yield* TestClock.adjust("1 millis")
      for (let i = 0; i < 3; i++) yield* read
      expect(yield* codeOf(read)).toBe("API_KEY_RATE_LIMITED")
    }).pipe(
      Effect.provideService(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 3, windowMillis: 60_000 } }),
      Effect.provide(freshLayer())
    ))

  it.effect("rolls an authentication that fails half-way back, and the next one runs", () => {
    const filename = tempFile()
    return Effect.gen(function*() {
      yield* seed()
      yield* Operations.getActiveTimer(as(keys.owner))
      const windows = () => backdoor(filename, (db) => db.prepare("SELECT * FROM rate_limit_windows_packed ORDER BY key_id").all())
      // Three bytes: not a whole number of times.
      backdoor(filename, (db) => db.exec(`UPDATE rate_limit_windows_packed SET accepted_at = X'010203'`), true)
      const before = windows()
      const failed = yield* Effect.flip(Operations.getActiveTimer(as(keys.owner)))
      expect(failed).toMatchObject({ _tag: "StoreError", message: expect.stringContaining("authenticating a key") })
      // Nothing of it was kept, and the connection is out of its transaction: another key is counted.
      expect(windows()).toEqual(before)
      yield* Operations.getActiveTimer(as(keys.member))
      expect(windows()).toHaveLength(2)
    }).pipe(Effect.provide(freshLayer(filename)))
  })

  it.effect("refuses revoked, expired and orphaned keys, and keys without the scope", () =>
    Effect.gen(function*() {
      yield* seed()
      for (const key of [keys.revoked, keys.expired, keys.removed, `stint_${"q".repeat(43)}`]) {
        expect(yield* codeOf(Operations.listClients(as(key)))).toBe("INVALID_API_KEY")
      }
      expect(yield* codeOf(Operations.listClients(as(keys.readOnly)))).toBe("INSUFFICIENT_SCOPE")
      yield* Operations.getActiveTimer(as(keys.readOnly))
      // Revoking and removing a membership take effect at once.
      yield* Admin.revokeApiKey(uuid(0xe1))
      expect(yield* codeOf(Operations.listClients(as(keys.owner)))).toBe("INVALID_API_KEY")
      yield* Admin.removeMembership({ workspaceId: ids.workspace, userId: ids.member })
      expect(yield* codeOf(Operations.listClients(as(keys.member)))).toBe("INVALID_API_KEY")
    }).pipe(Effect.provide(freshLayer())))

  it.effect("lists clients and projects with the right flags", () =>
    Effect.gen(function*() {
      yield* seed()
      const owner = yield* Operations.listClients(as(keys.owner))
      expect(owner).toEqual({
        clients: [
          { id: ids.globex, name: "Globex", color: "#0A0B0C" },
          { id: ids.umbrella, name: "umbrella", color: "#ff5c35" }
        ],
        canCreateProjects: true
      })
      const member = yield* Operations.listClients(as(keys.member))
      expect(member).toEqual({ clients: [{ id: ids.globex, name: "Globex", color: "#0A0B0C" }], canCreateProjects: false })
      const projects = yield* Operations.listProjects(as(keys.member, { query: [["clientId", ids.globex]] }))
      expect(projects).toEqual({ projects: [{ id: ids.website, clientId: ids.globex, name: "Website", color: "#123abc" }] })
      expect(yield* Operations.listProjects(as(keys.member, { query: [["clientId", ids.initech]] }))).toEqual({
        projects: []
      })
      expect(yield* Operations.listProjects(as(keys.owner, { query: [["clientId", ids.hooli]] }))).toEqual({
        projects: []
      })
      // Archiving the member's last live project hides its client from the member.
      yield* Admin.setArchived("project", ids.website, true)
      expect((yield* Operations.listClients(as(keys.member))).clients).toEqual([])
    }).pipe(Effect.provide(freshLayer())))

  it.effect("creates projects under active clients only, and assigns the creator", () =>
    Effect.gen(function*() {
      yield* seed()
      const created = yield* Operations.createProject(
        as(keys.owner, { body: Request.json({ clientId: ids.umbrella.toUpperCase(), name: " Cure " }) })
      )
      expect(created.project).toMatchObject({ clientId: ids.umbrella, name: " Cure ", color: "#ff5c35" })
      const listed = yield* Operations.listProjects(as(keys.owner, { query: [["clientId", ids.umbrella]] }))
      expect(listed.projects.map((p) => p.name)).toEqual([" Cure ", "Vaccine"])
      const started = yield* Operations.startTimer(start(keys.owner, "c", { projectId: created.project.id }))
      expect(started.response.timer?.payRateCents).toBe(5000)
      for (const clientId of [ids.initech, ids.hooli, uuid(0xfeed)]) {
        expect(
          yield* codeOf(Operations.createProject(as(keys.owner, { body: Request.json({ clientId, name: "X" }) })))
        ).toBe("RESOURCE_NOT_FOUND")
      }
      expect(
        yield* codeOf(
          Operations.createProject(as(keys.member, { body: Request.json({ clientId: ids.globex, name: "X" }) }))
        )
      ).toBe("FORBIDDEN")
    }).pipe(Effect.provide(freshLayer())))

  it.effect("moves an entry's start and lists API keys without digests", () =>
    Effect.gen(function*() {
      yield* seed()
      const started = yield* Operations.startTimer(start(keys.owner, "m", { projectId: ids.website }))
      const id = started.response.timer?.id ?? ""
      const moved = yield* Admin.moveEntryStart(id, "2026-03-01T11:00:00Z")
      expect(moved.startedAt).toBe("2026-03-01T11:00:00.000Z")
      expect((yield* Operations.getActiveTimer(as(keys.owner))).timer?.elapsedSeconds).toBe(3600)
      const listed = yield* Admin.listApiKeys({ userId: ids.owner.toUpperCase(), workspaceId: ids.workspace })
      expect(listed.map((k) => k.id)).toEqual([uuid(0xe1), uuid(0xe3), uuid(0xe4), uuid(0xe5)])
      expect(listed[2]).toEqual({
        id: uuid(0xe4),
        userId: ids.owner,
        workspaceId: ids.workspace,
        scopes: ["clients:read", "projects:read", "projects:write", "timers:read", "timers:write"],
        createdAt: NOW,
        revokedAt: NOW
      })
      expect((yield* Admin.listApiKeys({})).length).toBe(7)
    }).pipe(Effect.provide(freshLayer())))

  it.effect("refuses a fixture whose ids exist, writing nothing", () =>
    Effect.gen(function*() {
      yield* seed()
      const again = yield* Effect.flip(seed())
      expect(again._tag).toBe("AdminInputInvalid")
      const store = yield* Store.Store
      expect(yield* store.admin.listApiKeys({})).toHaveLength(7)
    }).pipe(Effect.provide(freshLayer())))

  it.effect("answers ping and keeps one cursor secret per file", () =>
    Effect.gen(function*() {
      const filename = tempFile()
      const readSecret = Effect.gen(function*() {
        const store = yield* Store.Store
        yield* store.ping
        const secret = yield* store.cursorSecret
        // Loaded once, then cached.
        expect(yield* store.cursorSecret).toBe(secret)
        return secret
      })
      // A second layer opened on the file while the first is open, as another process would.
      const [a, b] = yield* Effect.all([
        readSecret,
        readSecret.pipe(Effect.provide(SqliteStore.layer({ filename })))
      ]).pipe(Effect.provide(SqliteStore.layer({ filename })))
      expect(a).toHaveLength(32)
      expect(Array.from(a)).toEqual(Array.from(b))
      const other = yield* readSecret.pipe(Effect.provide(SqliteStore.layer({ filename: tempFile() })))
      expect(Array.from(other)).not.toEqual(Array.from(a))
    }))

  it.effect("fails with a StoreError on a missing directory or a bad busy timeout", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        Effect.provide(Store.Store, SqliteStore.layer({ filename: `${tempFile()}.missing/db.sqlite` }))
      )
      expect(error._tag).toBe("StoreError")
      const migrateError = yield* Effect.flip(SqliteStore.migrate({ filename: `${tempFile()}.missing/x.db` }))
      expect(migrateError._tag).toBe("StoreError")
      const timeoutError = yield* Effect.flip(SqliteStore.migrate({ filename: tempFile(), busyTimeoutMillis: -1 }))
      expect(timeoutError.message).toMatch(/busyTimeoutMillis/)
    }))
})
