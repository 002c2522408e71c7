/**
 * Why an answer did not decode, in a sentence whose size does not depend on the answer: the path of the first problem
 * and what the Schema expected there, never the value itself (effect's formatters write the value out whole, which
 * overflows the stack on an answer nested a few thousand levels deep).
 */
import type * as ParseResult from "effect/ParseResult"

const MAX_SEGMENT = 40

const segment = (key: PropertyKey): string => {
  const text = String(key)
  return text.length <= MAX_SEGMENT ? text : `${text.slice(0, MAX_SEGMENT)}…`
}

const isMany = (
  issues: ParseResult.SingleOrNonEmpty<ParseResult.ParseIssue>
): issues is readonly [ParseResult.ParseIssue, ...Array<ParseResult.ParseIssue>] => Array.isArray(issues)

const keysOf = (path: ParseResult.Path): ReadonlyArray<PropertyKey> =>
  typeof path === "object" ? path : [path]

/** The first problem of a parse error: `at clients.0.color: expected Color`. */
export const summary = (error: ParseResult.ParseError): string => {
  const path: Array<string> = []
  // The issue tree follows the Schema, not the answer: its depth is the Schema's.
  let issue: ParseResult.ParseIssue = error.issue
  for (;;) {
    switch (issue._tag) {
      case "Pointer":
        path.push(...keysOf(issue.path).map(segment))
        issue = issue.issue
        continue
      case "Composite": {
        const first = isMany(issue.issues) ? issue.issues[0] : issue.issues
        issue = first
        continue
      }
      case "Refinement":
      case "Transformation":
        if (issue.kind === "From" || issue.kind === "Encoded") {
          issue = issue.issue
          continue
        }
        break
    }
    break
  }
  const at = path.length === 0 ? "" : `at ${path.join(".")}: `
  switch (issue._tag) {
    case "Missing":
      return `${at}is missing`
    case "Unexpected":
      return `${at}is unexpected`
    default:
      return `${at}expected ${segment(String(issue.ast))}`
  }
}
