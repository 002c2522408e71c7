/**
 * Schema issues as `{ path, message }` pairs whose size does not depend on the input: effect's own `ArrayFormatter`
 * wording, but each issue's actual value is described by `describe` (kind and size, a clipped string) instead of being
 * written out whole (which recursed into the value, and overflowed the stack on deeply nested input), path segments
 * are clipped, and at most `max` issues are kept.
 */
import * as Arr from "effect/Array"
import * as ParseResult from "effect/ParseResult"
import { clip, describe } from "./quote.js"

/** One formatted issue. */
export interface Issue {
  /** The path of the offending value, segments joined with `.` (each clipped). */
  readonly path: string
  readonly message: string
  /** The path's segments (each clipped), for callers that write paths their own way. */
  readonly segments: ReadonlyArray<string | number>
}

/** How many issues are kept. */
export const MAX_ISSUES = 10

/** Stands for an actual value in an issue: `formatUnknown` writes it with its `toString`. */
const shown = (actual: unknown) => ({ toString: () => describe(actual) })

const isMany = (
  issues: ParseResult.SingleOrNonEmpty<ParseResult.ParseIssue>
): issues is Arr.NonEmptyReadonlyArray<ParseResult.ParseIssue> => Array.isArray(issues)

/** The same issue tree with every actual value replaced by its description (the tree follows the schema, not the input). */
const bounded = (issue: ParseResult.ParseIssue): ParseResult.ParseIssue => {
  switch (issue._tag) {
    case "Type":
      return new ParseResult.Type(issue.ast, shown(issue.actual), issue.message)
    case "Forbidden":
      return new ParseResult.Forbidden(issue.ast, shown(issue.actual), issue.message)
    case "Unexpected":
      return new ParseResult.Unexpected(shown(issue.actual), issue.message)
    case "Missing":
      return issue
    case "Pointer":
      return new ParseResult.Pointer(issue.path, shown(issue.actual), bounded(issue.issue))
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, shown(issue.actual), issue.kind, bounded(issue.issue))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, shown(issue.actual), issue.kind, bounded(issue.issue))
    case "Composite":
      if (isMany(issue.issues) && issue.ast._tag === "Union") {
        const literals = literalsRefused(issue.issues)
        // A union of literals that refused a value: one issue naming them all, not one per literal (`Expected
        // "owner", actual "boss"` alone reads as if "owner" were the only choice).
        if (literals !== undefined) {
          return new ParseResult.Type(
            issue.ast,
            shown(issue.actual),
            `Expected ${literals.join(" | ")}, actual ${describe(issue.actual)}`
          )
        }
      }
      return new ParseResult.Composite(
        issue.ast,
        shown(issue.actual),
        isMany(issue.issues) ? Arr.map(issue.issues, bounded) : bounded(issue.issues),
        issue.output
      )
  }
}

/** The literals of a union's members, written as JSON writes them, when each member is a literal that refused the value. */
const literalsRefused = (issues: ReadonlyArray<ParseResult.ParseIssue>): ReadonlyArray<string> | undefined => {
  const literals: Array<string> = []
  for (const member of issues) {
    if (member._tag !== "Type" || member.ast._tag !== "Literal") return undefined
    literals.push(describe(member.ast.literal))
  }
  return literals
}

const segment = (key: PropertyKey): string | number => typeof key === "number" ? key : clip(String(key))

const OTHER_ALTERNATIVE = /^Expected (undefined|null),/

/**
 * Whether an issue is only an optional or nullable field's other alternative failing (`Expected undefined, actual …`,
 * `Expected null, actual …`) where the field's own issue at the same path says what is wrong: `limit=0` is one issue,
 * not that one and "not undefined".
 */
const isOptionalAlternative = (
  issue: ParseResult.ArrayFormatterIssue,
  all: ReadonlyArray<ParseResult.ArrayFormatterIssue>
): boolean =>
  issue._tag === "Type" && OTHER_ALTERNATIVE.test(issue.message) &&
  all.some((other) =>
    other !== issue && other.path.length === issue.path.length && other.path.every((key, i) => key === issue.path[i])
  )

/**
 * The first `max` issues of a parse error, each bounded in size.
 */
export const format = (error: ParseResult.ParseError, max: number = MAX_ISSUES): Array<Issue> => {
  const all = ParseResult.ArrayFormatter.formatIssueSync(bounded(error.issue))
  return all.filter((issue) => !isOptionalAlternative(issue, all)).slice(0, max).map((issue) => {
    const segments = issue.path.map(segment)
    return { path: segments.join("."), message: issue.message, segments }
  })
}
