/**
 * The kit's assertions about single answers: the spec's error body and status, success statuses, and the headers every
 * HTTP answer must carry.
 */
import type { Request, Schemas } from "@stint/core"
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { errorStatus, successStatus } from "../SpecTable.js"
import type { OperationName, Outcome, Stack } from "../Stack.js"
import { bearer, newId } from "../World.js"

/** Headers every HTTP answer carries (and the one it never carries). */
export const checkHeaders = (outcome: Outcome): void => {
  if (outcome.headers === undefined) return
  const requestId = outcome.headers["x-request-id"]
  expect(requestId, "X-Request-Id on every response").toBeTruthy()
  expect(outcome.headers["retry-after"], "never Retry-After").toBeUndefined()
  if (outcome.status >= 400) {
    expect((outcome.body as { requestId?: unknown }).requestId, "requestId equals X-Request-Id").toBe(requestId)
  }
}

/** Asserts the spec's error body with `code` and its status. */
export const expectError = (outcome: Outcome, code: string, details?: Record<string, unknown>): void => {
  const body = outcome.body as { error?: { code?: unknown; message?: unknown; details?: unknown }; requestId?: unknown }
  expect({ status: outcome.status, code: body?.error?.code }, outcome.text).toEqual({ status: errorStatus[code], code })
  expect(typeof body.error?.message === "string" && body.error.message.length > 0, "error.message").toBe(true)
  expect(typeof body.error?.details === "object" && body.error.details !== null && !Array.isArray(body.error.details))
    .toBe(true)
  expect(typeof body.requestId === "string" && body.requestId.length > 0, "requestId").toBe(true)
  expect(Object.keys(body).sort()).toEqual(["error", "requestId"])
  if (details !== undefined) expect(body.error?.details).toMatchObject(details)
  checkHeaders(outcome)
}

/** The success body of each operation. */
export interface Responses {
  readonly listClients: Schemas.ListClientsResponse
  readonly listProjects: Schemas.ListProjectsResponse
  readonly createProject: Schemas.CreateProjectResponse
  readonly getActiveTimer: Schemas.ActiveTimerResponse
  readonly startTimer: Schemas.TimerMutationResponse
  readonly stopTimer: Schemas.TimerMutationResponse
  readonly listTimeEntries: Schemas.TimeEntriesPage
}

/** Asserts a success of `operation` and returns its body, typed as the spec's response. */
export const expectSuccess = <O extends OperationName>(outcome: Outcome, operation: O): Responses[O] => {
  expect(outcome.status, outcome.text).toBe(successStatus(operation))
  checkHeaders(outcome)
  return outcome.body as Responses[O]
}

/** A request as `key`'s holder. */
export const as = (key: string, request: Request.ApiRequest = {}): Request.ApiRequest => ({
  authorization: bearer(key),
  ...request
})

/** A JSON body. */
export const json = (value: unknown): Request.Body => ({ _tag: "Json", value })

/** Starts a timer and returns its id (asserting success). */
export const startOk = (
  stack: Stack,
  key: string,
  projectId: string,
  extra: Record<string, unknown> = {},
  idempotencyKey: string = newId()
): Effect.Effect<{ readonly id: string; readonly stoppedTimerId: string | null; readonly outcome: Outcome }> =>
  Effect.map(
    stack.call("startTimer", as(key, { idempotencyKey, body: json({ projectId, ...extra }) })),
    (outcome) => {
      const body = expectSuccess(outcome, "startTimer")
      if (body.timer === null) throw new Error("a start answered without its timer")
      return { id: body.timer.id, stoppedTimerId: body.stoppedTimerId, outcome }
    }
  )

/** Stops a timer (asserting success). */
export const stopOk = (stack: Stack, key: string, timerId: string): Effect.Effect<Outcome> =>
  Effect.map(
    stack.call("stopTimer", as(key, { idempotencyKey: newId(), path: { timerId } })),
    (outcome) => {
      expectSuccess(outcome, "stopTimer")
      return outcome
    }
  )

/** Every entry of the key's history, walking pages of `limit`. */
export const history = (
  stack: Stack,
  key: string,
  options: { readonly limit?: number; readonly projectId?: string } = {}
): Effect.Effect<ReadonlyArray<Schemas.TimeEntry>> =>
  Effect.gen(function*() {
    const entries: Array<Schemas.TimeEntry> = []
    let cursor: string | null = null
    for (let page = 0; page < 10_000; page++) {
      const query: Array<[string, string]> = []
      if (options.limit !== undefined) query.push(["limit", String(options.limit)])
      if (options.projectId !== undefined) query.push(["projectId", options.projectId])
      if (cursor !== null) query.push(["cursor", cursor])
      const body = expectSuccess(
        yield* stack.call("listTimeEntries", as(key, { query })),
        "listTimeEntries"
      )
      entries.push(...body.entries)
      cursor = body.nextCursor
      if (cursor === null) return entries
    }
    throw new Error("pagination did not end")
  })
