/**
 * Examples for authentication, scopes, the rate limit and the order in which they are checked.
 *
 * @since 0.1.0
 */
import type { Request } from "@stint/core"
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { as, expectError, expectSuccess, json } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import { requiredScope } from "../SpecTable.js"
import { operations, type OperationName, type Stack } from "../Stack.js"
import * as World from "../World.js"

/** A request for `operation` whose input is valid for the world, so only access can fail it. */
const validInput = (operation: OperationName, world: World.World): Request.ApiRequest => {
  switch (operation) {
    case "listProjects":
      return { query: [["clientId", world.clients.globex]] }
    case "createProject":
      return { body: json({ clientId: world.clients.globex, name: "New" }) }
    case "startTimer":
      return { idempotencyKey: World.newId(), body: json({ projectId: world.projects.website }) }
    case "stopTimer":
      return { idempotencyKey: World.newId(), path: { timerId: World.newId() } }
    default:
      return {}
  }
}

const withAuth = (authorization: string | undefined, request: Request.ApiRequest): Request.ApiRequest => ({
  ...request,
  authorization
})

/** Spends `n` accepted requests of `key`. */
const spend = (stack: Stack, key: string, n: number) =>
  Effect.forEach(Array.from({ length: n }), () =>
    Effect.map(stack.call("listClients", as(key)), (outcome) => expectSuccess(outcome, "listClients")), {
    discard: true
  })

/** @since 0.1.0 */
export const register = (h: Harness): void => {
  h.check("refuses a missing, non-Bearer or malformed key with 401 on every operation", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const key = world.keys.member
      const bad = [
        undefined,
        "",
        key,
        `Basic ${key}`,
        `Token ${key}`,
        "Bearer",
        "Bearer ",
        `Bearer ${key} extra`,
        "Bearer stint_short",
        `Bearer stint_${"a".repeat(201)}`,
        `Bearer stint_${"a".repeat(40)}!`,
        `Bearer xyz_${"a".repeat(43)}`,
        `Bearer ${key.toUpperCase()}`
      ]
      for (const operation of operations) {
        for (const authorization of bad) {
          expectError(yield* stack.call(operation, withAuth(authorization, validInput(operation, world))), "INVALID_API_KEY")
        }
      }
    })
  )

  h.check("accepts the Bearer scheme in any case", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
        expectSuccess(yield* stack.call("listClients", { authorization: `${scheme} ${world.keys.member}` }), "listClients")
      }
    })
  )

  h.check("refuses unknown, expired and revoked keys and keys of removed members on every operation", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const unknown = World.newKey()
      for (const operation of operations) {
        for (const key of [unknown, world.keys.expired, world.keys.revoked, world.keys.removed]) {
          expectError(yield* stack.call(operation, as(key, validInput(operation, world))), "INVALID_API_KEY")
        }
      }
    })
  )

  h.check("never authenticates with a query parameter", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (const name of ["api_key", "key", "access_token", "authorization"]) {
        expectError(yield* stack.call("listClients", { query: [[name, world.keys.member]] }), "INVALID_API_KEY")
      }
    })
  )

  h.check("answers 401 before any input check", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const garbage: Request.ApiRequest = {
        query: [["offset", "1"], ["offset", "2"]],
        body: { _tag: "Unreadable", reason: "malformed JSON" },
        path: { timerId: "not-a-uuid" }
      }
      for (const operation of operations) {
        expectError(yield* stack.call(operation, garbage), "INVALID_API_KEY")
        expectError(yield* stack.call(operation, as(world.keys.revoked, garbage)), "INVALID_API_KEY")
      }
    })
  )

  h.check("refuses a key lacking the operation's scope with 403, before the Idempotency-Key and the input", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (const operation of operations) {
        const outcome = yield* stack.call(
          operation,
          as(world.keys.readOnly, { path: { timerId: "not-a-uuid" }, body: { _tag: "Unreadable", reason: "x" } })
        )
        if (requiredScope[operation] === "clients:read") expectSuccess(outcome, operation)
        else expectError(outcome, "INSUFFICIENT_SCOPE")
      }
    })
  )

  h.check("refuses createProject to an owner's key from before projects:write with INSUFFICIENT_SCOPE", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      expectError(yield* stack.call("createProject", as(world.keys.ownerOld, validInput("createProject", world))), "INSUFFICIENT_SCOPE")
      const clients = expectSuccess(yield* stack.call("listClients", as(world.keys.ownerOld)), "listClients")
      expect(clients.canCreateProjects).toBe(false)
      // Listing projects needs projects:read alone, which that key has.
      const projects = expectSuccess(
        yield* stack.call("listProjects", as(world.keys.ownerOld, { query: [["clientId", world.clients.globex]] })),
        "listProjects"
      )
      expect(projects.projects.map((p) => p.id)).toContain(world.projects.website)
    })
  )

  h.check("accepts 120 requests of a key and refuses the next with 429 on every operation", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      yield* spend(stack, world.keys.member, 120)
      for (const operation of operations) {
        expectError(yield* stack.call(operation, as(world.keys.member, validInput(operation, world))), "API_KEY_RATE_LIMITED")
      }
      // Another key of the same user is counted on its own.
      expectSuccess(yield* stack.call("listClients", as(world.keys.readOnly)), "listClients")
    })
  )

  h.check("counts every authenticated request whatever its outcome, and checks the limit before the scope", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const key = world.keys.readOnly
      for (let i = 0; i < 40; i++) {
        expectError(yield* stack.call("listProjects", as(key)), "INSUFFICIENT_SCOPE")
        expectSuccess(yield* stack.call("listClients", as(key)), "listClients")
        expectError(yield* stack.call("listClients", as(key, { query: [["x", "1"]] })), "INVALID_REQUEST")
      }
      expectError(yield* stack.call("listProjects", as(key)), "API_KEY_RATE_LIMITED")
      expectError(yield* stack.call("listClients", as(key)), "API_KEY_RATE_LIMITED")
    })
  )

  h.check("does not count requests refused with 401: a removed member's key has its whole window when they return", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (let i = 0; i < 120; i++) {
        expectError(yield* stack.call("listClients", as(world.keys.removed)), "INVALID_API_KEY")
      }
      yield* Effect.orDie(stack.seed({
        memberships: [{ workspaceId: world.workspace, userId: world.users.removed, role: "member" }]
      }))
      yield* spend(stack, world.keys.removed, 120)
      expectError(yield* stack.call("listClients", as(world.keys.removed)), "API_KEY_RATE_LIMITED")
    })
  )

  h.check("counts starts and stops refused after authentication (403, 400, 404, 409) like any other request", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      // A store that authenticates inside the timer transaction must keep the count when the transaction does nothing.
      for (let i = 0; i < 20; i++) {
        const start = (body: unknown, idempotencyKey: string = World.newId()) =>
          stack.call("startTimer", as(world.keys.member, { idempotencyKey, body: json(body) }))
        expectError(yield* start({ projectId: World.newId() }), "PROJECT_NOT_FOUND")
        expectError(yield* start({ projectId: 1 }), "INVALID_REQUEST")
        expectError(
          yield* stack.call("stopTimer", as(world.keys.member, { idempotencyKey: World.newId(), path: { timerId: World.newId() } })),
          "TIMER_NOT_FOUND"
        )
        const key = World.newId()
        expectSuccess(yield* start({ projectId: world.projects.website }, key), "startTimer")
        expectError(yield* start({ projectId: world.projects.app }, key), "IDEMPOTENCY_CONFLICT")
        expectError(
          yield* stack.call("startTimer", as(world.keys.readOnly, { idempotencyKey: World.newId(), body: json({ projectId: world.projects.website }) })),
          "INSUFFICIENT_SCOPE"
        )
      }
      // 100 requests of the member's key so far: 20 more fit, then 429.
      yield* spend(stack, world.keys.member, 20)
      expectError(yield* stack.call("startTimer", as(world.keys.member, validInput("startTimer", world))), "API_KEY_RATE_LIMITED")
      // 20 of the read-only key: 100 more fit.
      yield* spend(stack, world.keys.readOnly, 100)
      expectError(yield* stack.call("listClients", as(world.keys.readOnly)), "API_KEY_RATE_LIMITED")
    })
  )
}

