/**
 * The client and the server's `HttpApi` definition (`@stint/http/Api`) describe the same seven operations: the same
 * names, methods, paths, success statuses and Schemas, error codes and request bodies, and the client sends exactly
 * the query parameters the definition declares. A change to the API that the client does not follow fails here.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { StintClient, type TimeEntriesPage } from "@stint/client"
import * as Schemas from "@stint/core/Schemas"
import { Api } from "@stint/http/Api"
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Operations from "../src/internal/operations.js"
import * as FaultProxy from "./support/FaultProxy.js"
import { fixture, ids, keyOf } from "./support/Fixture.js"
import * as Stint from "./support/Stint.js"

interface Declared {
  readonly method: string
  readonly path: string
  readonly success: ReadonlyArray<readonly [number, unknown]>
  readonly codes: ReadonlyArray<string>
  readonly payload: unknown
  readonly query: ReadonlyArray<string>
}

/** The literal values of `error.code` in an error response's AST. */
const codesIn = (ast: AST.AST): Array<string> => {
  switch (ast._tag) {
    case "Union":
      return ast.types.flatMap(codesIn)
    case "Transformation":
      return codesIn(ast.to)
    case "Refinement":
      return codesIn(ast.from)
    case "TypeLiteral": {
      const error = ast.propertySignatures.find((p) => p.name === "error")?.type
      const code = error?._tag === "TypeLiteral" ? error.propertySignatures.find((p) => p.name === "code")?.type : undefined
      return code?._tag === "Literal" ? [String(code.literal)] : []
    }
    default:
      return []
  }
}

/**
 * A Schema's JSON Schema with the top-level reference resolved: the definition's copy of a Schema carries its status
 * and loses the top-level identifier, the rest is the same.
 */
const jsonSchema = (ast: AST.AST): unknown => {
  const { $defs = {}, $ref, ...rest } = JSONSchema.make(Schema.make(ast)) as {
    readonly $defs?: Record<string, object>
    readonly $ref?: string
  }
  const name = $ref?.replace("#/$defs/", "")
  if (name === undefined) return { ...rest, $defs }
  const { [name]: top, ...others } = $defs
  return { ...rest, ...top, $defs: others }
}

const keysOf = (schema: Option.Option<{ readonly ast: AST.AST }>): Array<string> =>
  Option.match(schema, {
    onNone: () => [],
    onSome: (s) => s.ast._tag === "TypeLiteral" ? s.ast.propertySignatures.map((p) => String(p.name)).sort() : []
  })

const declared = new Map<string, Declared>()
HttpApi.reflect(Api, {
  onGroup: () => {},
  onEndpoint: ({ endpoint, errors, payloads, successes }) => {
    const payload = payloads.get("application/json")
    declared.set(endpoint.name, {
      method: endpoint.method,
      path: endpoint.path,
      success: [...successes].map(([status, { ast }]) => [status, Option.getOrUndefined(Option.map(ast, jsonSchema))]),
      codes: [...errors.values()].flatMap(({ ast }) => Option.match(ast, { onNone: () => [], onSome: codesIn })).sort(),
      payload: payload === undefined ? undefined : jsonSchema(payload.ast),
      query: keysOf(endpoint.urlParamsSchema)
    })
  }
})

describe("the client's operations", () => {
  it("are the definition's seven", () => {
    expect(Object.keys(Operations.all).sort()).toEqual([...declared.keys()].sort())
  })

  it.each(Object.entries(Operations.all))("%s: method, path, success, error codes", (name, operation) => {
    const server = declared.get(name)
    expect(server).toBeDefined()
    expect({ method: operation.method, path: operation.path }).toEqual({ method: server?.method, path: server?.path })
    expect([[operation.status, jsonSchema(operation.success.ast)]]).toEqual(server?.success)
    expect([...operation.errors].sort()).toEqual(server?.codes)
  })

  it("send the bodies the definition declares (the client's input types are these Schemas' types)", () => {
    expect(declared.get("createProject")?.payload).toEqual(jsonSchema(Schemas.CreateProjectBody.ast))
    expect(declared.get("startTimer")?.payload).toEqual(jsonSchema(Schemas.StartTimerBody.ast))
    for (const name of ["listClients", "listProjects", "getActiveTimer", "stopTimer", "listTimeEntries"]) {
      expect(declared.get(name)?.payload).toBeUndefined()
    }
  })
})

describe("the query parameters the client sends", () => {
  let server: Stint.Stint
  let proxy: FaultProxy.Proxy
  beforeAll(async () => {
    Stint.build()
    server = await Stint.start(fixture(1, 3))
    proxy = await FaultProxy.start(server.url)
  })
  afterAll(async () => {
    await proxy.close()
    await server.close()
  })

  it("are the definition's, every one of them used", async () => {
    const client = new StintClient({ baseUrl: proxy.url, apiKey: keyOf(0) })
    await client.listClients()
    await client.listProjects(ids.client)
    await client.getActiveTimer()
    const first: TimeEntriesPage = await client.listTimeEntries({ projectId: ids.website, limit: 1 })
    await client.listTimeEntries({ projectId: ids.website, limit: 1, cursor: first.nextCursor ?? "" })
    const sent = (path: string) =>
      proxy.log.filter((e) => e.path.split("?")[0] === path)
        .map((e) => [...new URL(e.path, proxy.url).searchParams.keys()].sort())
        .at(-1)
    for (const name of ["listClients", "listProjects", "getActiveTimer", "listTimeEntries"] as const) {
      expect(sent(Operations.all[name].path)).toEqual(declared.get(name)?.query)
    }
  })
})
