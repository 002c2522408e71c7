/**
 * The admin side of the port on PostgreSQL. A dataset goes in as one transaction sent in one round trip (BEGIN, the
 * locks of the users whose active entries it adds, one INSERT per table, COMMIT); a uniqueness or foreign-key rule the
 * database enforced becomes a `RecordConflict`.
 */
import { RecordConflict, type StoreError } from "@stint/core/Errors"
import type { Dataset, ExistingRecords, UserScope } from "@stint/core/Records"
import type { AdminStore } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type pg from "pg"
import * as AdminStatements from "./AdminStatements.js"
import { query } from "./Database.js"
import { retryTransient, stateOf } from "./Failure.js"
import { isId } from "./Ids.js"
import * as Rows from "./Rows.js"
import * as TimerStatements from "./TimerStatements.js"
import * as Transaction from "./Transaction.js"

const ENTITIES: Readonly<Record<string, string>> = {
  workspaces: "workspace",
  users: "user",
  memberships: "membership",
  clients: "client",
  projects: "project",
  assignments: "assignment",
  api_keys: "apiKey",
  time_entries: "timeEntry"
}

const pair = (a: string, b: string) => `${a} ${b}`

/** The values of a violation's `Key (a, b)=(x, y) …` detail, joined like the memory store's composite keys. */
const keyValues = (detail: string): string => {
  const values = /\)=\((.*)\)/.exec(detail)?.[1]
  return values === undefined ? "" : values.split(", ").join(" ")
}

/** The `RecordConflict` for a constraint the database enforced while inserting `dataset`, if it was one. */
const conflict = (dataset: Dataset, error: StoreError): Option.Option<RecordConflict> => {
  const state = stateOf(error)
  if (state !== "23505" && state !== "23503") return Option.none()
  const cause = error.cause as { readonly table?: string; readonly constraint?: string; readonly detail?: string }
  const entity = ENTITIES[cause.table ?? ""] ?? cause.table ?? "record"
  const values = keyValues(cause.detail ?? "")
  if (state === "23503") {
    return Option.some(new RecordConflict({ entity, id: values, reason: `refers to a missing record (${cause.constraint ?? "foreign key"})` }))
  }
  if (cause.constraint === "time_entries_one_active") {
    const entry = dataset.timeEntries.find((e) => e.status === "active" && pair(e.workspaceId, e.userId) === values)
    return Option.some(new RecordConflict({ entity, id: entry?.id ?? values, reason: "second active entry" }))
  }
  if (cause.constraint === "api_keys_digest_key") {
    const key = dataset.apiKeys.find((k) => k.digest === values)
    return Option.some(new RecordConflict({ entity, id: key?.id ?? "", reason: "key already exists" }))
  }
  return Option.some(new RecordConflict({ entity, id: values, reason: "already exists" }))
}

const ok = (rows: ReadonlyArray<Rows.Row>) => rows.length > 0

/** The admin side of the store on `pool`. */
export const make = (pool: pg.Pool): AdminStore => ({
  hasWorkspaces: Effect.map(
    retryTransient(query(pool, "hasWorkspaces", AdminStatements.hasWorkspaces)),
    (rows) => rows[0]?.["found"] === true
  ),

  lookup: (refs) =>
    Effect.flatMap(retryTransient(query(pool, "lookup", AdminStatements.lookup(refs))), (rows) =>
      Rows.read("lookup", (): ExistingRecords => {
        const row = rows[0]
        if (row === undefined) throw new Error("no row")
        const idSet = (name: string) => new Set(Rows.stringList(row, name))
        const workspaceIds = idSet("workspaceIds"), userIds = idSet("userIds"), entryIds = idSet("entryIds")
        const apiKeyIds = idSet("apiKeyIds")
        const clients = new Map(Rows.objects(row, "clients").map((c) => [Rows.string(c, "id"), {
          id: Rows.string(c, "id"),
          workspaceId: Rows.string(c, "workspaceId"),
          name: Rows.text(c, "name"),
          color: Rows.string(c, "color"),
          archived: Rows.boolean(c, "archived")
        }]))
        const projects = new Map(Rows.objects(row, "projects").map((p) => [Rows.string(p, "id"), {
          id: Rows.string(p, "id"),
          workspaceId: Rows.string(p, "workspaceId"),
          clientId: Rows.string(p, "clientId"),
          name: Rows.text(p, "name"),
          color: Rows.string(p, "color"),
          archived: Rows.boolean(p, "archived")
        }]))
        const active = new Set(Rows.objects(row, "activeEntries").map((e) => pair(Rows.string(e, "workspaceId"), Rows.string(e, "userId"))))
        const assigned = new Set(Rows.objects(row, "assignments").map((a) => pair(Rows.string(a, "projectId"), Rows.string(a, "userId"))))
        // Like the memory store: the asked-for ids that exist, in the order (and with the repeats) they were asked.
        return {
          workspaceIds: refs.workspaceIds.filter((id) => workspaceIds.has(id)),
          userIds: refs.userIds.filter((id) => userIds.has(id)),
          clients: refs.clientIds.flatMap((id) => Option.toArray(Option.fromNullable(clients.get(id)))),
          projects: refs.projectIds.flatMap((id) => Option.toArray(Option.fromNullable(projects.get(id)))),
          entryIds: refs.entryIds.filter((id) => entryIds.has(id)),
          apiKeyIds: refs.apiKeyIds.filter((id) => apiKeyIds.has(id)),
          // Stored keys whose digest was asked for, in the order they were stored.
          apiKeyDigests: Rows.stringList(row, "apiKeyDigests"),
          memberships: Rows.objects(row, "memberships").map(Rows.membership),
          activeEntries: refs.userScopes.filter((s) => active.has(pair(s.workspaceId, s.userId))),
          assignments: refs.assignments.filter((a) => assigned.has(pair(a.projectId, a.userId)))
        }
      })),

  insert: (dataset) => {
    const statements = AdminStatements.insert(dataset)
    if (statements.length === 0) return Effect.void
    // Take the lock of every user whose active entry is added, as a timer transaction would.
    const scopes: ReadonlyArray<UserScope> = dataset.timeEntries.filter((e) => e.status === "active")
    const opening = scopes.length === 0 ? [] : [TimerStatements.lockAll(scopes)]
    return retryTransient(Transaction.run(pool, "inserting a dataset", opening, () =>
      Effect.succeed({ result: undefined, commitWith: statements }))).pipe(
        Effect.catchTag("StoreError", (error): Effect.Effect<never, StoreError | RecordConflict> =>
          Option.match(conflict(dataset, error), { onNone: () => Effect.fail(error), onSome: Effect.fail }))
      )
  },

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
