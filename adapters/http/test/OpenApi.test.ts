/**
 * The OpenAPI document generated from the definition: a valid OpenAPI 3.1 document describing exactly the spec's seven
 * operations, their parameters, bodies, successes, error codes per status, security and headers, with nothing left of
 * HttpApi's own decode error; and the validator the HTTP tests rely on rejects what it must.
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { describe, expect, it } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Api, OpenApiDocument } from "@stint/http"
import * as OpenApiValidator from "./OpenApiValidator.js"

const doc: unknown = JSON.parse(OpenApiDocument.json)

/** The value at a path of keys in parsed JSON (`undefined` where it stops). */
const at = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((node, key) =>
    typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined, value)

const entries = (value: unknown): ReadonlyArray<readonly [string, unknown]> =>
  typeof value === "object" && value !== null ? Object.entries(value) : []

const list = (value: unknown): ReadonlyArray<unknown> => Array.isArray(value) ? value : []

const common = {
  400: ["INVALID_REQUEST"],
  401: ["INVALID_API_KEY"],
  403: ["INSUFFICIENT_SCOPE"],
  429: ["API_KEY_RATE_LIMITED"],
  500: ["INTERNAL_ERROR"]
}

/** The spec's operations (section 4) with the decisions page's refinements (unknown query parameters are 400). */
const spec = {
  listClients: { method: "get", path: "/api/v1/clients", scope: "clients:read", success: 200, errors: common },
  listProjects: { method: "get", path: "/api/v1/projects", scope: "projects:read", success: 200, errors: common },
  createProject: {
    method: "post",
    path: "/api/v1/projects",
    scope: "projects:write",
    success: 201,
    errors: { ...common, 403: ["INSUFFICIENT_SCOPE", "FORBIDDEN"], 404: ["RESOURCE_NOT_FOUND"] }
  },
  getActiveTimer: { method: "get", path: "/api/v1/timer", scope: "timers:read", success: 200, errors: common },
  startTimer: {
    method: "post",
    path: "/api/v1/timers/start",
    scope: "timers:write",
    success: 200,
    errors: {
      ...common,
      400: ["INVALID_REQUEST", "IDEMPOTENCY_KEY_REQUIRED"],
      404: ["PROJECT_NOT_FOUND"],
      409: ["IDEMPOTENCY_CONFLICT"]
    }
  },
  stopTimer: {
    method: "post",
    path: "/api/v1/timers/{timerId}/stop",
    scope: "timers:write",
    success: 200,
    errors: {
      ...common,
      400: ["INVALID_REQUEST", "IDEMPOTENCY_KEY_REQUIRED"],
      404: ["TIMER_NOT_FOUND"],
      409: ["IDEMPOTENCY_CONFLICT", "TIMER_VOIDED", "TIMER_ALREADY_STOPPED"]
    }
  },
  listTimeEntries: {
    method: "get",
    path: "/api/v1/time-entries",
    scope: "timers:read",
    success: 200,
    errors: { ...common, 400: ["INVALID_REQUEST", "INVALID_CURSOR"] }
  }
} as const

const resolve = (schema: unknown): unknown => {
  const ref = at(schema, "$ref")
  return typeof ref === "string" ? at(doc, "components", "schemas", ref.replace("#/components/schemas/", "")) : schema
}

const codesOf = (schema: unknown): ReadonlyArray<unknown> => {
  const members = Array.isArray(at(schema, "anyOf")) ? list(at(schema, "anyOf")) : [schema]
  return members.flatMap((member) => list(at(resolve(member), "properties", "error", "properties", "code", "enum")))
}

