/**
 * The served OpenAPI document as its consumers read it: Redocly's linter (its strict recommended ruleset, plus rules
 * this API keeps), the types a generated client gets (openapi-typescript: `limit` is a number), and its links followed
 * against a real server (startTimer's and getActiveTimer's `timer.id` into stopTimer, `nextCursor` into the next page).
 */
import { describe, expect, it } from "@effect/vitest"
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import openapiTS, { astToString } from "openapi-typescript"
import ts from "typescript"
import { ids, keys } from "./ServerFixture.js"
import { type Harness, type Reply, stores, withServer } from "./ServerHarness.js"

const store = stores[0]
if (store === undefined) throw new Error("no store")

/** The document as the server serves it. */
const served = async (h: Harness): Promise<string> => {
  const reply = await h.send({ method: "GET", path: "/api/v1/openapi.json" })
  expect(reply.status).toBe(200)
  return reply.text
}

/** Redocly's `recommended-strict` (every recommended rule an error) and the rules this API keeps besides. */
const lintConfig = () =>
  createConfig({
    extends: ["recommended-strict"],
    rules: {
      "operation-description": "error",
      "operation-tag-defined": "error",
      "operation-singular-tag": "error",
      "no-invalid-schema-examples": "error",
      "no-invalid-parameter-examples": "error",
      "no-required-schema-properties-undefined": "error",
      "paths-kebab-case": "error",
      "request-mime-type": { severity: "error", allowedValues: ["application/json"] },
      "response-mime-type": { severity: "error", allowedValues: ["application/json"] },
      "response-contains-header": {
        severity: "error",
        names: { "2XX": ["X-Request-Id"], "4XX": ["X-Request-Id"], "5XX": ["X-Request-Id"] }
      }
    }
  })

/** Every problem the linter finds, one line each. */
const lint = async (source: string): Promise<ReadonlyArray<string>> => {
  const problems = await lintFromString({ source, absoluteRef: "/api/v1/openapi.json", config: await lintConfig() })
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`)
}

describe("the served OpenAPI document, linted by Redocly", () => {
  it("has no problem under the strict recommended ruleset and this API's rules", () =>
    withServer(store)(async (h) => {
      expect(await lint(await served(h))).toEqual([])
    }))

  it("the same lint fails a document without servers, license or tag descriptions, or with an unused component", () =>
    withServer(store)(async (h) => {
      const document = JSON.parse(await served(h)) as Record<string, unknown>
      const { servers: _servers, ...rest } = document
      const info = { ...(document["info"] as Record<string, unknown>), license: undefined }
      const tags = (document["tags"] as ReadonlyArray<{ readonly name: string }>).map(({ name }) => ({ name }))
      const components = document["components"] as { readonly schemas: Record<string, unknown> }
      // And one response without X-Request-Id, which only this API's own rule asks for.
      const paths = structuredClone(document["paths"]) as Record<string, Record<string, Record<string, unknown>>>
      const responses = paths["/api/v1/clients"]?.["get"]?.["responses"] as Record<string, Record<string, unknown>>
      delete responses["200"]?.["headers"]
      const holed = {
        ...rest,
        info,
        tags,
        paths,
        components: { ...components, schemas: { ...components.schemas, Unused: { type: "string" } } }
      }
      const rules = (await lint(JSON.stringify(holed))).map((line) => line.split(":")[0])
      expect([...new Set(rules)].sort()).toEqual([
        "error info-license",
        "error no-empty-servers",
        "error no-unused-components",
        "error response-contains-header",
        "error tag-description"
      ])
    }))
})

describe("a client generated from the served document (openapi-typescript)", () => {
  it("types limit as a number: { limit: 7 } compiles and { limit: \"7\" } does not", () =>
    withServer(store)(async (h) => {
      const source = astToString(await openapiTS(JSON.parse(await served(h)) as never))
      expect(source).toMatch(/\blimit\?: number;/)
      const dir = mkdtempSync(join(tmpdir(), "stint-openapi-ts-"))
      try {
        const file = join(dir, "client.ts")
        writeFileSync(file, [
          source,
          "type Query = NonNullable<operations[\"listTimeEntries\"][\"parameters\"][\"query\"]>",
          "export const numeric: Query = { limit: 7 }",
          "// @ts-expect-error: a string is not a page size",
          "export const text: Query = { limit: \"7\" }",
          ""
        ].join("\n"))
        const program = ts.createProgram([file], {
          strict: true,
          noEmit: true,
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.ESNext,
          skipLibCheck: true,
          types: []
        })
        const diagnostics = ts.getPreEmitDiagnostics(program)
          .map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
        expect(diagnostics).toEqual([])
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))
})

// ---------------------------------------------------------------------------------------------------------------------
// Links, followed as an API tester does: evaluate each parameter's runtime expression on the request and response it
// hangs from, and send the target operation with them.
// ---------------------------------------------------------------------------------------------------------------------

interface Sent {
  readonly path: string
  readonly reply: Reply
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The value of a runtime expression (`$response.body#/pointer` or `$request.query.name`), or undefined. */
const evaluate = (expression: string, sent: Sent): unknown => {
  const body = /^\$response\.body#(\/.*)?$/.exec(expression)
  if (body !== null) {
    const tokens = (body[1] ?? "").split("/").slice(1).map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"))
    return tokens.reduce<unknown>((node, token) => isRecord(node) ? node[token] : undefined, sent.reply.body<Json>())
  }
  const query = /^\$request\.query\.(.+)$/.exec(expression)
  if (query !== null) return new URL(`http://localhost${sent.path}`).searchParams.get(query[1] ?? "") ?? undefined
  throw new Error(`unsupported runtime expression ${expression}`)
}

/** Follows the link `name` of the success `sent` answered, with the key (and an Idempotency-Key when needed). */
const follow = async (
  h: Harness,
  document: Record<string, unknown>,
  from: { readonly operationId: string; readonly sent: Sent; readonly link: string },
  options: { readonly key: string; readonly idempotencyKey?: string }
): Promise<Sent> => {
  const paths = document["paths"] as Record<string, Record<string, Record<string, unknown>>>
  const operations = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation }))
  )
  const source = operations.find(({ operation }) => operation["operationId"] === from.operationId)
  const responses = source?.operation["responses"] as Record<string, { readonly links?: Record<string, unknown> }>
  const link = responses[String(from.sent.reply.status)]?.links?.[from.link] as
    | { readonly operationId: string; readonly parameters: Record<string, string> }
    | undefined
  if (link === undefined) throw new Error(`${from.operationId} ${from.sent.reply.status} has no link ${from.link}`)
  const target = operations.find(({ operation }) => operation["operationId"] === link.operationId)
  if (target === undefined) throw new Error(`no operation ${link.operationId}`)
  const declared = target.operation["parameters"] as ReadonlyArray<{ readonly name: string; readonly in: string }>
  let path = target.path
  const query = new URLSearchParams()
  for (const [name, expression] of Object.entries(link.parameters)) {
    const parameter = declared.find((p) => p.name === name)
    if (parameter === undefined) throw new Error(`${link.operationId} has no parameter ${name}`)
    const value = evaluate(expression, from.sent)
    if (value === undefined || value === null) continue
    if (parameter.in === "path") path = path.replace(`{${name}}`, encodeURIComponent(String(value)))
    else if (parameter.in === "query") query.set(name, String(value))
    else throw new Error(`a link sets ${parameter.in} parameter ${name}`)
  }
  const url = query.toString() === "" ? path : `${path}?${query.toString()}`
  return { path: url, reply: await h.api(target.method.toUpperCase(), url, options) }
}

