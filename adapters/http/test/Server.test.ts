/**
 * The seven operations' successes over HTTP: exact statuses, bodies and headers, and the decisions page's output
 * rules (order of lists, role visibility, timestamps, ids, colors, earnings, pagination, workspace isolation).
 */
import { describe, expect, it } from "@effect/vitest"
import type { Schemas } from "@stint/core"
import { ids, keys, miaEntryIds } from "./ServerFixture.js"
import { expectError, type Reply, stores, withServer } from "./ServerHarness.js"

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const MILLIS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const expectJson = (reply: Reply, status: number) => {
  expect(reply.status).toBe(status)
  expect(reply.headers["content-type"]).toBe("application/json")
  expect(reply.headers["x-request-id"]).toEqual(expect.any(String))
}

for (const store of stores) {
  describe(`clients and projects (${store.name})`, () => {
    it("listClients: owners and admins see every active client, members those with an assigned project", () =>
      withServer(store)(async (h) => {
        const all = [
          { id: ids.globex, name: "globex", color: "#123abc" },
          { id: ids.hooli, name: "Hooli", color: "#ff5c35" },
          { id: ids.initech, name: "Initech", color: "#ff5c35" }
        ]
        for (const key of [keys.owner, keys.admin]) {
          const reply = await h.api("GET", "/api/v1/clients", { key })
          expectJson(reply, 200)
          expect(reply.body()).toEqual({ clients: all, canCreateProjects: true })
        }
        const member = await h.api("GET", "/api/v1/clients", { key: keys.member })
        expect(member.body()).toEqual({ clients: [all[0]], canCreateProjects: false })
        const legacy = await h.api("GET", "/api/v1/clients", { key: keys.legacy })
        expect(legacy.body()).toEqual({ clients: all, canCreateProjects: false })
        const other = await h.api("GET", "/api/v1/clients", { key: keys.other })
        expect(other.body()).toEqual({
          clients: [{ id: ids.otherClient, name: "Elsewhere", color: "#ff5c35" }],
          canCreateProjects: true
        })
      }))

    it("listProjects: the caller's assigned, unarchived projects, by name then id; ids case-insensitive", () =>
      withServer(store)(async (h) => {
        const website = { id: ids.website, clientId: ids.globex, name: "Website", color: "#0A0B0C" }
        const mobile = { id: ids.mobile, clientId: ids.globex, name: "Mobile", color: "#ff5c35" }
        const apps = { id: ids.apps, clientId: ids.globex, name: "apps", color: "#ff5c35" }
        const member = await h.api("GET", `/api/v1/projects?clientId=${ids.globex}`, { key: keys.member })
        expectJson(member, 200)
        expect(member.body()).toEqual({ projects: [mobile, website] })
        const upper = await h.api("GET", `/api/v1/projects?clientId=${ids.globex.toUpperCase()}`, { key: keys.member })
        expect(upper.body()).toEqual({ projects: [mobile, website] })
        const owner = await h.api("GET", `/api/v1/projects?clientId=${ids.globex}`, { key: keys.owner })
        expect(owner.body()).toEqual({ projects: [apps, website] })
        for (const clientId of [ids.umbrella, ids.otherClient, "01900000-0000-7000-8000-0000000fffff"]) {
          const empty = await h.api("GET", `/api/v1/projects?clientId=${clientId}`, { key: keys.member })
          expect(empty.body()).toEqual({ projects: [] })
        }
      }))

    it("createProject: 201 with the project; color defaults, strings as sent; the creator is assigned", () =>
      withServer(store)(async (h) => {
        const create = (json: unknown) => h.api("POST", "/api/v1/projects", { key: keys.owner, json })
        const created = await create({ clientId: ids.globex.toUpperCase(), name: "  Spaced  " })
        expectJson(created, 201)
        const { project } = created.body<Schemas.CreateProjectResponse>()
        expect(Object.keys(created.body<object>())).toEqual(["project"])
        expect(project).toEqual({ id: expect.stringMatching(UUID_V7), clientId: ids.globex, name: "  Spaced  ", color: "#ff5c35" })
        expect((await create({ clientId: ids.globex, name: "N", color: null })).body<Schemas.CreateProjectResponse>().project.color)
          .toBe("#ff5c35")
        expect((await create({ clientId: ids.globex, name: "U", color: "#ABCDEF" })).body<Schemas.CreateProjectResponse>().project.color)
          .toBe("#ABCDEF")
        expect((await create({ clientId: ids.globex, name: "😀".repeat(200) })).status).toBe(201)
        expectError(await create({ clientId: ids.globex, name: "😀".repeat(201) }), 400, "INVALID_REQUEST", { field: "name" })
        expectError(await create({ clientId: ids.globex, name: "" }), 400, "INVALID_REQUEST", { field: "name" })
        expectError(await create({ clientId: ids.globex, name: "C", color: "red" }), 400, "INVALID_REQUEST", { field: "color" })
        expectError(await create({ name: "C" }), 400, "INVALID_REQUEST", { field: "clientId" })
        const listed = await h.api("GET", `/api/v1/projects?clientId=${ids.globex}`, { key: keys.owner })
        expect(listed.body<Schemas.ListProjectsResponse>().projects.map((p) => p.id)).toContain(project.id)
        const started = await h.api("POST", "/api/v1/timers/start", {
          key: keys.owner,
          idempotencyKey: "on-new",
          json: { projectId: project.id }
        })
        expect(started.body<Schemas.TimerMutationResponse>().timer?.payRateCents).toBe(6000)
      }))
  })

  describe(`timers (${store.name})`, () => {
    it("getActiveTimer, startTimer and stopTimer: exact shapes, project color, rates, UUIDv7 ids, UTC millisecond times", () =>
      withServer(store)(async (h) => {
        const none = await h.api("GET", "/api/v1/timer", { key: keys.member })
        expectJson(none, 200)
        expect(none.body()).toEqual({ timer: null })

        const first = await h.api("POST", "/api/v1/timers/start", {
          key: keys.member,
          idempotencyKey: "first",
          json: { projectId: ids.website.toUpperCase() }
        })
        expectJson(first, 200)
        expect(first.headers["idempotent-replayed"]).toBeUndefined()
        const started = first.body<Schemas.TimerMutationResponse>()
        expect(started).toEqual({
          timer: {
            id: expect.stringMatching(UUID_V7),
            clientId: ids.globex,
            clientName: "globex",
            projectId: ids.website,
            projectName: "Website",
            color: "#0A0B0C",
            billable: true,
            note: null,
            startedAt: expect.stringMatching(MILLIS_Z),
            serverNow: expect.stringMatching(MILLIS_Z),
            elapsedSeconds: 0,
            payRateCents: 7500,
            currency: "USD"
          },
          stoppedTimerId: null
        })
        const firstId = started.timer?.id ?? ""

        const active = await h.api("GET", "/api/v1/timer", { key: keys.member })
        expect(active.body<Schemas.ActiveTimerResponse>().timer).toMatchObject({ id: firstId, projectId: ids.website })

        const second = await h.api("POST", "/api/v1/timers/start", {
          key: keys.member,
          idempotencyKey: "second",
          json: { projectId: ids.mobile, billable: false, note: "naïve 😀" }
        })
        const switched = second.body<Schemas.TimerMutationResponse>()
        expect(switched.stoppedTimerId).toBe(firstId)
        expect(switched.timer).toMatchObject({ projectId: ids.mobile, color: "#ff5c35", billable: false, note: "naïve 😀", payRateCents: 5000 })
        const secondId = switched.timer?.id ?? ""

        const page = await h.api("GET", "/api/v1/time-entries?limit=2", { key: keys.member })
        const [newest, previous] = page.body<Schemas.TimeEntriesPage>().entries
        expect(newest).toMatchObject({ id: secondId, status: "active", endedAt: null, durationSeconds: null, earnings: null })
        expect(previous).toMatchObject({ id: firstId, status: "completed", endedAt: expect.stringMatching(MILLIS_Z), earnings: expect.stringMatching(/^\d+\.\d{2}$/) })

        await new Promise((resolve) => setTimeout(resolve, 1100))
        const running = (await h.api("GET", "/api/v1/timer", { key: keys.member })).body<Schemas.ActiveTimerResponse>().timer
        const elapsed = Math.floor((Date.parse(running?.serverNow ?? "") - Date.parse(running?.startedAt ?? "")) / 1000)
        expect(running?.elapsedSeconds).toBe(elapsed)
        expect(elapsed).toBeGreaterThanOrEqual(1)

        const stopped = await h.api("POST", `/api/v1/timers/${secondId}/stop`, { key: keys.member, idempotencyKey: "stop" })
        expectJson(stopped, 200)
        expect(stopped.body()).toEqual({ timer: null, stoppedTimerId: secondId })
        expect((await h.api("GET", "/api/v1/timer", { key: keys.member })).body()).toEqual({ timer: null })
      }))

    it("startTimer input: note is a string of at most 500 code points (null refused), billable a boolean", () =>
      withServer(store)(async (h) => {
        const start = (key: string, json: unknown) => h.api("POST", "/api/v1/timers/start", { key: keys.member, idempotencyKey: key, json })
        expect((await start("a", { projectId: ids.website, note: "😀".repeat(500) })).status).toBe(200)
        expectError(await start("b", { projectId: ids.website, note: "😀".repeat(501) }), 400, "INVALID_REQUEST", { field: "note" })
        expectError(await start("c", { projectId: ids.website, note: null }), 400, "INVALID_REQUEST", { field: "note" })
        expectError(await start("d", { projectId: ids.website, billable: "yes" }), 400, "INVALID_REQUEST", { field: "billable" })
        expectError(await start("e", { projectId: "nope" }), 400, "INVALID_REQUEST", { field: "projectId" })
        expectError(await start("f", {}), 400, "INVALID_REQUEST", { field: "projectId" })
      }))

    it("workspaces are isolated: another workspace's owner sees none of it and cannot stop its timers", () =>
      withServer(store)(async (h) => {
        const started = await h.api("POST", "/api/v1/timers/start", { key: keys.member, idempotencyKey: "w", json: { projectId: ids.website } })
        const timerId = started.body<Schemas.TimerMutationResponse>().timer?.id ?? ""
        const entries = await h.api("GET", "/api/v1/time-entries", { key: keys.other })
        expect(entries.body()).toEqual({ entries: [], nextCursor: null })
        expect((await h.api("GET", "/api/v1/timer", { key: keys.other })).body()).toEqual({ timer: null })
        expectError(await h.api("POST", `/api/v1/timers/${timerId}/stop`, { key: keys.other, idempotencyKey: "x" }), 404, "TIMER_NOT_FOUND")
        expectError(await h.api("POST", `/api/v1/timers/${timerId}/stop`, { key: keys.owner, idempotencyKey: "x" }), 404, "TIMER_NOT_FOUND")
      }))
  })

  describe(`time entries (${store.name})`, () => {
    it("pages newest first by 20 by default, cursors continue strictly after, null at the end", () =>
      withServer(store)(async (h) => {
        const seen: Array<string> = []
        let path = "/api/v1/time-entries"
        const sizes: Array<number> = []
        for (let i = 0; i < 5; i++) {
          const reply = await h.api("GET", path, { key: keys.member })
          expectJson(reply, 200)
          const page = reply.body<Schemas.TimeEntriesPage>()
          expect(Object.keys(page)).toEqual(["entries", "nextCursor"])
          sizes.push(page.entries.length)
          seen.push(...page.entries.map((e) => e.id))
          if (page.nextCursor === null) break
          path = `/api/v1/time-entries?cursor=${page.nextCursor}`
        }
        expect(sizes).toEqual([20, miaEntryIds.length - 20])
        expect(seen).toEqual(miaEntryIds)
        const tens: Array<number> = []
        let cursor: string | null = null
        do {
          const query: string = cursor === null ? "limit=10" : `limit=10&cursor=${cursor}`
          const page: Schemas.TimeEntriesPage = (await h.api("GET", `/api/v1/time-entries?${query}`, { key: keys.member })).body()
          tens.push(page.entries.length)
          cursor = page.nextCursor
        } while (cursor !== null)
        expect(tens).toEqual([10, 10, miaEntryIds.length - 20])
      }))

    it("entries carry the spec's fields: earnings exact to the cent, null while active or voided, archived projects included", () =>
      withServer(store)(async (h) => {
        const reply = await h.api("GET", "/api/v1/time-entries?limit=3", { key: keys.member })
        expect(reply.body<Schemas.TimeEntriesPage>().entries).toEqual([
          {
            id: ids.unbillable,
            clientId: ids.globex,
            clientName: "globex",
            projectId: ids.mobile,
            projectName: "Mobile",
            color: "#ff5c35",
            status: "completed",
            billable: false,
            note: null,
            startedAt: "2026-04-03T09:00:00.500Z",
            endedAt: "2026-04-03T09:00:59.900Z",
            durationSeconds: 59,
            payRateCents: 5000,
            earnings: "0.00",
            currency: "USD"
          },
          expect.objectContaining({
            id: ids.completed,
            color: "#0A0B0C",
            endedAt: "2026-04-02T10:30:00.000Z",
            durationSeconds: 5400,
            payRateCents: 7499,
            earnings: "112.49"
          }),
          expect.objectContaining({ id: ids.voided, status: "voided", endedAt: "2026-04-01T09:10:00.000Z", earnings: null })
        ])
        const archived = await h.api("GET", `/api/v1/time-entries?projectId=${ids.archivedProject}&limit=100`, { key: keys.member })
        const onArchived = archived.body<Schemas.TimeEntriesPage>()
        expect(onArchived.entries.length).toBe(8)
        expect(onArchived.entries.every((e) => e.projectName === "Old site")).toBe(true)
        expect(onArchived.nextCursor).toBeNull()
        const nothing = await h.api("GET", `/api/v1/time-entries?projectId=${ids.apps}`, { key: keys.member })
        expect(nothing.body()).toEqual({ entries: [], nextCursor: null })
      }))
  })
}
