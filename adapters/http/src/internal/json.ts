/**
 * JSON values and the small guards used to walk a generated OpenAPI document without `any`.
 */

/** A JSON value. */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | JsonObject

/** A JSON object (mutable, for finishing a document in place). */
export type JsonObject = { [key: string]: Json }

/** Whether a value is a JSON object (not an array). */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The object under `key`, or an empty one. */
export const objectAt = (value: Json | undefined, key: string): JsonObject => {
  const child = isObject(value) ? value[key] : undefined
  return isObject(child) ? child : {}
}

/** The array under `key`, or an empty one. */
export const arrayAt = (value: Json | undefined, key: string): ReadonlyArray<Json> => {
  const child = isObject(value) ? value[key] : undefined
  return Array.isArray(child) ? child : []
}

/** The string under `key`, if it is one. */
export const stringAt = (value: Json | undefined, key: string): string | undefined => {
  const child = isObject(value) ? value[key] : undefined
  return typeof child === "string" ? child : undefined
}

/** The component name of a `{ "$ref": "#/components/schemas/Name" }`. */
export const refName = (schema: Json | undefined): string | undefined =>
  stringAt(schema, "$ref")?.replace("#/components/schemas/", "")