const send = async (h: Harness, method: string, path: string, options: Parameters<Harness["api"]>[2]) => ({
  path,
  reply: await h.api(method, path, options)
})

describe("the document's links, followed against a real server", () => {
  it("startTimer's link stops the timer it started; getActiveTimer's stops the running one", () =>
    withServer(store)(async (h) => {
      const document = JSON.parse(await served(h)) as Record<string, unknown>
      const key = keys.member
      const started = await send(h, "POST", "/api/v1/timers/start", {
        key,
        idempotencyKey: "link-start-1",
        json: { projectId: ids.website }
      })
      expect(started.reply.status).toBe(200)
      const startedId = started.reply.body<{ timer: { id: string } }>().timer.id
      const stopped = await follow(h, document, { operationId: "startTimer", sent: started, link: "stopTimer" }, {
        key,
        idempotencyKey: "link-stop-1"
      })
      expect(stopped.path).toBe(`/api/v1/timers/${startedId}/stop`)
      expect(stopped.reply.status).toBe(200)
      expect(stopped.reply.body()).toEqual({ timer: null, stoppedTimerId: startedId })

      const again = await send(h, "POST", "/api/v1/timers/start", {
        key,
        idempotencyKey: "link-start-2",
        json: { projectId: ids.website }
      })
      const againId = again.reply.body<{ timer: { id: string } }>().timer.id
      const active = await send(h, "GET", "/api/v1/timer", { key })
      expect(active.reply.body<{ timer: { id: string } }>().timer.id).toBe(againId)
      const stoppedActive = await follow(
        h,
        document,
        { operationId: "getActiveTimer", sent: active, link: "stopTimer" },
        { key, idempotencyKey: "link-stop-2" }
      )
      expect(stoppedActive.reply.body()).toEqual({ timer: null, stoppedTimerId: againId })
    }))

  it("listTimeEntries' link fetches the next page, with the same filter and limit, until nextCursor is null", () =>
    withServer(store)(async (h) => {
      const document = JSON.parse(await served(h)) as Record<string, unknown>
      const key = keys.member
      for (const first of ["/api/v1/time-entries?limit=7", `/api/v1/time-entries?projectId=${ids.website}&limit=4`]) {
        const all = await send(h, "GET", "/api/v1/time-entries?limit=100", { key })
        const expected = all.reply.body<{ entries: ReadonlyArray<{ id: string; projectId: string }> }>().entries
          .filter((entry) => !first.includes("projectId") || entry.projectId === ids.website)
          .map((entry) => entry.id)
        let page = await send(h, "GET", first, { key })
        const seen: Array<string> = []
        for (let pages = 0; pages < 50; pages++) {
          expect(page.reply.status).toBe(200)
          const body = page.reply.body<{ entries: ReadonlyArray<{ id: string }>; nextCursor: string | null }>()
          seen.push(...body.entries.map((entry) => entry.id))
          if (body.nextCursor === null) break
          page = await follow(h, document, { operationId: "listTimeEntries", sent: page, link: "nextPage" }, { key })
        }
        expect(expected.length).toBeGreaterThan(8)
        expect(seen).toEqual(expected)
      }
    }))
})
