/**
 * Examples for listClients, listProjects and createProject: visibility by role, order, archiving, workspace
 * isolation, creation rules.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { expect } from "vitest"
import { as, expectError, expectSuccess, json, startOk } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import * as World from "../World.js"

const names = (list: ReadonlyArray<{ readonly name: string }>) => list.map((item) => item.name)

/** @since 0.1.0 */
export const register = (h: Harness): void => {
  h.check("lists every active client to owners and admins, ordered by name case-insensitively", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (const key of [world.keys.owner, world.keys.admin]) {
        const body = expectSuccess(yield* stack.call("listClients", as(key)), "listClients")
        expect(body).toEqual({
          clients: [
            { id: world.clients.acme, name: "acme corp", color: "#ff5c35" },
            { id: world.clients.empty, name: "Beta", color: "#FFFFFF" },
            { id: world.clients.globex, name: "Globex", color: "#123abc" }
          ],
          canCreateProjects: true
        })
      }
    })
  )

  h.check("lists to members only the active clients with an unarchived project assigned to them", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      // A client whose only project is assigned to someone else (the owner): not the member's.
      const theirs = { client: World.newId(), project: World.newId() }
      yield* Effect.orDie(stack.seed({
        clients: [{ id: theirs.client, workspaceId: world.workspace, name: "Initech" }],
        projects: [{ id: theirs.project, clientId: theirs.client, name: "Theirs" }],
        assignments: [{ projectId: theirs.project, userId: world.users.owner }]
      }))
      const body = expectSuccess(yield* stack.call("listClients", as(world.keys.member)), "listClients")
      expect(body).toEqual({
        clients: [
          { id: world.clients.acme, name: "acme corp", color: "#ff5c35" },
          { id: world.clients.globex, name: "Globex", color: "#123abc" }
        ],
        canCreateProjects: false
      })
      // Archiving the member's only project under a client hides the client.
      yield* stack.admin.setArchived("project", world.projects.support, true)
      const after = expectSuccess(yield* stack.call("listClients", as(world.keys.member)), "listClients")
      expect(names(after.clients)).toEqual(["Globex"])
    })
  )

  h.check("breaks name ties by id and orders by lower-cased names, whatever the collation", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const tied = [World.newId(), World.newId()]
      const extra = ["B", "a", "_x", "Ä", "z", "Z"]
      yield* Effect.orDie(stack.seed({
        clients: [
          ...tied.map((id) => ({ id, workspaceId: world.workspace, name: "Same" })),
          ...extra.map((name) => ({ id: World.newId(), workspaceId: world.workspace, name }))
        ]
      }))
      const body = expectSuccess(yield* stack.call("listClients", as(world.keys.owner)), "listClients")
      const expected = [...body.clients].sort((a: { name: string; id: string }, b: { name: string; id: string }) => {
        const an = a.name.toLowerCase(), bn = b.name.toLowerCase()
        return an < bn ? -1 : an > bn ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
      })
      expect(body.clients).toEqual(expected)
      const same = body.clients.filter((c: { name: string }) => c.name === "Same").map((c: { id: string }) => c.id)
      expect(same).toEqual([...tied].sort())
    })
  )

  h.check("lists the assigned, unarchived projects of a client, for every role", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const member = expectSuccess(
        yield* stack.call("listProjects", as(world.keys.member, { query: [["clientId", world.clients.globex]] })),
        "listProjects"
      )
      expect(member).toEqual({
        projects: [
          { id: world.projects.app, clientId: world.clients.globex, name: "app", color: "#ff5c35" },
          { id: world.projects.website, clientId: world.clients.globex, name: "Website", color: "#0A0B0C" }
        ]
      })
      const owner = expectSuccess(
        yield* stack.call("listProjects", as(world.keys.owner, { query: [["clientId", world.clients.globex]] })),
        "listProjects"
      )
      expect(names(owner.projects)).toEqual(["Internal", "Website"])
      const admin = expectSuccess(
        yield* stack.call("listProjects", as(world.keys.admin, { query: [["clientId", world.clients.globex]] })),
        "listProjects"
      )
      expect(admin.projects).toEqual([])
    })
  )

  h.check("answers 200 with no projects for an archived, unknown or foreign client, and accepts upper-case ids", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (const clientId of [world.clients.archived, World.newId(), world.clients.foreign, world.clients.empty]) {
        const body = expectSuccess(
          yield* stack.call("listProjects", as(world.keys.member, { query: [["clientId", clientId]] })),
          "listProjects"
        )
        expect(body).toEqual({ projects: [] })
      }
      const upper = expectSuccess(
        yield* stack.call("listProjects", as(world.keys.member, { query: [["clientId", world.clients.acme.toUpperCase()]] })),
        "listProjects"
      )
      expect(upper.projects.map((p: { id: string }) => p.id)).toEqual([world.projects.support])
    })
  )

  h.check("lets owners and admins create projects, assigned to them at their default rate", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const created = expectSuccess(
        yield* stack.call("createProject", as(world.keys.admin, { body: json({ clientId: world.clients.empty, name: "  Spaced  " }) })),
        "createProject"
      )
      expect(Object.keys(created)).toEqual(["project"])
      expect(created.project).toEqual({ id: created.project.id, clientId: world.clients.empty, name: "  Spaced  ", color: "#ff5c35" })
      expect(created.project.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      const listed = expectSuccess(
        yield* stack.call("listProjects", as(world.keys.admin, { query: [["clientId", world.clients.empty]] })),
        "listProjects"
      )
      expect(listed.projects).toEqual([created.project])
      const started = yield* startOk(stack, world.keys.admin, created.project.id)
      expect((started.outcome.body as { timer: { payRateCents: number } }).timer.payRateCents).toBe(4000)
      // Colors are kept as sent; null means the default.
      for (const [color, expected] of [["#AbCdEf", "#AbCdEf"], [null, "#ff5c35"]] as const) {
        const body = expectSuccess(
          yield* stack.call("createProject", as(world.keys.owner, { body: json({ clientId: world.clients.globex, name: "C", color }) })),
          "createProject"
        )
        expect(body.project.color).toBe(expected)
      }
    })
  )

  h.check("refuses members with FORBIDDEN before looking the client up, but after validating input", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (const clientId of [world.clients.globex, World.newId(), world.clients.archived]) {
        expectError(yield* stack.call("createProject", as(world.keys.member, { body: json({ clientId, name: "X" }) })), "FORBIDDEN")
      }
      expectError(
        yield* stack.call("createProject", as(world.keys.member, { body: json({ clientId: world.clients.globex, name: "" }) })),
        "INVALID_REQUEST"
      )
    })
  )

  h.check("answers RESOURCE_NOT_FOUND for an unknown, archived or foreign client, its id written in lowercase", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      for (const clientId of [World.newId(), world.clients.archived, world.clients.foreign]) {
        // Ids are case-insensitive and always written in lowercase, also when one names nothing.
        for (const sent of [clientId, clientId.toUpperCase()]) {
          expectError(
            yield* stack.call("createProject", as(world.keys.owner, { body: json({ clientId: sent, name: "X" }) })),
            "RESOURCE_NOT_FOUND",
            { clientId }
          )
        }
      }
      const body = expectSuccess(
        yield* stack.call("createProject", as(world.keys.owner, { body: json({ clientId: world.clients.acme.toUpperCase(), name: "Up" }) })),
        "createProject"
      )
      expect(body.project.clientId).toBe(world.clients.acme)
    })
  )

  h.check("ignores an Idempotency-Key on createProject: two calls create two projects", (stack) =>
    Effect.gen(function*() {
      const world = yield* World.seed(stack)
      const request = as(world.keys.owner, { idempotencyKey: "same", body: json({ clientId: world.clients.empty, name: "Twice" }) })
      const a = expectSuccess(yield* stack.call("createProject", request), "createProject")
      const b = expectSuccess(yield* stack.call("createProject", request), "createProject")
      expect(a.project.id).not.toBe(b.project.id)
      for (const idempotencyKey of ["", " ", "x".repeat(300)]) {
        expectSuccess(
          yield* stack.call("createProject", { ...request, idempotencyKey }),
          "createProject"
        )
      }
    })
  )
}
