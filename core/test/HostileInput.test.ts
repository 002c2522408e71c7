/**
 * Hostile input through the operations directly: every field, query parameter, path parameter and header of all seven
 * operations, given values nested up to 20,000 levels deep, wide objects and arrays, long strings and keys, and values
 * that are not JSON at all. Every answer is a success or one of the spec's 4xx errors with a message and `details`
 * whose size does not depend on the input; never a defect (a stack overflow in a message quoting the value was one).
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import * as fc from "effect/FastCheck"
import { type Errors, Fixture, MemoryStore, Operations, Request, Settings, type Store } from "@stint/core"
import * as HostileJson from "../../testing/HostileJson.js"

const id = (n: number) => `0190a6b2-0000-7000-8000-${String(n).padStart(12, "0")}`
const W = id(1), U = id(2), C = id(3), P = id(4), E = id(5)
const KEY = `stint_${"h".repeat(43)}`
const authorization = `Bearer ${KEY}`

const world = {
  workspaces: [{ id: W, name: "Acme" }],
  users: [{ id: U, name: "Ada", email: "ada@example.com" }],
  memberships: [{ workspaceId: W, userId: U, role: "owner" }],
  clients: [{ id: C, workspaceId: W, name: "Globex" }],
  projects: [{ id: P, clientId: C, name: "Website" }],
  assignments: [{ projectId: P, userId: U }],
  apiKeys: [{ key: KEY, userId: U, workspaceId: W }],
  timeEntries: [{
    id: E,
    userId: U,
    workspaceId: W,
    projectId: P,
    status: "completed",
    startedAt: "2026-01-02T09:00:00Z",
    endedAt: "2026-01-02T10:00:00Z"
  }]
}

/** One store for the file, with the rate limit out of the way. */
const runtime = ManagedRuntime.make(
  Layer.merge(
    MemoryStore.layerMemory,
    Layer.succeed(Settings.Settings, { ...Settings.defaults, rateLimit: { limit: 10_000_000, windowMillis: 60_000 } })
  )
)
let loaded: Promise<unknown> | undefined
const ready = () => (loaded ??= runtime.runPromise(Fixture.load(world)))

type Operation = (request: Request.ApiRequest) => Effect.Effect<unknown, Errors.ApiError, Store.Store>

/** An answer, reduced to what the rule is about. */
type Answer = { readonly _tag: "Success" } | {
  readonly _tag: "Failure"
  readonly code: string
  readonly message: string
  readonly details: Readonly<Record<string, unknown>>
}

const describeDefect = (cause: Cause.Cause<unknown>): string => {
  try {
    return String(Cause.squash(cause)).slice(0, 300)
  } catch {
    return "a defect that cannot be printed"
  }
}

const answer = async (operation: Operation, request: Request.ApiRequest): Promise<Answer> => {
  await ready()
  const exit = await runtime.runPromiseExit(operation(request))
  if (Exit.isSuccess(exit)) return { _tag: "Success" }
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`defect: ${describeDefect(exit.cause)}`)
  const error = failure.value
  if (error._tag === "StoreError") throw new Error(`StoreError: ${error.message}`)
  return { _tag: "Failure", code: error.code, message: error.message, details: error.details }
}

/** The limits every error keeps, whatever the input: a short message and small, plain `details`. */
const expectBounded = (a: Answer) => {
  if (a._tag === "Success") return
  expect(a.code).toMatch(/^[A-Z][A-Z0-9_]*$/)
  expect(a.message.length).toBeGreaterThan(0)
  expect(a.message.length).toBeLessThanOrEqual(300)
  expect(JSON.stringify(a.details).length).toBeLessThanOrEqual(3_000)
}

const expectInvalid = (a: Answer, codes: ReadonlyArray<string> = ["INVALID_REQUEST"]) => {
  expectBounded(a)
  expect(a._tag).toBe("Failure")
  if (a._tag === "Failure") expect(codes).toContain(a.code)
}

const body = (value: unknown) => Request.json(value)
const start = (value: unknown) => ({ authorization, idempotencyKey: "hostile", body: body(value) })
const create = (value: unknown) => ({ authorization, body: body(value) })

/** Each body field of the two operations that read bodies, with a valid rest of the body. */
const bodyFields: ReadonlyArray<{
  readonly name: string
  readonly operation: Operation
  readonly request: (value: unknown) => Request.ApiRequest
  /** The field `details` names; undefined when the hostile value is the whole body. */
  readonly field?: string
}> = [
  { name: "startTimer projectId", operation: Operations.startTimer, request: (v) => start({ projectId: v }), field: "projectId" },
  { name: "startTimer billable", operation: Operations.startTimer, request: (v) => start({ projectId: P, billable: v }), field: "billable" },
  { name: "startTimer note", operation: Operations.startTimer, request: (v) => start({ projectId: P, note: v }), field: "note" },
  { name: "startTimer unknown", operation: Operations.startTimer, request: (v) => start({ projectId: P, extra: v }), field: "extra" },
  { name: "startTimer body", operation: Operations.startTimer, request: (v) => start(v) },
  { name: "createProject clientId", operation: Operations.createProject, request: (v) => create({ clientId: v, name: "N" }), field: "clientId" },
  { name: "createProject name", operation: Operations.createProject, request: (v) => create({ clientId: C, name: v }), field: "name" },
  { name: "createProject color", operation: Operations.createProject, request: (v) => create({ clientId: C, name: "N", color: v }), field: "color" },
  { name: "createProject unknown", operation: Operations.createProject, request: (v) => create({ clientId: C, name: "N", extra: v }), field: "extra" },
  { name: "createProject body", operation: Operations.createProject, request: (v) => create(v) }
]

