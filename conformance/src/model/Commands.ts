/**
 * fast-check commands for the seven operations. Each computes the model's answer, performs the request on the real
 * stack, and requires the real status, code and body to equal the model's; then it applies the change to the model.
 * Targets are picked by index modulo what exists, so shrinking keeps commands meaningful; `toString` shows only the
 * constructor's arguments.
 *
 * @since 0.1.0
 */
import type { Request } from "@stint/core"
import * as Effect from "effect/Effect"
import type * as fc from "effect/FastCheck"
import { expect } from "vitest"
import { checkHeaders } from "../internal/Check.js"
import * as M from "../Model.js"
import { errorStatus, successStatus } from "../SpecTable.js"
import type { OperationName, Outcome, Stack } from "../Stack.js"
import { bearer, newId } from "../World.js"

/** What the commands act on: the stack under test. */
export interface Real {
  readonly stack: Stack
}

/** A command of the model-based run. */
export type Command = fc.AsyncCommand<M.Model, Real, boolean>

const pick = <A>(items: ReadonlyArray<A>, index: number): A | undefined => items[index % Math.max(1, items.length)]

/** The key at `index` (there is always one). */
export const keyAt = (model: M.Model, index: number): M.ModelKey => pick(model.keys, index) as M.ModelKey

/** A project id by index: every known project, then an unknown id. */
const projectAt = (model: M.Model, index: number) => pick([...model.projects.keys(), "0190a6b2-0000-7000-8000-00000000dead"], index) ?? ""

const clientAt = (model: M.Model, index: number) => pick([...model.clients.keys(), "0190a6b2-0000-7000-8000-00000000beef"], index) ?? ""

/** An entry id by index: every known entry, then an unknown id. */
export const entryAt = (model: M.Model, index: number) => pick([...model.entries.keys(), "0190a6b2-0000-7000-8000-0000000000ff"], index) ?? ""

const call = (real: Real, operation: OperationName, request: Request.ApiRequest): Promise<Outcome> =>
  Effect.runPromise(real.stack.call(operation, request))

const expectCode = (outcome: Outcome, code: string) => {
  expect({ status: outcome.status, code: (outcome.body as { error?: { code?: string } })?.error?.code }, outcome.text)
    .toEqual({ status: errorStatus[code], code })
  checkHeaders(outcome)
}

const expectBody = (outcome: Outcome, operation: OperationName, body: unknown) => {
  expect(outcome.status, outcome.text).toBe(successStatus(operation))
  expect(outcome.body).toEqual(body)
  checkHeaders(outcome)
}

/** Asserts a fresh, lower-case, well-formed id and remembers it. */
const expectNewId = (model: M.Model, id: unknown): string => {
  expect(typeof id === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), String(id))
    .toBe(true)
  expect(model.seenIds.has(id as string), "ids are never reused").toBe(false)
  model.seenIds.add(id as string)
  return id as string
}

/** @since 0.1.0 */
export class ListClients implements Command {
  constructor(readonly keyIndex: number) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    const outcome = await call(real, "listClients", { authorization: bearer(key.key) })
    const access = M.authorize(model, key, "clients:read")
    if (access._tag === "Error") return expectCode(outcome, access.code)
    expectBody(outcome, "listClients", M.clientsOf(model, key))
  }
  toString = () => `ListClients(${this.keyIndex})`
}

/** @since 0.1.0 */
export class ListProjects implements Command {
  constructor(readonly keyIndex: number, readonly clientIndex: number, readonly upper: boolean) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    const clientId = clientAt(model, this.clientIndex)
    const outcome = await call(real, "listProjects", {
      authorization: bearer(key.key),
      query: [["clientId", this.upper ? clientId.toUpperCase() : clientId]]
    })
    const access = M.authorize(model, key, "projects:read")
    if (access._tag === "Error") return expectCode(outcome, access.code)
    expectBody(outcome, "listProjects", M.projectsOf(model, key, clientId))
  }
  toString = () => `ListProjects(${this.keyIndex}, ${this.clientIndex}, ${this.upper})`
}

