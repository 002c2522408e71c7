/**
 * The `/docs` API reference: one self-contained HTML page (no script, no external resource) rendered from the OpenAPI
 * document, showing each operation's method, path, scope, parameters, body, responses, headers and error codes, and
 * every schema.
 *
 * @since 0.1.0
 */
import { arrayAt, isObject, type Json, type JsonObject, objectAt, refName, stringAt } from "./internal/json.js"
import * as OpenApiDocument from "./OpenApiDocument.js"

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** Paragraphs separated by blank lines, with `code` spans. */
const prose = (text: string | undefined): string =>
  text === undefined ? "" : text.split(/\n\n+/).map((paragraph) =>
    `<p>${escape(paragraph).replace(/`([^`]+)`/g, "<code>$1</code>")}</p>`
  ).join("")

const schemaLink = (name: string): string => `<a href="#schema-${escape(name)}">${escape(name)}</a>`

/** A one-line description of a schema's type, linking named schemas. */
const typeOf = (schema: Json | undefined): string => {
  if (!isObject(schema)) return "any"
  const ref = refName(schema)
  if (ref !== undefined) return schemaLink(ref)
  const anyOf = arrayAt(schema, "anyOf")
  if (anyOf.length > 0) return anyOf.map(typeOf).join(" or ")
  const values = arrayAt(schema, "enum")
  if (values.length > 0) return values.map((value) => `<code>${escape(JSON.stringify(value))}</code>`).join(" | ")
  const type = stringAt(schema, "type")
  if (type === "array") return `array of ${typeOf(schema.items)}`
  if (type === undefined) return "any"
  const format = stringAt(schema, "format")
  return escape(format === undefined ? type : `${type} (${format})`)
}

const constraintKeys = ["format", "pattern", "minLength", "maxLength", "minimum", "maximum"] as const

/** Constraints and description of a schema, as short text. */
const notes = (schema: Json | undefined): string => {
  if (!isObject(schema)) return ""
  const parts = constraintKeys.flatMap((key) => {
    const value = schema[key]
    return value === undefined ? [] : [`${key}: <code>${escape(String(value))}</code>`]
  })
  if (schema.additionalProperties === false) parts.push("no other properties")
  const description = stringAt(schema, "description")
  return [...parts.map((part) => `<span>${part}</span>`), prose(description)].join(" ")
}

const table = (head: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  rows.length === 0 ? "<p>None.</p>" : `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr></thead>` +
    `<tbody>${rows.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join("")}</tr>`).join("")}</tbody></table>`

/** The fields of an object schema. */
const fields = (schema: JsonObject): string => {
  const required = arrayAt(schema, "required")
  const properties = objectAt(schema, "properties")
  return table(
    ["Field", "Type", "Required", "Notes"],
    Object.entries(properties).map(([name, property]) => [
      `<code>${escape(name)}</code>`,
      typeOf(property),
      required.includes(name) ? "yes" : "no",
      notes(property)
    ])
  )
}

/** The error codes a response can carry, from its schemas' `error.code` enums. */
const errorCodes = (schemas: JsonObject, schema: Json | undefined): ReadonlyArray<string> => {
  const members = arrayAt(schema, "anyOf").length > 0 ? arrayAt(schema, "anyOf") : schema === undefined ? [] : [schema]
  return members.flatMap((member) => {
    const name = refName(member)
    const resolved = name === undefined ? member : schemas[name]
    const code = objectAt(objectAt(objectAt(resolved, "properties"), "error"), "properties").code
    return arrayAt(code, "enum").flatMap((value) => typeof value === "string" ? [value] : [])
  })
}

const operationHtml = (schemas: JsonObject, method: string, path: string, operation: JsonObject): string => {
  const name = stringAt(operation, "operationId") ?? `${method} ${path}`
  const scope = stringAt(operation, "x-stint-scope")
  const parameters = arrayAt(operation, "parameters").map((parameter) => [
    `<code>${escape(stringAt(parameter, "name") ?? "")}</code>`,
    escape(stringAt(parameter, "in") ?? ""),
    isObject(parameter) && parameter.required === true ? "yes" : "no",
    typeOf(objectAt(parameter, "schema")),
    notes(objectAt(parameter, "schema")) || prose(stringAt(parameter, "description"))
  ])
  const body = objectAt(objectAt(objectAt(operation, "requestBody"), "content"), "application/json").schema
  const responses = Object.entries(objectAt(operation, "responses")).map(([status, response]) => {
    const schema = objectAt(objectAt(response, "content"), "application/json").schema
    const codes = errorCodes(schemas, schema)
    const headers = Object.keys(objectAt(response, "headers")).map((header) => `<code>${escape(header)}</code>`)
    return [
      `<strong>${escape(status)}</strong>`,
      schema === undefined ? "" : typeOf(schema),
      codes.map((code) => `<code class="code">${escape(code)}</code>`).join(" "),
      headers.join(" "),
      prose(stringAt(response, "description"))
    ]
  })
  return `<section class="operation" id="op-${escape(name)}" data-operation="${escape(name)}">` +
    `<h2><span class="method ${escape(method)}">${escape(method.toUpperCase())}</span> ` +
    `<code class="path">${escape(path)}</code> <span class="name">${escape(name)}</span></h2>` +
    `<p class="summary">${escape(stringAt(operation, "summary") ?? "")}</p>` +
    prose(stringAt(operation, "description")) +
    `<dl><dt>Scope</dt><dd><code class="scope">${escape(scope ?? "none")}</code></dd>` +
    `<dt>Authentication</dt><dd><code>Authorization: Bearer &lt;API key&gt;</code></dd></dl>` +
    `<h3>Parameters</h3>${table(["Name", "In", "Required", "Type", "Notes"], parameters)}` +
    `<h3>Request body</h3>${body === undefined ? "<p>None (a body sent is ignored).</p>" : `<p>JSON (<code>Content-Type: application/json</code>, at most 64 KiB): ${typeOf(body)}</p>`}` +
    `<h3>Responses</h3>${table(["Status", "Body", "Error codes", "Headers", "Description"], responses)}` +
    `</section>`
}

const schemaHtml = (name: string, schema: Json): string =>
  `<section class="schema" id="schema-${escape(name)}"><h3>${escape(name)}</h3>` +
  (isObject(schema) && stringAt(schema, "type") === "object"
    ? prose(stringAt(schema, "description")) + fields(schema)
    : `<p>${typeOf(schema)} ${notes(schema)}</p>`) +
  `</section>`

const style = `
body{font-family:system-ui,sans-serif;margin:0;color:#1d1d1f;line-height:1.45}
header,main{max-width:72rem;margin:0 auto;padding:1rem 1.5rem}
header{border-bottom:1px solid #ddd}
nav ul{list-style:none;padding:0;columns:2}
code{font-family:ui-monospace,monospace;background:#f3f3f5;padding:0 .2em;border-radius:3px}
.operation{border:1px solid #ddd;border-radius:6px;padding:0 1rem 1rem;margin:1.5rem 0}
.method{display:inline-block;min-width:3.5rem;text-align:center;color:#fff;border-radius:4px;padding:.1rem .4rem;font-size:.9em}
.method.get{background:#1f7a3f}.method.post{background:#1f4f9a}
.name{color:#666;font-weight:normal;font-size:.8em}
table{border-collapse:collapse;width:100%;font-size:.9em}
th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
td code{white-space:nowrap}
td p{margin:0 0 .3rem}
dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}dd{margin:0}
`

/**
 * Renders the reference page of an OpenAPI document.
 *
 * @since 0.1.0
 */
export const render = (document: unknown): string => {
  const doc: Json = isObject(document) ? document : {}
  const info = objectAt(doc, "info")
  const schemas = objectAt(objectAt(doc, "components"), "schemas")
  const operations = Object.entries(objectAt(doc, "paths")).flatMap(([path, item]) =>
    Object.entries(isObject(item) ? item : {}).flatMap(([method, operation]) =>
      isObject(operation) ? [{ path, method, operation }] : []
    )
  )
  const title = `${stringAt(info, "title") ?? "API"} ${stringAt(info, "version") ?? ""}`.trim()
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${escape(title)} reference</title><style>${style}</style></head><body>` +
    `<header><h1>${escape(title)}</h1>${prose(stringAt(info, "description"))}` +
    // Relative to the page (`…/docs`), so that it names the document under any mount prefix.
    `<p>Machine-readable: <a href="api/v1/openapi.json">api/v1/openapi.json</a> (OpenAPI 3.1).</p>` +
    `<nav><ul>${
      operations.map(({ method, operation, path }) => {
        const name = stringAt(operation, "operationId") ?? ""
        return `<li><a href="#op-${escape(name)}">${escape(method.toUpperCase())} ${escape(path)}</a> ` +
          `<span class="name">${escape(name)}</span></li>`
      }).join("")
    }</ul></nav></header><main>` +
    operations.map(({ method, operation, path }) => operationHtml(schemas, method, path, operation)).join("") +
    `<h2 id="schemas">Schemas</h2>` +
    Object.entries(schemas).map(([name, schema]) => schemaHtml(name, schema)).join("") +
    `</main></body></html>`
}

/**
 * The page of the API's own document, as served at `/docs`.
 *
 * @since 0.1.0
 */
export const html: string = render(OpenApiDocument.document)