/** A long string a hostile value never makes valid for these fields. */
const isPossiblyValid = (name: string, hostile: HostileJson.Hostile) =>
  hostile._tag === "LongString" &&
  ((name.endsWith("note") && hostile.length <= 500) || (name.endsWith("name") && hostile.length <= 200))

describe("hostile bodies through the operations", () => {
  for (const field of bodyFields) {
    it(`${field.name}: deep, wide and long values get INVALID_REQUEST naming the field`, async () => {
      await fc.assert(
        fc.asyncProperty(HostileJson.hostile(), async (hostile) => {
          fc.pre(!isPossiblyValid(field.name, hostile))
          const a = await answer(field.operation, field.request(HostileJson.value(hostile)))
          expectInvalid(a)
          if (a._tag === "Failure" && field.field !== undefined) expect(a.details["field"]).toBe(field.field)
        }),
        { numRuns: 40, examples: [[{ _tag: "Deep", depth: 5_000, pattern: [{ _tag: "Array" }], leaf: "x" }]] }
      )
    })
  }

  it("values that are not JSON (cycles, class instances, holes, NaN, throwing proxies) get INVALID_REQUEST", async () => {
    const cyclic: Record<string, unknown> = {}
    cyclic["self"] = cyclic
    const shared = { a: 1 }
    const throwing = new Proxy({}, {
      ownKeys: () => {
        throw new Error("no keys for you")
      }
    })
    const getter = Object.defineProperty({}, "x", {
      enumerable: true,
      get: () => {
        throw new Error("no value for you")
      }
    })
    const odd: ReadonlyArray<unknown> = [
      cyclic,
      [shared, shared],
      new Date(0),
      new Map([["a", 1]]),
      () => 1,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      10n,
      Symbol("s"),
      undefined,
      [1, , 3],
      { [Symbol("k")]: 1 },
      throwing,
      getter,
      new (class Point {
        x = 1
      })()
    ]
    for (const field of bodyFields) {
      for (const value of odd) {
        const a = await answer(field.operation, field.request(value))
        expectInvalid(a)
      }
    }
    // A whole body that is not a plain object at all.
    expectInvalid(await answer(Operations.startTimer, { authorization, idempotencyKey: "k", body: body(throwing) }))
    expectInvalid(await answer(Operations.startTimer, { authorization, idempotencyKey: "k", body: body(cyclic) }))
  })

  it("an unreadable body's reason is quoted clipped", async () => {
    const a = await answer(Operations.startTimer, {
      authorization,
      idempotencyKey: "k",
      body: Request.unreadable("x".repeat(100_000))
    })
    expectInvalid(a)
  })

  it("operations that ignore bodies answer as without one", async () => {
    const deep = HostileJson.value({ _tag: "Deep", depth: 20_000, pattern: [{ _tag: "Array" }], leaf: 1 })
    for (const operation of [Operations.listClients, Operations.getActiveTimer]) {
      expect(await answer(operation, { authorization, body: body(deep) })).toEqual({ _tag: "Success" })
    }
    expect(await answer(Operations.listProjects, { authorization, query: [["clientId", C]], body: body(deep) }))
      .toEqual({ _tag: "Success" })
    expect(await answer(Operations.listTimeEntries, { authorization, body: body(deep) })).toEqual({ _tag: "Success" })
    const stop = await answer(Operations.stopTimer, { authorization, idempotencyKey: "k", path: { timerId: E }, body: body(deep) })
    expect(stop).toMatchObject({ _tag: "Failure", code: "TIMER_ALREADY_STOPPED" })
  })
})

/** Text made of a hostile value, for the places that only take strings. */
const hostileText = HostileJson.hostile(20_000).map((h) => ({ hostile: h, text: HostileJson.text(h) }))

