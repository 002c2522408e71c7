/**
 * Validates HTTP responses against the served OpenAPI document with a real JSON Schema validator (Ajv, draft 2020-12,
 * with formats): the operation is found by method and path template, the schema by status, so the document and the
 * behaviour cannot drift. Responses outside the operations (404, 405, 503), which the document does not describe,
 * must match the core's `ErrorBody` Schema (as JSON Schema).
 */
import { Schemas } from "@stint/core"
import { Ajv2020 } from "ajv/dist/2020.js"
import type { ValidateFunction } from "ajv"
import addFormats from "ajv-formats"
import * as JSONSchema from "effect/JSONSchema"

type Doc = {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, unknown> }
}
type Operation = {
  readonly operationId: string
  readonly responses: Record<string, {
    readonly content?: Record<string, { readonly schema: unknown }>
    readonly headers?: Record<string, { readonly required?: boolean }>
  }>
}

const pointer = (...parts: ReadonlyArray<string>): string =>
  parts.map((part) => part.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")

const templateMatches = (template: string, path: string): boolean => {
  const a = template.split("/")
  const b = path.split("/")
  return a.length === b.length && a.every((segment, i) => /^\{.+\}$/.test(segment) ? b[i] !== "" : segment === b[i])
}

export interface Validation {
  /** The operation the request hit, if any. */
  readonly operationId: string | undefined
}

export interface Validator {
  readonly document: Doc
  /**
   * Throws when the body does not match the document: for an operation, the schema of its response for `status`
   * (a status the operation does not declare is an error); otherwise, for an error status, the core's `ErrorBody`.
   * Also checks the response headers the document requires, and that no header it does not list is one of ours.
   */
  readonly check: (
    method: string,
    path: string,
    status: number,
    headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
    body: unknown
  ) => Validation
}

export const make = (document: unknown): Validator => {
  const doc = document as Doc
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema(document as object, "openapi")
  const compiled = new Map<string, ValidateFunction>()
  const compile = (ref: string): ValidateFunction => {
    const known = compiled.get(ref)
    if (known !== undefined) return known
    const validate = ajv.compile({ $ref: `openapi#/${ref}` })
    compiled.set(ref, validate)
    return validate
  }
  const errorBody = ajv.compile(JSONSchema.make(Schemas.ErrorBody, { target: "jsonSchema2020-12" }))
  const assertValid = (ref: string, body: unknown, what: string, validate: ValidateFunction = compile(ref)) => {
    if (!validate(body)) {
      throw new Error(`${what} does not match ${ref}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`)
    }
  }
  return {
    document: doc,
    check: (method, path, status, headers, body) => {
      const what = `${method} ${path} → ${status}`
      const entry = Object.entries(doc.paths).find(([template, item]) =>
        templateMatches(template, path) && item[method.toLowerCase()] !== undefined
      )
      if (entry === undefined) {
        if (status >= 400) assertValid("the core's ErrorBody", body, what, errorBody)
        return { operationId: undefined }
      }
      const [template, item] = entry
      const operation = item[method.toLowerCase()] as Operation
      const response = operation.responses[String(status)]
      if (response === undefined) throw new Error(`${what}: status ${status} is not documented`)
      if (response.content?.["application/json"] !== undefined) {
        assertValid(
          pointer("paths", template, method.toLowerCase(), "responses", String(status), "content", "application/json", "schema"),
          body,
          what
        )
      }
      const documented = Object.keys(response.headers ?? {}).map((name) => name.toLowerCase())
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        if (header.required === true && headers[name.toLowerCase()] === undefined) {
          throw new Error(`${what}: the required header ${name} is missing`)
        }
      }
      for (const name of ["x-request-id", "idempotent-replayed", "retry-after"]) {
        if (headers[name] !== undefined && !documented.includes(name)) {
          throw new Error(`${what}: the header ${name} is not documented for this response`)
        }
      }
      return { operationId: operation.operationId }
    }
  }
}
