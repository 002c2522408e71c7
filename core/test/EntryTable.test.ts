/**
 * The memory store's entry table (`internal/entryTable.ts`) keeps two indexes beside its map: the entries of each user
 * and workspace in order, and the active ones. Whatever sequence of `set`, `delete` and `clear` reaches it (the store's
 * own writes, or a test writing the table directly), its pages and its running entry must be those a scan of the plain
 * map finds: a page that skipped, repeated or misordered an entry would break the cursor promise of the memory store.
 */
import { describe, expect, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import type { Position } from "../src/Cursor.js"
import { EntryTable } from "../src/internal/entryTable.js"
import type { EntryRow, UserScope } from "../src/Records.js"

// Few distinct values, so that equal start times, shared ids and rows moving between scopes happen often.
const scopes: ReadonlyArray<UserScope> = [
  { workspaceId: "w1", userId: "u1" },
  { workspaceId: "w1", userId: "u2" },
  { workspaceId: "w2", userId: "u1" }
]
const ids = ["a", "b", "c", "d", "e", "f", "g", "h"]
const projects = ["p1", "p2"]

const row: fc.Arbitrary<EntryRow> = fc.record({
  id: fc.constantFrom(...ids),
  scope: fc.constantFrom(...scopes),
  projectId: fc.constantFrom(...projects),
  status: fc.constantFrom("active" as const, "completed" as const, "voided" as const),
  startedAt: fc.integer({ min: 0, max: 4 })
}).map(({ id, projectId, scope, startedAt, status }) => ({
  id,
  ...scope,
  projectId,
  status,
  billable: false,
  note: null,
  startedAt,
  endedAt: status === "active" ? null : startedAt + 1,
  payRateCents: 0
}))

type Step =
  | { readonly op: "set"; readonly row: EntryRow }
  | { readonly op: "delete"; readonly id: string }
  | { readonly op: "clear" }

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: row.map((row) => ({ op: "set" as const, row })), weight: 8 },
  { arbitrary: fc.constantFrom(...ids).map((id) => ({ op: "delete" as const, id })), weight: 3 },
  { arbitrary: fc.constant({ op: "clear" as const }), weight: 1 }
)

const inScope = (scope: UserScope) => (e: EntryRow) => e.workspaceId === scope.workspaceId && e.userId === scope.userId

/** The model's page: filter, sort (`startedAt` desc, `id` desc), cut. */
const modelPage = (
  rows: ReadonlyArray<EntryRow>,
  scope: UserScope,
  after: Position | null,
  projectId: string | null,
  limit: number
) =>
  rows
    .filter(inScope(scope))
    .filter((e) => projectId === null || e.projectId === projectId)
    .filter((e) =>
      after === null || e.startedAt < after.startedAt || (e.startedAt === after.startedAt && e.id < after.id)
    )
    .sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .slice(0, limit)

describe("EntryTable", () => {
  it("pages and finds the running entry exactly as a scan of the map does, after any writes", () => {
    fc.assert(
      fc.property(
        fc.array(step, { maxLength: 40 }),
        fc.option(fc.record({ startedAt: fc.integer({ min: -1, max: 5 }), id: fc.constantFrom("", ...ids, "z") })),
        fc.option(fc.constantFrom(...projects)),
        fc.integer({ min: 1, max: 10 }),
        (steps, after, projectId, limit) => {
          const table = new EntryTable()
          const model = new Map<string, EntryRow>()
          for (const s of steps) {
            if (s.op === "set") {
              table.set(s.row.id, s.row)
              model.set(s.row.id, s.row)
            } else if (s.op === "delete") {
              expect(table.delete(s.id)).toBe(model.delete(s.id))
            } else {
              table.clear()
              model.clear()
            }
          }
          const rows = [...model.values()]
          expect([...table.entries()]).toEqual([...model.entries()])
          for (const scope of scopes) {
            expect(table.page(scope, after, projectId, limit)).toEqual(modelPage(rows, scope, after, projectId, limit))
            const active = rows.filter(inScope(scope)).filter((e) => e.status === "active")
            const found = table.activeOf(scope)
            if (active.length === 0) expect(found).toBeUndefined()
            else expect(active).toContainEqual(found)
          }
        }
      ),
      { numRuns: 2000 }
    )
  })

  it("walks a user's entries page by page without skipping or repeating one", () => {
    const table = new EntryTable()
    const scope = scopes[0]!
    const all: Array<EntryRow> = []
    for (let i = 0; i < 250; i++) {
      const e: EntryRow = {
        id: `id${String(i % 7)}-${String(i).padStart(3, "0")}`,
        workspaceId: scope.workspaceId,
        userId: scope.userId,
        projectId: "p1",
        status: "completed",
        billable: false,
        note: null,
        startedAt: Math.floor(i / 3),
        endedAt: Math.floor(i / 3) + 1,
        payRateCents: 0
      }
      all.push(e)
      table.set(e.id, e)
    }
    const seen: Array<string> = []
    let after: Position | null = null
    for (;;) {
      const page = table.page(scope, after, null, 17)
      if (page.length === 0) break
      seen.push(...page.map((e) => e.id))
      const last = page[page.length - 1]!
      after = { startedAt: last.startedAt, id: last.id }
    }
    expect(seen).toEqual(modelPage(all, scope, null, null, all.length).map((e) => e.id))
    expect(new Set(seen).size).toBe(250)
  })
})