describe("hostile strings in query parameters, path parameters and headers", () => {
  const queries: ReadonlyArray<readonly [string, Operation, string, ReadonlyArray<string>]> = [
    ["listClients", Operations.listClients, "clientId", ["INVALID_REQUEST"]],
    ["getActiveTimer", Operations.getActiveTimer, "x", ["INVALID_REQUEST"]],
    ["listProjects", Operations.listProjects, "clientId", ["INVALID_REQUEST"]],
    ["listTimeEntries", Operations.listTimeEntries, "projectId", ["INVALID_REQUEST"]],
    ["listTimeEntries", Operations.listTimeEntries, "cursor", ["INVALID_REQUEST", "INVALID_CURSOR"]],
    ["listTimeEntries", Operations.listTimeEntries, "limit", ["INVALID_REQUEST"]],
    ["createProject", Operations.createProject, "clientId", ["INVALID_REQUEST"]]
  ]
  for (const [name, operation, parameter, codes] of queries) {
    it(`${name} ?${parameter}= and unknown parameters named by hostile text get a 400`, async () => {
      await fc.assert(
        fc.asyncProperty(hostileText, async ({ text }) => {
          const base = name === "listProjects" && parameter !== "clientId" ? [["clientId", C] as const] : []
          expectInvalid(await answer(operation, { authorization, query: [...base, [parameter, text]] }), codes)
          expectInvalid(await answer(operation, { authorization, query: [[text, "1"]] }))
          expectInvalid(await answer(operation, { authorization, query: [[parameter, "1"], [parameter, text]] }))
        }),
        { numRuns: 25 }
      )
    })
  }

  it("an invalid optional value is one issue, its own: not also the alternative of leaving it out", async () => {
    const cases = [
      [Operations.listTimeEntries, { authorization, query: [["limit", "0"]] }, "limit"],
      [Operations.listTimeEntries, { authorization, query: [["projectId", "nope"]] }, "projectId"],
      [Operations.startTimer, start({ projectId: P, note: 5 }), "note"],
      [Operations.createProject, create({ clientId: C, name: "N", color: "red" }), "color"]
    ] as const
    for (const [operation, request, field] of cases) {
      const a = await answer(operation, request)
      expectInvalid(a)
      const issues = a._tag === "Failure" ? a.details["issues"] as ReadonlyArray<{ path: string; message: string }> : []
      expect(issues.map((issue) => issue.path), JSON.stringify(issues)).toEqual([field])
      expect(issues[0]?.message).not.toMatch(/^Expected undefined/)
    }
  })

  it("stopTimer's timerId, and every header, get a 4xx", async () => {
    await fc.assert(
      fc.asyncProperty(hostileText, async ({ text }) => {
        expectInvalid(await answer(Operations.stopTimer, { authorization, idempotencyKey: "k", path: { timerId: text } }))
        const keyAnswer = await answer(Operations.stopTimer, { authorization, idempotencyKey: text, path: { timerId: E } })
        expectInvalid(keyAnswer, ["IDEMPOTENCY_KEY_REQUIRED", "TIMER_ALREADY_STOPPED"])
        for (const operation of [Operations.listClients, Operations.startTimer, Operations.listTimeEntries]) {
          expectInvalid(await answer(operation, { authorization: `Bearer ${text}` }), ["INVALID_API_KEY"])
          expectInvalid(await answer(operation, { authorization: text }), ["INVALID_API_KEY"])
        }
      }),
      { numRuns: 25 }
    )
  })
})

describe("hostile values in a fixture", () => {
  /** Positions where no hostile value is valid, and the JSON path the refusal must name. */
  const positions: ReadonlyArray<readonly [string, (fixture: Record<string, unknown>, v: unknown) => void]> = [
    ["$.workspaces[0].id", (f, v) => Object.assign((f["workspaces"] as Array<object>)[0] ?? {}, { id: v })],
    ["$.memberships[0].role", (f, v) => Object.assign((f["memberships"] as Array<object>)[0] ?? {}, { role: v })],
    ["$.timeEntries[0].billable", (f, v) => Object.assign((f["timeEntries"] as Array<object>)[0] ?? {}, { billable: v })],
    ["$.timeEntries[0].startedAt", (f, v) => Object.assign((f["timeEntries"] as Array<object>)[0] ?? {}, { startedAt: v })],
    ["$.projects[0].bogus", (f, v) => Object.assign((f["projects"] as Array<object>)[0] ?? {}, { bogus: v })],
    ["$.bogus", (f, v) => Object.assign(f, { bogus: v })]
  ]
  it("is refused naming its JSON path, with a bounded message", () =>
    fc.assert(
      fc.property(HostileJson.hostile(), fc.constantFrom(...positions), (hostile, [path, put]) => {
        fc.pre(!(hostile._tag === "LongString" && path.endsWith("startedAt") && hostile.length < 20))
        const fixture: Record<string, unknown> = structuredClone(world)
        put(fixture, HostileJson.value(hostile))
        const decoded = Fixture.decode(fixture)
        expect(decoded._tag).toBe("Left")
        if (decoded._tag === "Left") {
          expect(decoded.left.path.startsWith(path)).toBe(true)
          expect(decoded.left.message.length).toBeLessThanOrEqual(300)
        }
      }),
      { numRuns: 60, examples: [[{ _tag: "Deep", depth: 20_000, pattern: [{ _tag: "Array" }], leaf: "x" }, positions[0] ?? ["$", () => {}]]] }
    ))
})
