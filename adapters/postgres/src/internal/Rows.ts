/**
 * Reading rows back into the core's records: each field is checked for the type the schema promises, strings are
 * unescaped (`Text.ts`), and a row that is not what the adapter's own SQL produces is a `StoreError`, never a
 * crash.
 */
import type { StoreError } from "@stint/core/Errors"
import type { IdempotencyRecord } from "@stint/core/Idempotency"
import type {
  ApiKeyInfo,
  ClientRecord,
  EntryRecord,
  KeyRecord,
  MembershipRow,
  ProjectRecord,
  TrackingTarget
} from "@stint/core/Records"
import type { EntryStatus, Role, Scope } from "@stint/core/Schemas"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Row } from "./Database.js"

export type { Row }
import { storeError } from "./Failure.js"
import * as Text from "./Text.js"

class Malformed extends Error {}

const field = (row: Row, name: string): unknown => {
  if (!(name in row)) throw new Malformed(`missing column ${name}`)
  return row[name]
}

/** A `text` or `uuid` column. */
export const string = (row: Row, name: string): string => {
  const value = field(row, name)
  if (typeof value !== "string") throw new Malformed(`${name} is not a string`)
  return value
}

/** A `text` column the adapter escaped on the way in. */
export const text = (row: Row, name: string): string => Text.decode(string(row, name))

const nullableText = (row: Row, name: string): string | null => row[name] === null ? null : text(row, name)

/** An `integer` or `bigint` column (bigints are parsed as numbers, see `Database.ts`). */
export const number = (row: Row, name: string): number => {
  const value = field(row, name)
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw new Malformed(`${name} is not an integer`)
  return value
}

const nullableNumber = (row: Row, name: string): number | null => field(row, name) === null ? null : number(row, name)

/** A `boolean` column. */
export const boolean = (row: Row, name: string): boolean => {
  const value = field(row, name)
  if (typeof value !== "boolean") throw new Malformed(`${name} is not a boolean`)
  return value
}

const strings = (row: Row, name: string): ReadonlyArray<string> => {
  const value = field(row, name)
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    throw new Malformed(`${name} is not a list of strings`)
  }
  return value
}

/** A `json` column holding an object, or `null`. */
export const object = (row: Row, name: string): Row | null => {
  const value = field(row, name)
  if (value === null) return null
  if (typeof value !== "object" || Array.isArray(value)) throw new Malformed(`${name} is not an object`)
  return value as Row
}

/** A `json` column holding a list of objects. */
export const objects = (row: Row, name: string): ReadonlyArray<Row> => {
  const value = field(row, name)
  if (!Array.isArray(value) || !value.every((item) => typeof item === "object" && item !== null)) {
    throw new Malformed(`${name} is not a list of objects`)
  }
  return value as ReadonlyArray<Row>
}

/** A `json` column holding a list of strings. */
export const stringList = strings

/** Applies a reader, turning a malformed row into a `StoreError`. */
export const read = <A>(what: string, f: () => A): Effect.Effect<A, StoreError> =>
  Effect.try({ try: f, catch: (error) => storeError(`reading ${what}`, error) })

/** Reads every row with `f`, turning a malformed row into a `StoreError`. */
export const each = <A>(what: string, rows: ReadonlyArray<Row>, f: (row: Row) => A): Effect.Effect<Array<A>, StoreError> => {
  try {
    return Effect.succeed(rows.map(f))
  } catch (error) {
    return Effect.fail(storeError(`reading ${what}`, error))
  }
}

/** A time entry with its project's and client's names (columns named like `EntryRecord`'s fields). */
export const entry = (row: Row): EntryRecord => ({
  id: string(row, "id"),
  projectId: string(row, "projectId"),
  projectName: text(row, "projectName"),
  clientId: string(row, "clientId"),
  clientName: text(row, "clientName"),
  color: string(row, "color"),
  status: string(row, "status") as EntryStatus,
  billable: boolean(row, "billable"),
  note: nullableText(row, "note"),
  startedAt: number(row, "startedAt"),
  endedAt: nullableNumber(row, "endedAt"),
  payRateCents: number(row, "payRateCents")
})

/** The `activeEntry` column of a read along with authentication (`Queries.authenticate`): a JSON entry or null. */
export const activeEntry = (row: Row): Option.Option<EntryRecord> => {
  const value = object(row, "activeEntry")
  return value === null ? Option.none() : Option.some(entry(value))
}

/**
 * A project. Like the memory store, the record also carries the project's `workspaceId`.
 */
export const project = (row: Row): ProjectRecord => {
  const record: ProjectRecord & { readonly workspaceId: string } = {
    id: string(row, "id"),
    workspaceId: string(row, "workspaceId"),
    clientId: string(row, "clientId"),
    name: text(row, "name"),
    color: string(row, "color"),
    archived: boolean(row, "archived"),
    clientArchived: boolean(row, "clientArchived")
  }
  return record
}

/** A project as a tracking target of one user. */
export const target = (row: Row): TrackingTarget => ({
  ...project(row),
  clientName: text(row, "clientName"),
  assignedRateCents: nullableNumber(row, "assignedRateCents")
})

/** A client with whether the user has an assigned unarchived project in it. */
export const client = (row: Row): ClientRecord => ({
  id: string(row, "id"),
  name: text(row, "name"),
  color: string(row, "color"),
  hasAssignedProject: boolean(row, "hasAssignedProject")
})

/** Scopes as `array_to_string(scopes, ' ')` gives them. */
const spaced = (row: Row, name: string): ReadonlyArray<string> => {
  const value = string(row, name)
  return value === "" ? [] : value.split(" ")
}

/** An API key with its user's current membership (its scopes space-separated, see `Queries.authenticate`). */
export const key = (row: Row): KeyRecord => {
  const role = row["role"]
  return {
    id: string(row, "id"),
    userId: string(row, "userId"),
    workspaceId: string(row, "workspaceId"),
    scopes: spaced(row, "scopes") as ReadonlyArray<Scope>,
    createdAt: number(row, "createdAt"),
    revokedAt: nullableNumber(row, "revokedAt"),
    membership: role === null ? null : { role: string(row, "role") as Role, payRateCents: number(row, "payRateCents") }
  }
}

/** An API key's metadata. */
export const keyInfo = (row: Row): ApiKeyInfo => ({
  id: string(row, "id"),
  userId: string(row, "userId"),
  workspaceId: string(row, "workspaceId"),
  scopes: strings(row, "scopes") as ReadonlyArray<Scope>,
  createdAt: number(row, "createdAt"),
  revokedAt: nullableNumber(row, "revokedAt")
})

/** A membership. */
export const membership = (row: Row): MembershipRow => ({
  workspaceId: string(row, "workspaceId"),
  userId: string(row, "userId"),
  role: string(row, "role") as Role,
  payRateCents: number(row, "payRateCents")
})

/** A stored idempotency record. */
export const idempotency = (row: Row): IdempotencyRecord => ({
  key: text(row, "key"),
  fingerprint: string(row, "fingerprint"),
  createdAt: number(row, "createdAt"),
  response: row["status"] === null ? null : { status: number(row, "status"), body: text(row, "body") }
})
