/**
 * `timeEntries`, the walk over every page, against a real `stint serve`: it follows `nextCursor` with the same filter
 * and limit, yields every entry that existed when it began even while another client inserts entries, and never
 * yields one entry twice, even when the server's pages repeat one (an entry moved behind the walk's position).
 */
import { StintClient, type TimeEntriesPage, type TimeEntry } from "@stint/client"
import { describe, expect, it } from "vitest"
import { fixture, ids, keyOf } from "./support/Fixture.js"
import * as Live from "./support/Live.js"

const HISTORY = 45

const live = Live.live(fixture(4, HISTORY, 3))

const seeded = (user: number) => Array.from({ length: HISTORY }, (_, n) => ids.entry(user, n))
const clientOf = (user: number) => new StintClient({ baseUrl: live.proxy.url, apiKey: keyOf(user) })
const pages = () =>
  live.proxy.log
    .filter((e) => e.path.startsWith("/api/v1/time-entries"))
    .map((e) => ({ query: new URL(e.path, "http://x").searchParams, body: JSON.parse(e.answer ?? "") as TimeEntriesPage }))

describe("timeEntries", () => {
  it("walks every page, newest first, passing nextCursor back with the same filter and limit", async () => {
    const walked: Array<TimeEntry> = []
    for await (const entry of clientOf(0).timeEntries({ pageSize: 10 })) walked.push(entry)
    expect(walked.map((entry) => entry.id)).toEqual(seeded(0).reverse())
    const requested = pages()
    expect(requested.map(({ query }) => query.get("limit"))).toEqual(["10", "10", "10", "10", "10"])
    expect(requested.map(({ query }) => query.get("cursor"))).toEqual([
      null,
      ...requested.slice(0, -1).map(({ body }) => body.nextCursor)
    ])
    expect(requested.at(-1)?.body.nextCursor).toBeNull()
  })

  it("filters by project", async () => {
    const walked: Array<string> = []
    for await (const entry of clientOf(0).timeEntries({ projectId: ids.backend, pageSize: 7 })) walked.push(entry.projectId)
    expect(walked).toHaveLength((HISTORY - 1) / 2)
    expect(new Set(walked)).toEqual(new Set([ids.backend]))
    expect(new Set(pages().map(({ query }) => query.get("projectId")))).toEqual(new Set([ids.backend]))
  })

  it("yields every entry of the walk's start, once, while another client inserts entries", async () => {
    const other = new StintClient({ baseUrl: live.server.url, apiKey: keyOf(1) })
    const inserted: Array<string> = []
    let walking = true
    const inserting = (async () => {
      while (walking && inserted.length < 30) {
        const { timer } = await other.startTimer({ projectId: inserted.length % 2 === 0 ? ids.website : ids.backend })
        inserted.push(timer?.id ?? "")
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })()
    const walked: Array<string> = []
    for await (const entry of clientOf(1).timeEntries({ pageSize: 5 })) {
      walked.push(entry.id)
      // Give the other client time to insert between pages.
      if (walked.length % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 30))
    }
    walking = false
    await inserting
    expect(inserted.length).toBeGreaterThan(0)
    expect(new Set(walked).size).toBe(walked.length)
    expect(walked.filter((id) => !inserted.includes(id))).toEqual(seeded(1).reverse())
  })

  it("never yields an entry twice when the server's pages repeat one", async () => {
    const walked: Array<string> = []
    const moved = ids.entry(2, HISTORY - 1)
    for await (const entry of clientOf(2).timeEntries({ pageSize: 10 })) {
      walked.push(entry.id)
      // Halfway through the first page (the next page is not fetched yet), an operator moves the newest entry,
      // already yielded, behind every other: the last page brings it again.
      if (walked.length === 5) {
        await live.server.admin(["entries", "move-start", "--id", moved, "--started-at", "2025-12-01T00:00:00Z"])
      }
    }
    const served = pages().flatMap(({ body }) => body.entries.map((entry) => entry.id))
    expect(served.filter((id) => id === moved)).toHaveLength(2)
    expect(walked.filter((id) => id === moved)).toHaveLength(1)
    expect(new Set(walked)).toEqual(new Set(seeded(2)))
    expect(walked).toHaveLength(HISTORY)
  })

  it("keeps the async iterator protocol: next() after the end or a failure is done, calls in a row take turns", async () => {
    // A project with no entry of user 3: one empty page, then the end.
    const empty = clientOf(3).timeEntries({ projectId: ids.client })[Symbol.asyncIterator]()
    expect(await empty.next()).toEqual({ done: true, value: undefined })
    expect(await empty.next()).toEqual({ done: true, value: undefined })

    const refused = new StintClient({ baseUrl: live.proxy.url, apiKey: "stint_unknown_key_0000000000" })
      .timeEntries()[Symbol.asyncIterator]()
    await expect(refused.next()).rejects.toMatchObject({ code: "INVALID_API_KEY" })
    expect(await refused.next()).toEqual({ done: true, value: undefined })

    const newest = (await clientOf(0).listTimeEntries({ limit: 3 })).entries.map((entry) => entry.id)
    const walk = clientOf(0).timeEntries({ pageSize: 2 })[Symbol.asyncIterator]()
    const three = await Promise.all([walk.next(), walk.next(), walk.next()])
    expect(three.map((result) => result.done === true ? null : result.value.id)).toEqual(newest)
    await walk.return?.()
  })

  it("stops fetching when the caller stops iterating", async () => {
    let taken = 0
    for await (const _ of clientOf(0).timeEntries({ pageSize: 10 })) if (++taken === 3) break
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(pages()).toHaveLength(1)
  })
})