/**
 * Examples that need the stack's clock in the kit's hand.
 *
 * @since 0.1.0
 */
export const registerTimed = (h: Harness): void => {
  h.check("refuses a key from the instant createdAt + 365 days on", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      expectSuccess(yield* stack.call("listClients", as(world.keys.nearlyExpired)), "listClients")
      yield* stack.clock.advance(1)
      expectError(yield* stack.call("listClients", as(world.keys.nearlyExpired)), "INVALID_API_KEY")
    })
  )

  h.check("is a sliding 60-second window, not a fixed minute, and does not count refusals", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const key = world.keys.member
      // Off a whole second, so that a store keeping its hits to the second (or to any coarser unit) is seen.
      yield* stack.clock.advance(500)
      yield* spend(stack, key, 60)
      yield* stack.clock.advance(30_000)
      yield* spend(stack, key, 60)
      yield* stack.clock.advance(29_999)
      for (let i = 0; i < 5; i++) expectError(yield* stack.call("listClients", as(key)), "API_KEY_RATE_LIMITED")
      // 60 s after the first 60, they leave the window: exactly 60 more fit, the refusals took no room.
      yield* stack.clock.advance(1)
      yield* spend(stack, key, 60)
      expectError(yield* stack.call("listClients", as(key)), "API_KEY_RATE_LIMITED")
      yield* stack.clock.advance(30_000)
      yield* spend(stack, key, 60)
      expectError(yield* stack.call("listClients", as(key)), "API_KEY_RATE_LIMITED")
    })
  )
}