const operation = (name: keyof typeof spec): unknown => at(doc, "paths", spec[name].path, spec[name].method)

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document, version 1.0.0 of the interface", async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(at(doc, "openapi")).toBe("3.1.0")
    expect(at(doc, "info", "version")).toBe("1.0.0")
  })

  it("is generated from the one HttpApi definition", () => {
    expect(OpenApiDocument.document).toEqual(OpenApi.fromApi(Api.Api))
  })

  it("describes exactly the seven operations, with their methods, paths and scopes", () => {
    const found = entries(at(doc, "paths")).flatMap(([path, item]) =>
      entries(item).map(([method, op]) => [at(op, "operationId"), method, path, at(op, "x-stint-scope")])
    )
    expect(found.sort()).toEqual(
      Object.entries(spec).map(([name, { method, path, scope }]) => [name, method, path, scope]).sort()
    )
  })

  it("gives each operation the spec's success status and, per error status, exactly the spec's error codes", () => {
    for (const name of Object.keys(spec) as Array<keyof typeof spec>) {
      const responses = at(operation(name), "responses")
      const statuses = entries(responses).map(([status]) => Number(status)).sort()
      expect(statuses).toEqual([spec[name].success, ...Object.keys(spec[name].errors).map(Number)].sort())
      for (const [status, codes] of Object.entries(spec[name].errors)) {
        const schema = at(responses, status, "content", "application/json", "schema")
        expect({ name, status, codes: [...codesOf(schema)].sort() }).toEqual({ name, status, codes: [...codes].sort() })
      }
    }
  })

  it("declares the bearer security on every operation and the spec's parameters", () => {
    expect(at(doc, "components", "securitySchemes", "bearer")).toMatchObject({ type: "http", scheme: "bearer" })
    const parameters = (name: keyof typeof spec) =>
      list(at(operation(name), "parameters")).map((p) => [at(p, "name"), at(p, "in"), at(p, "required")])
    for (const name of Object.keys(spec) as Array<keyof typeof spec>) {
      expect(at(operation(name), "security")).toEqual([{ bearer: [] }])
    }
    expect(parameters("listClients")).toEqual([])
    expect(parameters("getActiveTimer")).toEqual([])
    expect(parameters("createProject")).toEqual([])
    expect(parameters("listProjects")).toEqual([["clientId", "query", true]])
    expect(parameters("listTimeEntries")).toEqual([
      ["projectId", "query", false],
      ["cursor", "query", false],
      ["limit", "query", false]
    ])
    expect(parameters("startTimer")).toEqual([["Idempotency-Key", "header", true]])
    expect(parameters("stopTimer")).toEqual([["timerId", "path", true], ["Idempotency-Key", "header", true]])
  })

  it("declares JSON bodies for createProject and startTimer only, with no other properties allowed", () => {
    for (const name of ["createProject", "startTimer"] as const) {
      const body = at(operation(name), "requestBody")
      expect(at(body, "required")).toBe(true)
      expect(entries(at(body, "content")).map(([type]) => type)).toEqual(["application/json"])
      expect(at(resolve(at(body, "content", "application/json", "schema")), "additionalProperties")).toBe(false)
    }
    for (const name of ["listClients", "listProjects", "getActiveTimer", "stopTimer", "listTimeEntries"] as const) {
      expect(at(operation(name), "requestBody")).toBeUndefined()
    }
  })

  it("declares X-Request-Id on every response, Idempotent-Replayed on timer mutations' successes, nothing else", () => {
    for (const name of Object.keys(spec) as Array<keyof typeof spec>) {
      for (const [status, response] of entries(at(operation(name), "responses"))) {
        const headers = entries(at(response, "headers")).map(([header]) => header).sort()
        const replayable = (name === "startTimer" || name === "stopTimer") && status === "200"
        expect({ name, status, headers }).toEqual({
          name,
          status,
          headers: replayable ? ["Idempotent-Replayed", "X-Request-Id"] : ["X-Request-Id"]
        })
      }
    }
  })

  it("keeps nothing of HttpApi's own decode error or the generator's markers, and no component nothing refers to", () => {
    for (const leftover of ["HttpApiDecodeError", "\"Issue\"", "PropertyKey", "/schemas/unknown", "\"$id\"", "minLength(1)", "\"title\":\"unknown\""]) {
      expect(OpenApiDocument.json).not.toContain(leftover)
    }
    const { components: _components, ...rest } = doc as Record<string, unknown>
    const referenced = new Set(
      [...JSON.stringify([rest, at(doc, "components", "schemas")]).matchAll(/"#\/components\/schemas\/([^"]+)"/g)]
        .map((match) => match[1])
    )
    const names = entries(at(doc, "components", "schemas")).map(([name]) => name)
    expect(names.filter((name) => !referenced.has(name))).toEqual([])
    expect(names).not.toContain("ErrorBody")
  })

  it("declares limit an integer from 1 to 100, default 20 (the spec's words; the server still reads the text strictly)", () => {
    const limit = list(at(operation("listTimeEntries"), "parameters")).find((p) => at(p, "name") === "limit")
    expect(resolve(at(limit, "schema"))).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 })
    expect(at(resolve(at(limit, "schema")), "pattern")).toBeUndefined()
  })

  it("links startTimer's and getActiveTimer's timer.id to stopTimer, and nextCursor to the next page", () => {
    const links = (name: keyof typeof spec) => at(operation(name), "responses", String(spec[name].success), "links")
    const stop = { operationId: "stopTimer", parameters: { timerId: "$response.body#/timer/id" } }
    expect(links("startTimer")).toEqual({ stopTimer: expect.objectContaining(stop) })
    expect(links("getActiveTimer")).toEqual({ stopTimer: expect.objectContaining(stop) })
    expect(links("listTimeEntries")).toEqual({
      nextPage: expect.objectContaining({
        operationId: "listTimeEntries",
        parameters: {
          cursor: "$response.body#/nextCursor",
          projectId: "$request.query.projectId",
          limit: "$request.query.limit"
        }
      })
    })
    for (const name of ["listClients", "listProjects", "createProject", "stopTimer"] as const) {
      expect(links(name)).toBeUndefined()
    }
  })

  it("names its server relative to where it is served, its license, and a description for every tag", () => {
    // `/` against `http://HOST:PORT/api/v1/openapi.json` is that origin, where the paths (`/api/v1/...`) are served.
    expect(at(doc, "servers")).toEqual([{ url: "/", description: expect.any(String) }])
    expect(new URL(String(at(doc, "servers", "0", "url")), "http://127.0.0.1:8787/api/v1/openapi.json").href)
      .toBe("http://127.0.0.1:8787/")
    expect(at(doc, "info", "license")).toEqual({ name: "MIT", identifier: "MIT" })
    const tags = list(at(doc, "tags"))
    expect(tags.map((tag) => at(tag, "name"))).toEqual(["clients", "projects", "timers", "timeEntries"])
    for (const tag of tags) expect(at(tag, "description")).toEqual(expect.stringMatching(/\S/))
  })
})

