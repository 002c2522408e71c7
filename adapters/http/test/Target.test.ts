/**
 * `internal/target.ts` splits plain request targets without building a `URL`: for every target, plain or not, its
 * answer must be the WHATWG URL split's (but for backslashes in the path, which stay characters).
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as Target from "../src/internal/target.js"

/** Characters a target may hold, weighted towards the ones that matter to URL parsing. */
const tricky = fc.constantFrom(
  "/", ".", "..", "%", "%2e", "%2E", "%2f", "%20", "%zz", "?", "#", "&", "=", "+", " ", "\\", "'", "\"", "<", ">",
  "`", "{", "}", "^", "|", "~", "-", "_", ":", "@", "!", "$", "(", ")", "*", ",", ";", "é", "\u0000", "\u007f", "\t"
)
const plain = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/)
const piece = fc.oneof({ weight: 3, arbitrary: plain }, { weight: 2, arbitrary: tricky })
const target = fc.array(piece, { maxLength: 16 }).map((parts) => parts.join(""))

/** `new URL`'s split of a target, as `Target` documents it. */
const whatwg = (raw: string): Target.Target | undefined => {
  try {
    const url = new URL(raw.startsWith("/") ? `http://localhost${raw}` : raw)
    return { path: url.pathname, query: [...url.searchParams] }
  } catch {
    return undefined
  }
}

describe("request targets", () => {
  it("split like WHATWG URL parsing, for generated targets", () => {
    fc.assert(
      fc.property(target, fc.boolean(), (rest, rooted) => {
        const raw = rooted ? `/${rest}` : rest
        expect(Target.parse(raw)).toEqual(Target.parseWithUrl(raw))
        // And that split is URL parsing's own, but for backslashes in the path (below).
        if (!raw.includes("\\")) expect(Target.parseWithUrl(raw)).toEqual(whatwg(raw))
      }),
      { numRuns: 20_000 }
    )
  })

  it("split the API's own targets directly, and agree with URL parsing on them", () => {
    for (
      const raw of [
        "/api/v1/timer",
        "/api/v1/time-entries",
        "/api/v1/time-entries?",
        "/api/v1/time-entries?limit=20",
        "/api/v1/time-entries?limit=20&cursor=eyJ2IjoxfQ-_&projectId=0193e6a0-0000-7000-8000-000000000000",
        "/api/v1/time-entries?limit=1&limit=2&a+b=c%20d",
        "/api/v1/timers/0193e6a0-0000-7000-8000-000000000000/stop",
        "/api/v1/clients/x%2Fy/projects"
      ]
    ) {
      expect(Target.parse(raw)).toEqual(Target.parseWithUrl(raw))
    }
  })

  it("leave dot segments, fragments and encoded characters to URL parsing", () => {
    expect(Target.parse("/api/v1/../v1/timer")?.path).toBe("/api/v1/timer")
    expect(Target.parse("/api/v1/%2e%2e/timer")?.path).toBe("/api/timer")
    expect(Target.parse("/api/v1/timer#x")?.path).toBe("/api/v1/timer")
    expect(Target.parse("/api/v1/time entries")?.path).toBe("/api/v1/time%20entries")
    expect(Target.parse("/api/v1/time-entries?a=b#c")?.query).toEqual([["a", "b"]])
  })

  it("keep a backslash in the path as a character (URL parsing would make it a `/`), and in the query as sent", () => {
    expect(new URL("http://localhost/api\\v1\\timer").pathname).toBe("/api/v1/timer")
    expect(Target.parse("/api\\v1\\timer")?.path).toBe("/api%5Cv1%5Ctimer")
    expect(Target.parse("/api/v1/timers/a\\..\\b/stop")?.path).toBe("/api/v1/timers/a%5C..%5Cb/stop")
    expect(Target.parse("/api/v1/time-entries?cursor=a\\b")).toEqual({
      path: "/api/v1/time-entries",
      query: [["cursor", "a\\b"]]
    })
    expect(Target.below("/time", "/time\\api/v1/timer")).toBeUndefined()
  })
})
