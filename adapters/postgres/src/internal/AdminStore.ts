/**
 * The admin side of the port on PostgreSQL. A dataset goes in as one transaction sent in one round trip (BEGIN, the
 * locks of the users whose active entries it adds, one INSERT per table, COMMIT); a uniqueness or foreign-key rule the
 * database enforced becomes a `RecordConflict`.
 */
import { RecordConflict, type StoreError } from "@stint/core/Errors"
import type { UserScope } from "@stint/core/Records"
import type { AdminStore } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type pg from "pg"
import * as AdminResults from "./AdminResults.js"
import * as AdminStatements from "./AdminStatements.js"
import * as Bulk from "./Bulk.js"
import { type PoolSettings, query } from "./Database.js"
import { retryTransient } from "./Failure.js"
import { isId } from "./Ids.js"
import * as Rows from "./Rows.js"
import * as TimerStatements from "./TimerStatements.js"
import * as Transaction from "./Transaction.js"

const ok = (rows: ReadonlyArray<Rows.Row>) => rows.length > 0

/** The admin side of the store on `pool`; `settings` open the dedicated connection of bulk loads. */
export const make = (pool: pg.Pool, settings: PoolSettings): AdminStore => ({
  hasWorkspaces: Effect.map(
    retryTransient(query(pool, "hasWorkspaces", AdminStatements.hasWorkspaces)),
    (rows) => rows[0]?.["found"] === true
  ),

  lookup: (refs) =>
    Effect.flatMap(retryTransient(query(pool, "lookup", AdminStatements.lookup(refs))), (rows) => AdminResults.readLookup(refs, rows)),

  insert: (dataset) => {
    const statements = AdminStatements.insert(dataset)
    if (statements.length === 0) return Effect.void
    // Take the lock of every user whose active entry is added, as a timer transaction would.
    const scopes: ReadonlyArray<UserScope> = dataset.timeEntries.filter((e) => e.status === "active")
    const opening = scopes.length === 0 ? [] : [TimerStatements.lockAll(scopes)]
    return retryTransient(Transaction.run(pool, "inserting a dataset", opening, () =>
      Effect.succeed({ result: undefined, commitWith: statements }))).pipe(
        Effect.catchTag("StoreError", (error): Effect.Effect<never, StoreError | RecordConflict> =>
          Option.match(AdminResults.conflict(dataset, error), { onNone: () => Effect.fail(error), onSome: Effect.fail }))
      )
  },

  bulk: Bulk.bulk(settings),

  setArchived: (entity, id, archived) =>
    isId(id)
      ? Effect.map(retryTransient(query(pool, "archiving", AdminStatements.setArchived(entity, id, archived))), ok)
      : Effect.succeed(false),

  removeMembership: (scope) =>
    isId(scope.workspaceId) && isId(scope.userId)
      ? Effect.map(retryTransient(query(pool, "removing a membership", AdminStatements.removeMembership(scope))), ok)
      : Effect.succeed(false),

  revokeApiKey: (id, at) =>
    isId(id)
      ? Effect.map(retryTransient(query(pool, "revoking a key", AdminStatements.revokeApiKey(id, at))), ok)
      : Effect.succeed(false),

  listApiKeys: (filter) =>
    (filter.workspaceId !== undefined && !isId(filter.workspaceId)) || (filter.userId !== undefined && !isId(filter.userId))
      ? Effect.succeed([])
      : Effect.flatMap(retryTransient(query(pool, "listing keys", AdminStatements.listApiKeys(filter))), (rows) =>
        Rows.read("keys", () => rows.map(Rows.keyInfo))),

  findEntryScope: (entryId) =>
    isId(entryId)
      ? Effect.flatMap(retryTransient(query(pool, "finding an entry", AdminStatements.findEntryScope(entryId))), (rows) =>
        Rows.read("an entry's scope", () =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({
            workspaceId: Rows.string(row, "workspaceId"),
            userId: Rows.string(row, "userId")
          }))))
      : Effect.succeed(Option.none())
})