/** @since 0.1.0 */
export class CreateProject implements Command {
  constructor(
    readonly keyIndex: number,
    readonly clientIndex: number,
    readonly name: string,
    readonly color: string | null | undefined
  ) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    const clientId = clientAt(model, this.clientIndex)
    const body = { clientId, name: this.name, ...(this.color === undefined ? {} : { color: this.color }) }
    const outcome = await call(real, "createProject", { authorization: bearer(key.key), body: { _tag: "Json", value: body } })
    const access = M.authorize(model, key, "projects:write")
    if (access._tag === "Error") return expectCode(outcome, access.code)
    const role = M.role(model, key)
    if (role !== "owner" && role !== "admin") return expectCode(outcome, "FORBIDDEN")
    const client = model.clients.get(clientId)
    if (client === undefined || client.archived || client.workspaceId !== key.workspaceId) {
      return expectCode(outcome, "RESOURCE_NOT_FOUND")
    }
    const id = expectNewId(model, (outcome.body as { project?: { id?: unknown } })?.project?.id)
    const project = { id, clientId, name: this.name, color: this.color ?? "#ff5c35" }
    expectBody(outcome, "createProject", { project })
    model.projects.set(id, { ...project, workspaceId: key.workspaceId, archived: false })
    const rate = model.memberships.get(M.pair(key.workspaceId, key.userId))?.payRateCents ?? 0
    model.assignments.set(M.pair(id, key.userId), rate)
  }
  toString = () => `CreateProject(${this.keyIndex}, ${this.clientIndex}, ${JSON.stringify(this.name)}, ${JSON.stringify(this.color)})`
}

/** @since 0.1.0 */
export class GetActiveTimer implements Command {
  constructor(readonly keyIndex: number) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    const outcome = await call(real, "getActiveTimer", { authorization: bearer(key.key) })
    const access = M.authorize(model, key, "timers:read")
    if (access._tag === "Error") return expectCode(outcome, access.code)
    const active = M.activeOf(model, key)
    expectBody(outcome, "getActiveTimer", { timer: active === undefined ? null : M.timerOf(model, active) })
  }
  toString = () => `GetActiveTimer(${this.keyIndex})`
}

/** Checks 7 (replay or conflict) for a timer mutation; `true` when the command is answered by it. */
const replayed = (model: M.Model, key: M.ModelKey, idempotencyKey: string, fingerprint: string, outcome: Outcome) => {
  const stored = M.storedResponse(model, key, idempotencyKey)
  if (stored === undefined) return false
  if (stored.fingerprint !== fingerprint) {
    expectCode(outcome, "IDEMPOTENCY_CONFLICT")
    return true
  }
  expect(outcome.status).toBe(200)
  expect(outcome.text, "a replay repeats the stored bytes").toBe(stored.text)
  expect(outcome.replayed).toBe(true)
  checkHeaders(outcome)
  return true
}

/** @since 0.1.0 */
export class StartTimer implements Command {
  constructor(
    readonly keyIndex: number,
    readonly projectIndex: number,
    readonly idempotencyKey: string,
    readonly billable: boolean | undefined,
    readonly note: string | undefined
  ) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    const projectId = projectAt(model, this.projectIndex)
    const body = {
      projectId,
      ...(this.billable === undefined ? {} : { billable: this.billable }),
      ...(this.note === undefined ? {} : { note: this.note })
    }
    const outcome = await call(real, "startTimer", {
      authorization: bearer(key.key),
      idempotencyKey: this.idempotencyKey,
      body: { _tag: "Json", value: body }
    })
    const access = M.authorize(model, key, "timers:write")
    if (access._tag === "Error") return expectCode(outcome, access.code)
    const fingerprint = M.canonical({ operation: "startTimer", body })
    if (replayed(model, key, this.idempotencyKey, fingerprint, outcome)) return
    if (!M.trackable(model, key, projectId)) return expectCode(outcome, "PROJECT_NOT_FOUND")
    const id = expectNewId(model, (outcome.body as { timer?: { id?: unknown } })?.timer?.id)
    const running = M.activeOf(model, key)
    if (running !== undefined) {
      running.status = "completed"
      running.endedAt = model.now
    }
    const entry: M.ModelEntry = {
      id,
      workspaceId: key.workspaceId,
      userId: key.userId,
      projectId,
      status: "active",
      billable: this.billable ?? true,
      note: this.note ?? null,
      startedAt: model.now,
      endedAt: null,
      payRateCents: model.assignments.get(M.pair(projectId, key.userId)) ?? -1
    }
    model.entries.set(id, entry)
    expectBody(outcome, "startTimer", { timer: M.timerOf(model, entry), stoppedTimerId: running?.id ?? null })
    expect(outcome.replayed ?? false).toBe(false)
    M.remember(model, key, this.idempotencyKey, fingerprint, outcome.text)
  }
  toString = () =>
    `StartTimer(${this.keyIndex}, ${this.projectIndex}, ${JSON.stringify(this.idempotencyKey)}, ${this.billable}, ${
      JSON.stringify(this.note)
    })`
}

