/**
 * A fast yes-or-maybe check derived from a Schema's AST, for decoding millions of small rows: when it says yes, the
 * Schema accepts the value unchanged; when it says no (or the Schema has a node it does not know), the caller decodes
 * with the Schema itself, which also words the problem. It runs the Schema's own refinement filters, so it cannot
 * disagree with a rule; it is only ever stricter (no excess properties, no arrays where a struct is expected).
 */
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"

/** A predicate that accepts only values the Schema decodes to themselves. */
export type Guard = (input: unknown) => boolean

const OPTIONS: AST.ParseOptions = { onExcessProperty: "error" }

const hasOwn = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key)

const isPlainRecord = (input: unknown): input is Readonly<Record<string, unknown>> =>
  typeof input === "object" && input !== null && !Array.isArray(input)

const compileAst = (ast: AST.AST): Guard | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
      return (u) => typeof u === "string"
    case "NumberKeyword":
      return (u) => typeof u === "number"
    case "BooleanKeyword":
      return (u) => typeof u === "boolean"
    case "UndefinedKeyword":
      return (u) => u === undefined
    case "Literal": {
      const literal = ast.literal
      return (u) => u === literal
    }
    case "Union": {
      const members = ast.types.map(compileAst)
      if (members.some((guard) => guard === undefined)) return undefined
      const guards = members as ReadonlyArray<Guard>
      return (u) => guards.some((guard) => guard(u))
    }
    case "Refinement": {
      const from = compileAst(ast.from)
      if (from === undefined) return undefined
      const refinement = ast
      return (u) => from(u) && Option.isNone(refinement.filter(u, OPTIONS, refinement))
    }
    case "TupleType": {
      const [rest, ...more] = ast.rest
      if (ast.elements.length > 0 || rest === undefined || more.length > 0) return undefined
      const element = compileAst(rest.type)
      if (element === undefined) return undefined
      return (u) => Array.isArray(u) && u.every((item) => element(item))
    }
    case "TypeLiteral": {
      if (ast.indexSignatures.length > 0) return undefined
      const properties: Array<{ readonly name: string; readonly optional: boolean; readonly guard: Guard }> = []
      for (const signature of ast.propertySignatures) {
        const guard = compileAst(signature.type)
        if (guard === undefined || typeof signature.name !== "string") return undefined
        properties.push({ name: signature.name, optional: signature.isOptional, guard })
      }
      return (u) => {
        if (!isPlainRecord(u)) return false
        let present = 0
        for (const p of properties) {
          if (hasOwn(u, p.name)) {
            present++
            if (!p.guard(u[p.name])) return false
          } else if (!p.optional) {
            return false
          }
        }
        // The present properties are distinct own keys: as many own keys in all means no other key.
        return Reflect.ownKeys(u).length === present
      }
    }
    default:
      return undefined
  }
}

/**
 * The fast check of `schema` when every node of its AST is one this module knows (structs, arrays, unions, literals,
 * strings, numbers, booleans, refinements), else `undefined`. Only schemas whose decoded value is the input itself
 * (no transformations) can be compiled.
 */
export const compile = <A, I>(schema: Schema.Schema<A, I, never>): Guard | undefined => compileAst(schema.ast)

const compiled = new WeakMap<object, Guard | null>()

/**
 * `compile`, once per schema (the operations' schemas are module-level constants): `null` when it cannot be compiled.
 * For requests and responses on the hot path, where the Schema's own decoder allocates its way through every node.
 */
export const of = <A, I>(schema: Schema.Schema<A, I, never>): Guard | null => {
  let guard = compiled.get(schema)
  if (guard === undefined) {
    guard = compile(schema) ?? null
    compiled.set(schema, guard)
  }
  return guard
}
