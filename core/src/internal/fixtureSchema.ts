/**
 * The fixture file's Schema, section by section, and decoding that names the JSON path of the first problem: a whole
 * file at once, or one element of one section at a time (with a fast check derived from the same Schema, so that a
 * million valid rows decode in a second or two and an invalid one is worded exactly as the whole-file decode words it).
 */
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as ApiKey from "../ApiKey.js"
import { AdminInputInvalid } from "../Errors.js"
import { Cents, Color, EntryStatus, NonEmptyName, Note, Role, Scope, Timestamp, Uuid } from "../Schemas.js"
import * as FastGuard from "./fastGuard.js"
import * as Issues from "./issues.js"

const strict = { parseOptions: { onExcessProperty: "error" as const } }
const Key = Schema.String.pipe(Schema.pattern(ApiKey.WELL_FORMED)).annotations({
  message: () => "must be stint_ followed by 16 to 200 base64url characters"
})

/** One element of each top-level array, in the order the file's Schema lists (and loading reads) them. */
export const Sections = {
  workspaces: Schema.Struct({ id: Uuid, name: NonEmptyName }).annotations(strict),
  users: Schema.Struct({ id: Uuid, name: NonEmptyName, email: NonEmptyName }).annotations(strict),
  memberships: Schema.Struct({ workspaceId: Uuid, userId: Uuid, role: Role, payRateCents: Schema.optional(Cents) })
    .annotations(strict),
  clients: Schema.Struct({
    id: Uuid,
    workspaceId: Uuid,
    name: NonEmptyName,
    color: Schema.optional(Schema.NullOr(Color)),
    archived: Schema.optional(Schema.Boolean)
  }).annotations(strict),
  projects: Schema.Struct({
    id: Uuid,
    clientId: Uuid,
    name: NonEmptyName,
    color: Schema.optional(Schema.NullOr(Color)),
    archived: Schema.optional(Schema.Boolean)
  }).annotations(strict),
  assignments: Schema.Struct({ projectId: Uuid, userId: Uuid, payRateCents: Schema.optional(Cents) })
    .annotations(strict),
  apiKeys: Schema.Struct({
    id: Schema.optional(Uuid),
    key: Schema.optional(Key),
    userId: Uuid,
    workspaceId: Uuid,
    scopes: Schema.optional(Schema.Array(Scope)),
    createdAt: Schema.optional(Timestamp),
    revoked: Schema.optional(Schema.Boolean)
  }).annotations(strict),
  timeEntries: Schema.Struct({
    id: Uuid,
    userId: Uuid,
    workspaceId: Uuid,
    projectId: Uuid,
    status: EntryStatus,
    billable: Schema.optional(Schema.Boolean),
    note: Schema.optional(Schema.NullOr(Note)),
    startedAt: Timestamp,
    endedAt: Schema.optional(Schema.NullOr(Timestamp)),
    payRateCents: Schema.optional(Cents)
  }).annotations(strict)
}

/** The name of a top-level array. */
export type SectionName = keyof typeof Sections

/** The top-level arrays in the order they are read. */
export const SECTION_NAMES: ReadonlyArray<SectionName> = [
  "workspaces",
  "users",
  "memberships",
  "clients",
  "projects",
  "assignments",
  "apiKeys",
  "timeEntries"
]

/** The whole file. Every top-level array is optional; unknown properties are refused. */
export const FixtureFile = Schema.Struct({
  workspaces: Schema.optional(Schema.Array(Sections.workspaces)),
  users: Schema.optional(Schema.Array(Sections.users)),
  memberships: Schema.optional(Schema.Array(Sections.memberships)),
  clients: Schema.optional(Schema.Array(Sections.clients)),
  projects: Schema.optional(Schema.Array(Sections.projects)),
  assignments: Schema.optional(Schema.Array(Sections.assignments)),
  apiKeys: Schema.optional(Schema.Array(Sections.apiKeys)),
  timeEntries: Schema.optional(Schema.Array(Sections.timeEntries))
}).annotations({ identifier: "Fixture", ...strict })

/** A decoded fixture file. */
export type FixtureFile = typeof FixtureFile.Type

/** One decoded element of `section`. */
export type Element<S extends SectionName> = (typeof Sections)[S]["Type"]

/** `$`, `$.name`, `$.name[3]`, … */
export const jsonPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, part) => typeof part === "number" ? `${acc}[${part}]` : `${acc}.${String(part)}`, "$")

const firstProblem = (error: ParseResult.ParseError, prefix: ReadonlyArray<PropertyKey>): AdminInputInvalid => {
  // Bounded: a message never writes out the offending value (a deeply nested one overflowed the stack).
  const [first] = Issues.format(error, 1)
  return new AdminInputInvalid({
    path: jsonPath([...prefix, ...(first?.segments ?? [])]),
    message: first?.message ?? "invalid fixture"
  })
}

const decodeFileEither = Schema.decodeUnknownEither(FixtureFile, { onExcessProperty: "error" })

/** Decodes a whole fixture, naming the JSON path of the first problem. */
export const decodeFile = (input: unknown): Either.Either<FixtureFile, AdminInputInvalid> =>
  Either.mapLeft(decodeFileEither(input), (error) => firstProblem(error, []))

/** The problem the whole-file decode finds in a file made of the one top-level member `name: value`. */
export const memberProblem = (name: string, value: unknown): AdminInputInvalid =>
  Either.match(decodeFile({ [name]: value }), {
    onLeft: (problem) => problem,
    onRight: () => new AdminInputInvalid({ path: jsonPath([name]), message: "invalid fixture" })
  })

/** Decodes elements of one section, fast when they are valid. */
export type ElementDecoder<S extends SectionName> = (
  input: unknown,
  index: number
) => Either.Either<Element<S>, AdminInputInvalid>

const makeDecoder = <S extends SectionName>(section: S): ElementDecoder<S> => {
  const schema: Schema.Schema<Element<S>, Element<S>> = Sections[section] as never
  const slow = Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })
  const fast = FastGuard.compile(schema)
  return (input, index) => {
    // The guard accepts only values the Schema decodes to themselves.
    if (fast !== undefined && fast(input)) return Either.right(input as Element<S>)
    return Either.mapLeft(slow(input), (error) => firstProblem(error, [section, index]))
  }
}

const decoders = new Map<SectionName, ElementDecoder<SectionName>>()

/** The element decoder of `section` (compiled once). */
export const elementDecoder = <S extends SectionName>(section: S): ElementDecoder<S> => {
  let decoder = decoders.get(section)
  if (decoder === undefined) {
    decoder = makeDecoder(section)
    decoders.set(section, decoder)
  }
  return decoder as ElementDecoder<S>
}
