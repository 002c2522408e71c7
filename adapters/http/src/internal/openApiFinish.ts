/**
 * Finishes the OpenAPI document `OpenApi.fromApi` generates from the definition with what `HttpApi` cannot express:
 * the response headers (`X-Request-Id` everywhere, `Idempotent-Replayed` on timer mutations), the spec's header name
 * `Idempotency-Key`, one description per status listing its error codes, the links from a success to the request it
 * enables, and no generator leftovers (`$id` markers and titles of `unknown`, titles such as `minLength(1)`, and
 * components nothing refers to).
 */
import { isObject, type Json, type JsonObject, objectAt, refName } from "./json.js"

/** Operations whose successes may be replays. */
const IDEMPOTENT = new Set(["startTimer", "stopTimer"])

/** Headers whose names HttpApi lowercases, in the spelling of the spec. */
const HEADER_NAMES: Readonly<Record<string, string>> = { "idempotency-key": "Idempotency-Key" }

/** Stops the timer whose id is the response's `timer.id`. */
const stopThisTimer = (when: string): JsonObject => ({
  operationId: "stopTimer",
  parameters: { timerId: "$response.body#/timer/id" },
  description: `Stop this timer (\`timer.id\`${when}), with an Idempotency-Key of its own.`
})

/**
 * The links of each operation's success (OpenAPI link objects, by name): how its values feed the next request, for
 * clients, generators and API testers that chain calls.
 */
const LINKS: Readonly<Record<string, JsonObject>> = {
  startTimer: { stopTimer: stopThisTimer("") },
  getActiveTimer: { stopTimer: stopThisTimer(", when it is not null") },
  listTimeEntries: {
    nextPage: {
      operationId: "listTimeEntries",
      parameters: {
        cursor: "$response.body#/nextCursor",
        projectId: "$request.query.projectId",
        limit: "$request.query.limit"
      },
      description: "The next page: `nextCursor` unchanged, with the same `projectId` and `limit` (absent stays " +
        "absent). There is none when `nextCursor` is null."
    }
  }
}

const requestIdHeader: JsonObject = {
  description: "Unique per response; an error body's `requestId` equals it.",
  required: true,
  schema: { type: "string", minLength: 1 }
}

const replayedHeader: JsonObject = {
  description: "`true` when this is the stored response of an earlier request with the same Idempotency-Key and " +
    "input, replayed byte for byte.",
  required: false,
  schema: { type: "string", enum: ["true"] }
}

/** Removes what the JSON Schema generator leaves behind, in place. */
const clean = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(clean)
  if (!isObject(value)) return value
  const out: JsonObject = {}
  for (const [key, child] of Object.entries(value)) {
    if (key === "$id" && typeof child === "string" && child.startsWith("/schemas/")) continue
    if (key === "title" && typeof child === "string" && /^(?:[A-Za-z]+\(.*\)|unknown)$/.test(child)) continue
    out[key] = clean(child)
  }
  return out
}

/** The error schemas a response's content refers to (one `$ref`, or an `anyOf` of them). */
const referencedSchemas = (response: JsonObject): ReadonlyArray<string> => {
  const content = response.content
  const json = isObject(content) ? content["application/json"] : undefined
  const schema = isObject(json) ? json.schema : undefined
  const single = refName(schema)
  if (single !== undefined) return [single]
  const anyOf = isObject(schema) ? schema.anyOf : undefined
  return Array.isArray(anyOf) ? anyOf.flatMap((member: Json) => refName(member) ?? []) : []
}

const codeOf = (schema: Json | undefined): string | undefined => {
  const error = isObject(schema) && isObject(schema.properties) ? schema.properties.error : undefined
  const code = isObject(error) && isObject(error.properties) ? error.properties.code : undefined
  const values = isObject(code) ? code.enum : undefined
  return Array.isArray(values) && typeof values[0] === "string" ? values[0] : undefined
}

/** HttpApi declares its own decode error on every API; Stint's server never answers with it. */
const NEVER_SENT = "HttpApiDecodeError"

/** A response's JSON content without the schemas the server never sends, in place. */
const dropNeverSent = (response: JsonObject): void => {
  const json = objectAt(objectAt(response, "content"), "application/json")
  const schema = json.schema
  if (!isObject(schema) || !Array.isArray(schema.anyOf)) return
  const kept = schema.anyOf.filter((member: Json) => refName(member) !== NEVER_SENT)
  json.schema = kept.length === 1 ? kept[0] ?? schema : { ...schema, anyOf: kept }
}

/** The names of the component schemas reachable from `value` (following `$ref`s through `schemas`). */
const reachable = (value: Json, schemas: JsonObject, found: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(value)) {
    for (const child of value) reachable(child, schemas, found)
  } else if (isObject(value)) {
    const name = refName(value)
    if (name !== undefined && !found.has(name)) {
      found.add(name)
      reachable(schemas[name] ?? null, schemas, found)
    }
    for (const child of Object.values(value)) reachable(child, schemas, found)
  }
  return found
}

/**
 * Finishes a generated document (the `OpenApi.Transform` of the definition).
 */
export const finishDocument = (spec: Record<string, unknown>): Record<string, unknown> => {
  const doc = clean(spec as JsonObject)
  if (!isObject(doc)) return spec
  const components = isObject(doc.components) ? doc.components : {}
  const schemas = isObject(components.schemas) ? components.schemas : {}
  const paths = isObject(doc.paths) ? doc.paths : {}
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue
    for (const operation of Object.values(item)) {
      if (!isObject(operation)) continue
      const parameters = Array.isArray(operation.parameters) ? operation.parameters : []
      operation.parameters = parameters.map((parameter: Json) =>
        isObject(parameter) && typeof parameter.name === "string" && HEADER_NAMES[parameter.name] !== undefined
          ? { ...parameter, name: HEADER_NAMES[parameter.name] ?? parameter.name }
          : parameter
      )
      const responses = isObject(operation.responses) ? operation.responses : {}
      for (const [status, response] of Object.entries(responses)) {
        if (!isObject(response)) continue
        dropNeverSent(response)
        const headers: JsonObject = { "X-Request-Id": requestIdHeader }
        if (status.startsWith("2")) {
          response.description = status === "201" ? "Created." : "OK."
          const id = typeof operation.operationId === "string" ? operation.operationId : ""
          if (IDEMPOTENT.has(id)) headers["Idempotent-Replayed"] = replayedHeader
          const links = LINKS[id]
          if (links !== undefined) response.links = links
        } else {
          const lines = referencedSchemas(response).flatMap((name) => {
            const schema = schemas[name]
            const code = codeOf(schema)
            const description = isObject(schema) && typeof schema.description === "string" ? schema.description : ""
            return code === undefined ? [] : [`\`${code}\`: ${description}`]
          })
          if (lines.length > 0) response.description = lines.join("\n\n")
        }
        response.headers = headers
      }
    }
  }
  // Keep only the components something refers to (the decode error's helpers go with it).
  const used = reachable(paths, schemas)
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name]
  return doc
}
