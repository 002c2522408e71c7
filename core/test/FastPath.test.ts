/**
 * The fast checks on the request path (`internal/fastGuard.ts`): request bodies, query strings and the stored timer
 * response skip the Schema's decoder or encoder when a check compiled from the same Schema says the value is valid
 * as it is. A check that said yes where the Schema says no would let bad input through: for every schema on that path,
 * a yes must mean the Schema accepts the value unchanged, and every valid value must take the fast path.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Schema from "effect/Schema"
import { isDeepStrictEqual } from "node:util"
import * as FastGuard from "../src/internal/fastGuard.js"
import {
  CreateProjectBody,
  ListProjectsQuery,
  ListTimeEntriesQuery,
  StartTimerBody,
  TimerMutationResponse
} from "../src/Schemas.js"

/** Strings of every kind a client sends: plain, long, astral, UUID-like, colors, numbers. */
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: "grapheme", minLength: 0, maxLength: 520 }),
  fc.uuid(),
  fc.stringMatching(/^#[0-9a-fA-F]{6}$/),
  fc.stringMatching(/^[0-9]{1,3}$/),
  fc.constant("")
)
const anyJson = fc.oneof(text, fc.boolean(), fc.constant(null), fc.integer(), fc.double(), fc.jsonValue({ maxDepth: 2 }))

/** Records over `keys` (each present or not) with values that are often valid and often not. */
const records = (keys: Record<string, fc.Arbitrary<unknown>>) =>
  fc.tuple(
    fc.record(
      Object.fromEntries(Object.entries(keys).map(([k, v]) => [k, fc.oneof({ arbitrary: v, weight: 6 }, anyJson)])),
      { requiredKeys: [] }
    ),
    fc.option(fc.tuple(fc.string({ maxLength: 6 }), anyJson), { nil: undefined, freq: 4 })
  ).map(([record, extra]) => (extra === undefined ? record : { ...record, [extra[0]]: extra[1] }))

const timestamp = fc.date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2100-01-01T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().replace(/\.\d{3}Z$/, "Z"))
const timer = fc.record({
  id: fc.uuid(),
  clientId: fc.uuid(),
  clientName: fc.string({ minLength: 1, maxLength: 20 }),
  projectId: fc.uuid(),
  projectName: fc.string({ minLength: 1, maxLength: 20 }),
  color: fc.stringMatching(/^#[0-9a-f]{6}$/),
  billable: fc.boolean(),
  note: fc.option(fc.string({ maxLength: 40 }), { nil: null }),
  startedAt: timestamp,
  serverNow: timestamp,
  elapsedSeconds: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: -5, max: -1 }), fc.double()),
  payRateCents: fc.oneof(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.constant(2 ** 31)),
  currency: fc.constantFrom("USD", "EUR")
})

type Case = readonly [string, Schema.Schema<any, any, never>, fc.Arbitrary<unknown>, "decode" | "encode", complete?: false]

const cases: ReadonlyArray<Case> = [
  ["StartTimerBody", StartTimerBody, records({ projectId: fc.uuid(), billable: fc.boolean(), note: text }), "decode"],
  [
    "CreateProjectBody",
    CreateProjectBody,
    records({
      clientId: fc.uuid(),
      name: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), text),
      color: fc.oneof(fc.stringMatching(/^#[0-9a-fA-F]{6}$/), text, fc.constant(null))
    }),
    "decode"
  ],
  ["ListProjectsQuery", ListProjectsQuery, records({ clientId: fc.oneof(fc.uuid(), text) }), "decode"],
  [
    "ListTimeEntriesQuery",
    ListTimeEntriesQuery,
    records({ projectId: fc.uuid(), cursor: fc.oneof(fc.base64String(), text), limit: fc.oneof(fc.integer({ min: 0, max: 101 }).map(String), text) }),
    "decode"
  ],
  // An empty Struct decodes any object to itself; the check accepts only `{}` (`decodeQuery` refuses unknown
  // parameters before it looks): stricter, so only "yes implies unchanged" holds here.
  ["no query", Schema.Struct({}), fc.oneof(fc.constant({}), records({})), "decode", false],
  [
    "TimerMutationResponse",
    TimerMutationResponse,
    fc.record({ timer: fc.option(timer, { nil: null }), stoppedTimerId: fc.option(fc.oneof(fc.uuid(), text), { nil: null }) }),
    "encode"
  ]
]

describe("the fast checks of the request path", () => {
  for (const [name, schema, values, direction, complete] of cases) {
    it(`${name}: yes exactly when the Schema accepts the value unchanged`, () => {
      const guard = FastGuard.of(schema)
      expect(guard).not.toBeNull()
      const run = direction === "decode"
        ? Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })
        : Schema.encodeUnknownEither(schema, { onExcessProperty: "error" })
      let fast = 0
      fc.assert(
        fc.property(values, (value) => {
          const result = run(value)
          const yes = guard?.(value) === true
          if (yes) fast++
          // Yes implies valid and unchanged; valid and unchanged implies yes (such values take the fast path).
          const unchanged = Either.isRight(result) && isDeepStrictEqual(result.right, value)
          if (yes || complete !== false) expect(yes).toBe(unchanged)
        }),
        // Enough runs that the count below cannot come out short by chance: at 400 runs ListTimeEntriesQuery's
        // generator made about 20 valid values and once only 10.
        { numRuns: 2_000 }
      )
      // The generators make valid values often enough that the property is not vacuous.
      expect(fast).toBeGreaterThan(10)
    })
  }
})
