/**
 * Examples for getActiveTimer, startTimer and stopTimer: the Timer resource, completing the running timer, readiness
 * for tracking, workspace isolation, and the stop errors.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { as, expectError, expectSuccess, history, json, startOk, stopOk } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import type { Stack } from "../Stack.js"
import * as World from "../World.js"

const active = (stack: Stack, key: string) =>
  Effect.map(stack.call("getActiveTimer", as(key)), (outcome) => expectSuccess(outcome, "getActiveTimer").timer)

/** The active timer, asserting there is one. */
const running = (stack: Stack, key: string) =>
  Effect.map(active(stack, key), (timer) => {
    if (timer === null) throw new Error("expected an active timer, got null")
    return timer
  })

/** @since 0.1.0 */
export const register = (h: Harness): void => {
  h.check("starts a timer with every field of the Timer resource", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      expect(yield* active(stack, world.keys.member)).toBeNull()
      const started = yield* startOk(stack, world.keys.member, world.projects.website, { note: "drafting" })
      const body = started.outcome.body as { timer: Record<string, unknown>; stoppedTimerId: unknown }
      expect(Object.keys(body).sort()).toEqual(["stoppedTimerId", "timer"])
      expect(body.stoppedTimerId).toBeNull()
      expect(body.timer).toEqual({
        id: started.id,
        clientId: world.clients.globex,
        clientName: "Globex",
        projectId: world.projects.website,
        projectName: "Website",
        color: "#0A0B0C",
        billable: true,
        note: "drafting",
        startedAt: body.timer["serverNow"],
        serverNow: body.timer["serverNow"],
        elapsedSeconds: 0,
        payRateCents: 7500,
        currency: "USD"
      })
      expect(body.timer["serverNow"]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(started.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      const current = yield* active(stack, world.keys.member)
      expect({ ...current, serverNow: null, elapsedSeconds: null }).toEqual({ ...body.timer, serverNow: null, elapsedSeconds: null })
    })
  )

  h.check("completes the running timer when another starts, at the same instant", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const first = yield* startOk(stack, world.keys.member, world.projects.website)
      const second = yield* startOk(stack, world.keys.member, world.projects.app, { billable: false })
      expect(second.stoppedTimerId).toBe(first.id)
      const timer = (second.outcome.body as { timer: { payRateCents: number; billable: boolean; note: unknown } }).timer
      expect(timer).toMatchObject({ payRateCents: 3000, billable: false, note: null })
      const entries = yield* history(stack, world.keys.member)
      const byId = new Map(entries.map((e) => [e["id"], e]))
      expect(byId.get(first.id)).toMatchObject({ status: "completed", endedAt: byId.get(second.id)?.["startedAt"] })
      expect(byId.get(second.id)).toMatchObject({ status: "active", endedAt: null, durationSeconds: null, earnings: null })
      // Starting on the same project again also completes the running one.
      const third = yield* startOk(stack, world.keys.member, world.projects.app)
      expect(third.stoppedTimerId).toBe(second.id)
      expect((yield* running(stack, world.keys.member)).id).toBe(third.id)
    })
  )

  h.check("answers PROJECT_NOT_FOUND unless the project is ready for tracking, never saying why", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const notReady = [
        world.projects.unassigned,
        world.projects.archived,
        world.projects.onArchivedClient,
        world.projects.foreign,
        World.newId()
      ]
      for (const projectId of notReady) {
        const outcome = yield* stack.call(
          "startTimer",
          as(world.keys.member, { idempotencyKey: World.newId(), body: json({ projectId }) })
        )
        expectError(outcome, "PROJECT_NOT_FOUND")
        expect((outcome.body as { error: { details: object } }).error.details).toEqual({})
      }
      expect(yield* active(stack, world.keys.member)).toBeNull()
      const upper = yield* startOk(stack, world.keys.member, world.projects.support.toUpperCase())
      expect((upper.outcome.body as { timer: { projectId: string } }).timer.projectId).toBe(world.projects.support)
    })
  )

  h.check("freezes the assignment's rate on the entry; an assignment without a rate takes the membership's", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      // Assigned after the membership was stored, without a rate: the membership's default (3000) applies.
      yield* Effect.orDie(stack.seed({ assignments: [{ projectId: world.projects.unassigned, userId: world.users.member }] }))
      const started = yield* startOk(stack, world.keys.member, world.projects.unassigned)
      expect((started.outcome.body as { timer: { payRateCents: number } }).timer.payRateCents).toBe(3000)
      const owner = yield* startOk(stack, world.keys.owner, world.projects.website)
      expect((owner.outcome.body as { timer: { payRateCents: number } }).timer.payRateCents).toBe(9000)
      const [entry] = yield* history(stack, world.keys.member)
      expect(entry?.["payRateCents"]).toBe(3000)
    })
  )

  h.check("keeps elapsed seconds within 0 and 2147483647: 0 for a start in the future, the cap after 68 years", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const now = yield* stack.clock.now
      const ahead = World.newId(), ancient = World.newId()
      yield* Effect.orDie(stack.seed({
        timeEntries: [{
          id: ahead,
          userId: world.users.member,
          workspaceId: world.workspace,
          projectId: world.projects.website,
          status: "active",
          startedAt: new Date(now + 3_600_000).toISOString()
        }, {
          id: ancient,
          userId: world.users.owner,
          workspaceId: world.workspace,
          projectId: world.projects.website,
          status: "active",
          // A day past the largest int32 count of seconds.
          startedAt: new Date(now - (2_147_483_647 + 86_400) * 1000).toISOString()
        }]
      }))
      const timer = yield* running(stack, world.keys.member)
      expect({ id: timer.id, elapsedSeconds: timer.elapsedSeconds }).toEqual({ id: ahead, elapsedSeconds: 0 })
      const old = yield* running(stack, world.keys.owner)
      expect({ id: old.id, elapsedSeconds: old.elapsedSeconds }).toEqual({ id: ancient, elapsedSeconds: 2_147_483_647 })
    })
  )

  h.check("keeps one timer per workspace: a start in one workspace leaves the other's running", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const here = yield* startOk(stack, world.keys.member, world.projects.website)
      const there = yield* startOk(stack, world.keys.memberElsewhere, world.projects.foreign)
      expect(there.stoppedTimerId).toBeNull()
      expect((yield* running(stack, world.keys.member)).id).toBe(here.id)
      expect((yield* running(stack, world.keys.memberElsewhere)).id).toBe(there.id)
      expect((yield* history(stack, world.keys.member)).map((e) => e["id"])).toEqual([here.id])
      // A timer of the other workspace cannot be stopped through this workspace's key.
      expectError(
        yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: "k", path: { timerId: there.id } })),
        "TIMER_NOT_FOUND"
      )
    })
  )

  h.check("stops a timer: { timer: null, stoppedTimerId }, then refuses to stop it again", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const started = yield* startOk(stack, world.keys.member, world.projects.website)
      const stopped = yield* stopOk(stack, world.keys.member, started.id.toUpperCase())
      expect(stopped.body).toEqual({ timer: null, stoppedTimerId: started.id })
      expect(yield* active(stack, world.keys.member)).toBeNull()
      expectError(
        yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: World.newId(), path: { timerId: started.id } })),
        "TIMER_ALREADY_STOPPED"
      )
    })
  )

  h.check("answers TIMER_NOT_FOUND for unknown timers and other users' timers, TIMER_VOIDED for voided ones", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const owners = yield* startOk(stack, world.keys.owner, world.projects.website)
      for (const timerId of [owners.id, World.newId()]) {
        expectError(
          yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: World.newId(), path: { timerId } })),
          "TIMER_NOT_FOUND"
        )
      }
      const mine = yield* startOk(stack, world.keys.member, world.projects.website)
      yield* stack.admin.voidEntry(mine.id)
      expect(yield* active(stack, world.keys.member)).toBeNull()
      expectError(
        yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: World.newId(), path: { timerId: mine.id } })),
        "TIMER_VOIDED"
      )
    })
  )

  h.check("reads, stops and completes a running timer whose project is no longer ready for tracking", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const stopIt = (key: string, timerId: string) => stopOk(stack, key, timerId).pipe(Effect.map((stopped) => stopped.body))
      // Readiness is checked when a timer starts, not while it runs: archiving its project or client leaves it running.
      const onWebsite = yield* startOk(stack, world.keys.member, world.projects.website)
      yield* stack.admin.setArchived("project", world.projects.website, true)
      expect((yield* running(stack, world.keys.member)).id).toBe(onWebsite.id)
      expect((yield* startOk(stack, world.keys.member, world.projects.app)).stoppedTimerId).toBe(onWebsite.id)
      const onSupport = yield* startOk(stack, world.keys.member, world.projects.support)
      yield* stack.admin.setArchived("client", world.clients.acme, true)
      expect((yield* running(stack, world.keys.member)).id).toBe(onSupport.id)
      expect(yield* stopIt(world.keys.member, onSupport.id)).toEqual({ timer: null, stoppedTimerId: onSupport.id })
      // A fixture may hold a running entry on a project its user is not assigned to (the member on "Internal", the
      // owner on "app"): it too is read, stopped, and completed by a start.
      const [owners, members] = [World.newId(), World.newId()]
      const runningOn = (id: string, userId: string, projectId: string) => ({
        id,
        userId,
        workspaceId: world.workspace,
        projectId,
        status: "active",
        startedAt: "2026-01-01T00:00:00Z"
      })
      yield* Effect.orDie(stack.seed({
        timeEntries: [
          runningOn(members, world.users.member, world.projects.unassigned),
          runningOn(owners, world.users.owner, world.projects.app)
        ]
      }))
      expect((yield* running(stack, world.keys.member)).id).toBe(members)
      expect(yield* stopIt(world.keys.member, members)).toEqual({ timer: null, stoppedTimerId: members })
      expect((yield* running(stack, world.keys.owner)).id).toBe(owners)
      // "Internal" (the member's unassigned project) is assigned to the owner.
      expect((yield* startOk(stack, world.keys.owner, world.projects.unassigned)).stoppedTimerId).toBe(owners)
    })
  )

  h.check("refuses a removed member, a revoked key and archived projects from the moment they change", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      yield* startOk(stack, world.keys.member, world.projects.website)
      yield* stack.admin.setArchived("project", world.projects.app, true)
      expectError(
        yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: World.newId(), body: json({ projectId: world.projects.app }) })),
        "PROJECT_NOT_FOUND"
      )
      yield* stack.admin.setArchived("client", world.clients.acme, true)
      expectError(
        yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: World.newId(), body: json({ projectId: world.projects.support }) })),
        "PROJECT_NOT_FOUND"
      )
      yield* stack.admin.revokeKey(world.keyIds.owner)
      expectError(yield* stack.call("listClients", as(world.keys.owner)), "INVALID_API_KEY")
      yield* stack.admin.removeMembership(world.workspace, world.users.member)
      expectError(yield* stack.call("getActiveTimer", as(world.keys.member)), "INVALID_API_KEY")
      // The member's other workspace is untouched.
      expectSuccess(yield* stack.call("getActiveTimer", as(world.keys.memberElsewhere)), "getActiveTimer")
    })
  )
}

