/**
 * Schemas of the rows SQLite returns (columns already camelCased), decoding them into the core's records: INTEGER
 * 0/1 becomes a boolean, JSON scope lists become arrays, and anything unexpected becomes a `StoreError`.
 */
import type { StoreError } from "@stint/core/Errors"
import { EntryStatus, Role, Scope } from "@stint/core/Schemas"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { storeError } from "./database.js"

/** A boolean stored as INTEGER 0 or 1. */
export const Flag = Schema.transform(Schema.Literal(0, 1), Schema.Boolean, {
  strict: true,
  decode: (n) => n === 1,
  encode: (b) => (b ? 1 : 0)
})

/** The bound value of a boolean column. */
export const flag = (b: boolean): 0 | 1 => (b ? 1 : 0)

const Millis = Schema.Number
const Text = Schema.String

/** An `EntryRecord`: a time entry joined with its project and client. */
export const EntryRecordRow = Schema.Struct({
  id: Text,
  projectId: Text,
  projectName: Text,
  clientId: Text,
  clientName: Text,
  color: Text,
  status: EntryStatus,
  billable: Flag,
  note: Schema.NullOr(Text),
  startedAt: Millis,
  endedAt: Schema.NullOr(Millis),
  payRateCents: Schema.Number
})

/** A scope list stored as a JSON array. */
export const Scopes = Schema.parseJson(Schema.Array(Scope))

/** An API key with its user's membership in the key's workspace (both membership columns null when there is none). */
export const KeyRow = Schema.Struct({
  id: Text,
  userId: Text,
  workspaceId: Text,
  scopes: Scopes,
  createdAt: Millis,
  revokedAt: Schema.NullOr(Millis),
  role: Schema.NullOr(Role),
  memberRateCents: Schema.NullOr(Schema.Number)
})

/** An API key's metadata (no digest). */
export const ApiKeyInfoRow = Schema.Struct({
  id: Text,
  userId: Text,
  workspaceId: Text,
  scopes: Scopes,
  createdAt: Millis,
  revokedAt: Schema.NullOr(Millis)
})

/** A client with whether the user has an assigned unarchived project under it. */
export const ClientRecordRow = Schema.Struct({
  id: Text,
  name: Text,
  color: Text,
  hasAssignedProject: Flag
})

/** A stored client. */
export const ClientRow = Schema.Struct({
  id: Text,
  workspaceId: Text,
  name: Text,
  color: Text,
  archived: Flag
})

/** A stored project. */
export const ProjectRow = Schema.Struct({
  id: Text,
  workspaceId: Text,
  clientId: Text,
  name: Text,
  color: Text,
  archived: Flag
})

/** A project with its client's archive flag. */
export const ProjectRecordRow = Schema.Struct({
  ...ProjectRow.fields,
  clientArchived: Flag
})

/** A project with its client and the user's assignment rate (null when not assigned). */
export const TrackingTargetRow = Schema.Struct({
  ...ProjectRow.fields,
  clientName: Text,
  clientArchived: Flag,
  assignedRateCents: Schema.NullOr(Schema.Number)
})

/** A membership. */
export const MembershipRow = Schema.Struct({
  workspaceId: Text,
  userId: Text,
  role: Role,
  payRateCents: Schema.Number
})

/** A stored idempotency record. */
export const IdempotencyRow = Schema.Struct({
  key: Text,
  fingerprint: Text,
  createdAt: Millis,
  responseStatus: Schema.NullOr(Schema.Number),
  responseBody: Schema.NullOr(Text)
})

/** A user and workspace pair. */
export const ScopeRow = Schema.Struct({ workspaceId: Text, userId: Text })

/** A single id column. */
export const IdRow = Schema.Struct({ id: Text })

/**
 * Decodes every row of a result with `schema`; a row that does not fit is a `StoreError` about `what`.
 */
export const decodeRows = <A, I>(schema: Schema.Schema<A, I>, what: string) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (rows: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<A>, StoreError> =>
    Effect.mapError(decode(rows), storeError(`reading ${what}`))
}