/** @since 0.1.0 */
export class StopTimer implements Command {
  constructor(readonly keyIndex: number, readonly entryIndex: number, readonly idempotencyKey: string) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    const timerId = entryAt(model, this.entryIndex)
    const outcome = await call(real, "stopTimer", {
      authorization: bearer(key.key),
      idempotencyKey: this.idempotencyKey,
      path: { timerId }
    })
    const access = M.authorize(model, key, "timers:write")
    if (access._tag === "Error") return expectCode(outcome, access.code)
    const fingerprint = M.canonical({ operation: "stopTimer", timerId })
    if (replayed(model, key, this.idempotencyKey, fingerprint, outcome)) return
    const entry = model.entries.get(timerId)
    if (entry === undefined || entry.workspaceId !== key.workspaceId || entry.userId !== key.userId) {
      return expectCode(outcome, "TIMER_NOT_FOUND")
    }
    if (entry.status === "completed") return expectCode(outcome, "TIMER_ALREADY_STOPPED")
    if (entry.status === "voided") return expectCode(outcome, "TIMER_VOIDED")
    entry.status = "completed"
    entry.endedAt = model.now
    expectBody(outcome, "stopTimer", { timer: null, stoppedTimerId: timerId })
    M.remember(model, key, this.idempotencyKey, fingerprint, outcome.text)
  }
  toString = () => `StopTimer(${this.keyIndex}, ${this.entryIndex}, ${JSON.stringify(this.idempotencyKey)})`
}

/** Walks every page of the key's history and compares each page with the model's. @since 0.1.0 */
export class ListTimeEntries implements Command {
  constructor(readonly keyIndex: number, readonly limit: number | undefined, readonly projectIndex: number | undefined) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    const projectId = this.projectIndex === undefined ? null : projectAt(model, this.projectIndex)
    const limit = this.limit ?? 20
    const expected = M.historyOf(model, key, projectId).map((e) => M.entryOf(model, e))
    let cursor: string | null = null
    for (let offset = 0;; offset += limit) {
      const query: Array<[string, string]> = []
      if (this.limit !== undefined) query.push(["limit", String(this.limit)])
      if (projectId !== null) query.push(["projectId", projectId])
      if (cursor !== null) query.push(["cursor", cursor])
      const outcome = await call(real, "listTimeEntries", { authorization: bearer(key.key), query })
      const access = M.authorize(model, key, "timers:read")
      if (access._tag === "Error") return expectCode(outcome, access.code)
      const page = outcome.body as { entries: unknown; nextCursor: string | null }
      const more = offset + limit < expected.length
      expectBody(outcome, "listTimeEntries", {
        entries: expected.slice(offset, offset + limit),
        nextCursor: more ? page.nextCursor : null
      })
      if (!more) return
      expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]{1,1024}$/)
      cursor = page.nextCursor
    }
  }
  toString = () => `ListTimeEntries(${this.keyIndex}, ${this.limit}, ${this.projectIndex})`
}

/** A fresh idempotency key, for commands that want to execute rather than replay. */
export const freshKey = (): string => newId()