/**
 * Timer examples that need the stack's clock in the kit's hand.
 *
 * @since 0.1.0
 */
export const registerTimed = (h: Harness): void => {
  h.check("derives elapsedSeconds from the server clock, floored", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const started = yield* startOk(stack, world.keys.member, world.projects.website)
      yield* stack.clock.advance(90_999)
      const timer = yield* running(stack, world.keys.member)
      expect(timer.elapsedSeconds).toBe(90)
      expect(Date.parse(timer.serverNow) - Date.parse(timer.startedAt)).toBe(90_999)
      yield* stopOk(stack, world.keys.member, started.id)
      const [entry] = yield* history(stack, world.keys.member)
      expect(entry).toMatchObject({ status: "completed", durationSeconds: 90, earnings: "1.88" })
    })
  )

  h.check("a clock behind the running timer's start (another instance's, or one stepped back) never ends an entry before it began", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const first = yield* startOk(stack, world.keys.member, world.projects.website)
      // The next request is served by a clock 5 s behind: the start completes the first entry where it began.
      yield* stack.clock.advance(-5_000)
      const second = yield* startOk(stack, world.keys.member, world.projects.website)
      expect(second.stoppedTimerId).toBe(first.id)
      const timer = yield* running(stack, world.keys.member)
      expect(timer.elapsedSeconds).toBe(0)
      yield* stack.clock.advance(-3_000)
      yield* stopOk(stack, world.keys.member, second.id)
      yield* stack.clock.advance(8_000)
      const entries = yield* history(stack, world.keys.member)
      expect(entries.map((entry) => entry.id).sort()).toEqual([first.id, second.id].sort())
      for (const entry of entries) {
        expect(entry).toMatchObject({ status: "completed", durationSeconds: 0, earnings: "0.00" })
        expect(Date.parse(entry.endedAt ?? "")).toBe(Date.parse(entry.startedAt))
      }
      // The second begins where the first ended.
      const [firstEntry, secondEntry] = [first.id, second.id].map((id) => entries.find((entry) => entry.id === id))
      expect(secondEntry?.startedAt).toBe(firstEntry?.endedAt)
    })
  )
}
