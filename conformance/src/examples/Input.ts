/**
 * Examples for input validation: unknown and repeated query parameters, bodies, lengths in code points, path ids,
 * limits and cursor shapes. Every refusal is 400 with the right code and names what was wrong.
 *
 * @since 0.1.0
 */
import type { Request } from "@stint/core"
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { as, expectError, expectSuccess, json, startOk } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import { operations } from "../Stack.js"
import * as World from "../World.js"

const astral = "😀"

/** @since 0.1.0 */
export const register = (h: Harness): void => {
  h.check("refuses unknown and repeated query parameters on every operation, naming the parameter", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const base: Record<string, Request.ApiRequest> = {
        listProjects: { query: [["clientId", world.clients.globex]] },
        createProject: { body: json({ clientId: world.clients.globex, name: "x" }) },
        startTimer: { idempotencyKey: World.newId(), body: json({ projectId: world.projects.website }) },
        stopTimer: { idempotencyKey: World.newId(), path: { timerId: World.newId() } }
      }
      for (const operation of operations) {
        const request = base[operation] ?? {}
        const query = request.query ?? []
        for (const extra of ["offset", "status", "from", "page"]) {
          expectError(
            yield* stack.call(operation, as(world.keys.owner, { ...request, query: [...query, [extra, "1"]] })),
            "INVALID_REQUEST",
            { parameter: extra }
          )
        }
        const first = query[0]
        if (first !== undefined) {
          expectError(
            yield* stack.call(operation, as(world.keys.owner, { ...request, query: [...query, first] })),
            "INVALID_REQUEST",
            { parameter: first[0] }
          )
        }
      }
      expectError(
        yield* stack.call("listTimeEntries", as(world.keys.member, { query: [["limit", "5"], ["limit", "5"]] })),
        "INVALID_REQUEST",
        { parameter: "limit" }
      )
    })
  )

  h.check("validates listProjects' clientId and listTimeEntries' parameters", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const key = world.keys.member
      for (const query of [[], [["clientId", ""]], [["clientId", "123"]], [["clientId", `${world.clients.globex} `]]] as const) {
        expectError(yield* stack.call("listProjects", as(key, { query })), "INVALID_REQUEST", { parameter: "clientId" })
      }
      const bad: Array<[string, string]> = [
        ["limit", "0"],
        ["limit", "101"],
        ["limit", "010"],
        ["limit", "+5"],
        ["limit", "5.0"],
        ["limit", "1e2"],
        ["limit", ""],
        ["limit", "ten"],
        ["projectId", "nope"],
        ["projectId", ""],
        ["cursor", ""],
        ["cursor", "a b"],
        ["cursor", "abc="],
        ["cursor", "abc+/"],
        ["cursor", "null".padEnd(1025, "x")]
      ]
      for (const [name, value] of bad) {
        expectError(yield* stack.call("listTimeEntries", as(key, { query: [[name, value]] })), "INVALID_REQUEST", {
          parameter: name
        })
      }
      for (const limit of ["1", "100"]) {
        expectSuccess(yield* stack.call("listTimeEntries", as(key, { query: [["limit", limit]] })), "listTimeEntries")
      }
    })
  )

  h.check("refuses createProject bodies that break the schema, naming the field", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const clientId = world.clients.globex
      const bodies: Array<[Request.Body | undefined, string | undefined]> = [
        [undefined, undefined],
        [{ _tag: "Unreadable", reason: "malformed JSON" }, undefined],
        [json(null), undefined],
        [json([]), undefined],
        [json("name"), undefined],
        [json({ name: "x" }), "clientId"],
        [json({ clientId: "x", name: "x" }), "clientId"],
        [json({ clientId, name: "" }), "name"],
        [json({ clientId, name: astral.repeat(201) }), "name"],
        [json({ clientId, name: 5 }), "name"],
        [json({ clientId, name: "x", color: "red" }), "color"],
        [json({ clientId, name: "x", color: "#12345" }), "color"],
        [json({ clientId, name: "x", archived: false }), "archived"],
        [json({ clientId, name: "\udc00" }), "name"]
      ]
      for (const [body, field] of bodies) {
        expectError(
          yield* stack.call("createProject", as(world.keys.owner, { body })),
          "INVALID_REQUEST",
          field === undefined ? undefined : { field }
        )
      }
      const long = expectSuccess(
        yield* stack.call("createProject", as(world.keys.owner, { body: json({ clientId, name: astral.repeat(200) }) })),
        "createProject"
      )
      expect(long.project.name).toBe(astral.repeat(200))
    })
  )

  h.check("refuses startTimer bodies that break the schema, naming the field", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const projectId = world.projects.website
      const bodies: Array<[Request.Body | undefined, string | undefined]> = [
        [undefined, undefined],
        [{ _tag: "Unreadable", reason: "wrong content type" }, undefined],
        [json(42), undefined],
        [json({}), "projectId"],
        [json({ projectId: "00000000-0000-0000-0000-000000000001" }), "projectId"],
        [json({ projectId, billable: "yes" }), "billable"],
        [json({ projectId, billable: null }), "billable"],
        [json({ projectId, note: null }), "note"],
        [json({ projectId, note: 7 }), "note"],
        [json({ projectId, note: "a".repeat(501) }), "note"],
        [json({ projectId, startedAt: "2026-01-01T00:00:00Z" }), "startedAt"],
        // An unpaired surrogate travels in JSON but cannot be stored as sent: refused rather than altered.
        [json({ projectId, note: "a\ud800b" }), "note"]
      ]
      for (const [body, field] of bodies) {
        expectError(
          yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: World.newId(), body })),
          "INVALID_REQUEST",
          field === undefined ? undefined : { field }
        )
      }
      const started = yield* startOk(stack, world.keys.member, projectId, { note: astral.repeat(500), billable: false })
      expect((started.outcome.body as { timer: { note: string } }).timer.note).toBe(astral.repeat(500))
    })
  )

  h.check("refuses a JSON body that names a member twice, naming it, rather than read its last value", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const repeats: Array<[Request.Body, Record<string, string>]> = [
        [{ _tag: "RepeatedMember", member: "projectId" }, { field: "projectId", reason: "repeated" }],
        [{ _tag: "RepeatedMember", member: "note" }, { field: "note", reason: "repeated" }],
        [{ _tag: "RepeatedMember", member: "x", inside: "note" }, { field: "note", member: "x", reason: "repeated" }]
      ]
      for (const [body, details] of repeats) {
        expectError(
          yield* stack.call("startTimer", as(world.keys.member, { idempotencyKey: World.newId(), body })),
          "INVALID_REQUEST",
          details
        )
      }
      expectError(
        yield* stack.call("createProject", as(world.keys.owner, { body: { _tag: "RepeatedMember", member: "name" } })),
        "INVALID_REQUEST",
        { field: "name", reason: "repeated" }
      )
    })
  )

  h.check("refuses a stop whose timer id is not a UUID, and ignores a stop's body", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      // (An empty id is not a path of this operation at all over HTTP: 404 there, so not asked here.)
      for (const timerId of ["abc", "00000000-0000-0000-0000-00000000000g", `${World.newId()}x`, "%20"]) {
        expectError(
          yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: World.newId(), path: { timerId } })),
          "INVALID_REQUEST",
          { parameter: "timerId" }
        )
      }
      const started = yield* startOk(stack, world.keys.member, world.projects.website)
      expectSuccess(
        yield* stack.call("stopTimer", as(world.keys.member, {
          idempotencyKey: World.newId(),
          path: { timerId: started.id },
          body: { _tag: "Unreadable", reason: "malformed JSON" }
        })),
        "stopTimer"
      )
    })
  )
}
