/**
 * What the admin statements' answers mean: the `ExistingRecords` of a lookup, and the `RecordConflict` behind a
 * uniqueness or foreign-key violation the database reported while inserting a dataset.
 */
import { RecordConflict, type StoreError } from "@stint/core/Errors"
import type { Dataset, DatasetRefs, ExistingRecords } from "@stint/core/Records"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { stateOf } from "./Failure.js"
import * as Rows from "./Rows.js"

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
export const conflict = (dataset: Dataset, error: StoreError): Option.Option<RecordConflict> => {
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

/** The `ExistingRecords` in the one row of `AdminStatements.lookup(refs)`. */
export const readLookup = (refs: DatasetRefs, rows: ReadonlyArray<Rows.Row>): Effect.Effect<ExistingRecords, StoreError> =>
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
  })
