/**
 * Plain decoders of the rows the public operations read (columns aliased to the records' field names), checked field by
 * field without building a parser per row: anything unexpected throws, and the caller turns that into a `StoreError`.
 */
import type { IdempotencyRecord } from "@stint/core/Idempotency"
import type { EntryRecord, KeyRecord, TrackingTarget } from "@stint/core/Records"
import { type EntryStatus, type Role, SCOPES, type Scope } from "@stint/core/Schemas"

type Row = Readonly<Record<string, unknown>>

const fail = (name: string, expected: string): never => {
  throw new Error(`column ${name}: expected ${expected}`)
}

const text = (row: Row, name: string): string => {
  const value = row[name]
  return typeof value === "string" ? value : fail(name, "text")
}

const nullableText = (row: Row, name: string): string | null => row[name] === null ? null : text(row, name)

const number = (row: Row, name: string): number => {
  const value = row[name]
  return typeof value === "number" && Number.isFinite(value) ? value : fail(name, "a number")
}

const nullableNumber = (row: Row, name: string): number | null => row[name] === null ? null : number(row, name)

const flag = (row: Row, name: string): boolean => {
  const value = row[name]
  return value === 1 ? true : value === 0 ? false : fail(name, "0 or 1")
}

const oneOf = <A extends string>(row: Row, name: string, values: ReadonlyArray<A>): A => {
  const value = row[name]
  return values.includes(value as A) ? (value as A) : fail(name, values.join(" | "))
}

const STATUSES: ReadonlyArray<EntryStatus> = ["active", "completed", "voided"]
const ROLES: ReadonlyArray<Role> = ["owner", "admin", "member"]

const scopes = (row: Row, name: string): ReadonlyArray<Scope> => {
  const parsed: unknown = JSON.parse(text(row, name))
  if (!Array.isArray(parsed) || !parsed.every((s) => SCOPES.includes(s))) return fail(name, "a JSON list of scopes")
  return parsed as ReadonlyArray<Scope>
}

/** An API key with its user's membership (`role`, `memberRateCents` both null when there is none). */
export const key = (row: Row): KeyRecord => {
  const role = row["role"] === null ? null : oneOf(row, "role", ROLES)
  return {
    id: text(row, "id"),
    userId: text(row, "userId"),
    workspaceId: text(row, "workspaceId"),
    scopes: scopes(row, "scopes"),
    createdAt: number(row, "createdAt"),
    revokedAt: nullableNumber(row, "revokedAt"),
    membership: role === null || row["memberRateCents"] === null
      ? null
      : { role, payRateCents: number(row, "memberRateCents") }
  }
}

/** A time entry joined with its project and client. */
export const entry = (row: Row): EntryRecord => ({
  id: text(row, "id"),
  projectId: text(row, "projectId"),
  projectName: text(row, "projectName"),
  clientId: text(row, "clientId"),
  clientName: text(row, "clientName"),
  color: text(row, "color"),
  status: oneOf(row, "status", STATUSES),
  billable: flag(row, "billable"),
  note: nullableText(row, "note"),
  startedAt: number(row, "startedAt"),
  endedAt: nullableNumber(row, "endedAt"),
  payRateCents: number(row, "payRateCents")
})

/** A project with its client and the user's assignment rate. */
export const target = (row: Row): TrackingTarget & { readonly workspaceId: string } => ({
  id: text(row, "id"),
  workspaceId: text(row, "workspaceId"),
  clientId: text(row, "clientId"),
  name: text(row, "name"),
  color: text(row, "color"),
  archived: flag(row, "archived"),
  clientName: text(row, "clientName"),
  clientArchived: flag(row, "clientArchived"),
  assignedRateCents: nullableNumber(row, "assignedRateCents")
})

/** A stored idempotency record. */
export const idempotency = (row: Row): IdempotencyRecord => {
  const status = nullableNumber(row, "responseStatus")
  const body = nullableText(row, "responseBody")
  return {
    key: text(row, "key"),
    fingerprint: text(row, "fingerprint"),
    createdAt: number(row, "createdAt"),
    response: status === null || body === null ? null : { status, body }
  }
}