describe("the validator the HTTP tests use", () => {
  const validator = OpenApiValidator.make(doc)
  const headers = { "x-request-id": "r" }
  const error = (code: string, message = "m") => ({ error: { code, message, details: {} }, requestId: "r" })

  it("accepts what the document describes", () => {
    expect(validator.check("GET", "/api/v1/clients", 200, headers, { clients: [], canCreateProjects: false }).operationId)
      .toBe("listClients")
    expect(validator.check("POST", "/api/v1/timers/x/stop", 409, headers, error("TIMER_VOIDED")).operationId).toBe("stopTimer")
    expect(validator.check("GET", "/nowhere", 404, headers, error("NOT_FOUND")).operationId).toBeUndefined()
  })

  it("rejects wrong bodies, undocumented statuses and codes, missing or undocumented headers", () => {
    const client = { id: "not-a-uuid", name: "A", color: "#000000" }
    expect(() => validator.check("GET", "/api/v1/clients", 200, headers, { clients: [client], canCreateProjects: true })).toThrow(/uuid/)
    expect(() => validator.check("GET", "/api/v1/clients", 200, headers, { clients: [], canCreateProjects: true, data: 1 })).toThrow()
    expect(() => validator.check("GET", "/api/v1/clients", 404, headers, error("NOT_FOUND"))).toThrow(/not documented/)
    expect(() => validator.check("POST", "/api/v1/timers/x/stop", 404, headers, error("PROJECT_NOT_FOUND"))).toThrow()
    expect(() => validator.check("GET", "/api/v1/clients", 200, {}, { clients: [], canCreateProjects: true })).toThrow(/X-Request-Id/)
    expect(() =>
      validator.check("GET", "/api/v1/timer", 200, { ...headers, "idempotent-replayed": "true" }, { timer: null })
    ).toThrow(/not documented/)
    expect(() => validator.check("GET", "/nowhere", 404, headers, error("NOT_FOUND", ""))).toThrow()
  })
})
