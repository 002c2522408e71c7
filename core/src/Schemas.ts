/**
 * The spec's types as Effect Schemas: formats (UUID, Color, Timestamp, Cents), the resources, the request bodies and
 * the responses. One source for validation, the OpenAPI document and the conformance kit's arbitraries.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

// ---------------------------------------------------------------------------------------------------------------------
// Formats
// ---------------------------------------------------------------------------------------------------------------------

/**
 * The spec's UUID rule: 8-4-4-4-12 hex digits, version digit 1 to 8, variant digit 8, 9, a or b (either case), plus
 * the all-zero and the all-f UUID.
 *
 * @since 0.1.0
 */
export const UUID_PATTERN =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$/

/**
 * A UUID as the spec defines it. Accepts either case; Stint writes ids in lowercase.
 *
 * @since 0.1.0
 */
export const Uuid = Schema.String.pipe(Schema.pattern(UUID_PATTERN)).annotations({
  identifier: "Uuid",
  title: "UUID",
  description: "8-4-4-4-12 hex digits, version 1-8, variant 8/9/a/b; the nil and max UUIDs are also accepted",
  jsonSchema: { type: "string", format: "uuid", pattern: UUID_PATTERN.source }
})

/** @since 0.1.0 */
export const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/

/** @since 0.1.0 */
export const DEFAULT_COLOR = "#ff5c35"

/**
 * `#rrggbb`, returned exactly as stored.
 *
 * @since 0.1.0
 */
export const Color = Schema.String.pipe(
  // The description below is for the OpenAPI document: as the refusal's wording it would read as a second format.
  Schema.pattern(COLOR_PATTERN, { message: () => "must be #rrggbb (# and six hex digits)" })
).annotations({
  identifier: "Color",
  description: `#rrggbb; ${DEFAULT_COLOR} where a color is absent`
})

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
    : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31

/** The ASCII digit at `i` as a number, or -1 (also past the end). */
const digitAt = (input: string, i: number): number => {
  const c = input.charCodeAt(i) - 48
  return c >= 0 && c <= 9 ? c : -1
}

/** Two ASCII digits at `i` as a number, or -1. */
const twoDigits = (input: string, i: number): number => {
  const a = digitAt(input, i), b = digitAt(input, i + 1)
  return a < 0 || b < 0 ? -1 : a * 10 + b
}

const DASH = 45, COLON = 58, DOT = 46, PLUS = 43

/**
 * Parses an RFC 3339 timestamp (seconds required, optional fraction, `Z` or a numeric offset, calendar-valid date) to
 * epoch milliseconds; `undefined` when the string breaks the rule. Fractions beyond milliseconds are truncated.
 * The grammar is `^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$` (ASCII digits), read
 * character by character: a million-row fixture parses two timestamps a row.
 *
 * @since 0.1.0
 */
export const parseTimestamp = (input: string): number | undefined => {
  const length = input.length
  if (length < 20) return undefined
  const century = twoDigits(input, 0), yy = twoDigits(input, 2)
  const month = twoDigits(input, 5), day = twoDigits(input, 8)
  const hour = twoDigits(input, 11), minute = twoDigits(input, 14), second = twoDigits(input, 17)
  const t = input.charCodeAt(10)
  if (
    century < 0 || yy < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0 ||
    input.charCodeAt(4) !== DASH || input.charCodeAt(7) !== DASH || (t !== 84 && t !== 116) ||
    input.charCodeAt(13) !== COLON || input.charCodeAt(16) !== COLON
  ) return undefined
  let i = 19
  let millis = 0
  if (input.charCodeAt(i) === DOT) {
    const first = ++i
    for (let d = digitAt(input, i); d >= 0; d = digitAt(input, ++i)) if (i - first < 3) millis = millis * 10 + d
    if (i === first) return undefined
    for (let n = i - first; n < 3; n++) millis *= 10
  }
  let offsetMinutes = 0
  const zone = input.charCodeAt(i)
  if (zone === 90 || zone === 122) {
    if (i + 1 !== length) return undefined
  } else if (zone === PLUS || zone === DASH) {
    const offH = twoDigits(input, i + 1), offM = twoDigits(input, i + 4)
    if (i + 6 !== length || offH < 0 || offM < 0 || input.charCodeAt(i + 3) !== COLON) return undefined
    if (offH > 23 || offM > 59) return undefined
    offsetMinutes = (zone === DASH ? -1 : 1) * (offH * 60 + offM)
  } else {
    return undefined
  }
  const year = century * 100 + yy
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59) return undefined
  let utc = Date.UTC(year, month - 1, day, hour, minute, second, millis)
  if (year < 100) {
    // Date.UTC maps years 0..99 to 1900..1999; setUTCFullYear puts them back.
    const date = new Date(utc)
    date.setUTCFullYear(year, month - 1, day)
    utc = date.getTime()
  }
  return utc - offsetMinutes * 60_000
}

const yearStart = (year: number): number => {
  const date = new Date(0)
  date.setUTCFullYear(year, 0, 1)
  return date.getTime()
}

/** The first instant Stint can write (`0000-01-01T00:00:00.000Z`). @since 0.1.0 */
export const MIN_INSTANT = yearStart(0)

/** The last instant Stint can write (`9999-12-31T23:59:59.999Z`). @since 0.1.0 */
export const MAX_INSTANT = yearStart(10000) - 1

/**
 * Whether an instant can be written as a Timestamp. An offset can carry a valid date-time out of the four-digit
 * years once converted to UTC (`9999-12-31T23:00:00-02:00`); such an instant is refused where it would be stored.
 *
 * @since 0.1.0
 */
export const isWritableInstant = (millis: number): boolean => millis >= MIN_INSTANT && millis <= MAX_INSTANT

/**
 * Writes epoch milliseconds the way Stint always writes timestamps: UTC, `Z`, millisecond precision: what
 * `Date.prototype.toISOString` writes, computed without a `Date` for the instants Stint can write (a page of history
 * writes some forty; this takes about a third of the time).
 *
 * @since 0.1.0
 */
export const formatTimestamp = (millis: number): string => {
  if (!(Number.isInteger(millis) && millis >= MIN_INSTANT && millis <= MAX_INSTANT)) return new Date(millis).toISOString()
  const days = Math.floor(millis / DAY_MILLIS)
  let rest = millis - days * DAY_MILLIS
  const { day, month, year } = civilDate(days)
  const ms = rest % 1000
  rest = (rest - ms) / 1000
  const seconds = rest % 60
  rest = (rest - seconds) / 60
  const minutes = rest % 60
  const hours = (rest - minutes) / 60
  return `${TWO_DIGITS[Math.floor(year / 100)]}${TWO_DIGITS[year % 100]}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}T${
    TWO_DIGITS[hours]
  }:${TWO_DIGITS[minutes]}:${TWO_DIGITS[seconds]}.${THREE_DIGITS[ms]}Z`
}

const DAY_MILLIS = 86_400_000
const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"))
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"))

/** The proleptic Gregorian date of a day number (days since 1970-01-01), by H. Hinnant's `civil_from_days`. */
const civilDate = (days: number): { readonly year: number; readonly month: number; readonly day: number } => {
  const shifted = days + 719_468
  const era = Math.floor(shifted / 146_097)
  const dayOfEra = shifted - era * 146_097
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1_460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365
  )
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100))
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153)
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
  return {
    year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0),
    month,
    day: dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1
  }
}

/**
 * An RFC 3339 date-time with seconds, an optional fraction and a mandatory `Z` or offset; calendar-valid only.
 *
 * @since 0.1.0
 */
export const Timestamp = Schema.String.pipe(
  Schema.filter((s) => parseTimestamp(s) !== undefined, {
    message: () => "must be an RFC 3339 date-time with seconds and a Z or ±hh:mm offset, on a valid calendar date"
  })
).annotations({
  identifier: "Timestamp",
  jsonSchema: { type: "string", format: "date-time" }
})

/** @since 0.1.0 */
export const INT32_MAX = 2147483647

/**
 * An integer from 0 to 2147483647 (cents, seconds).
 *
 * @since 0.1.0
 */
export const NonNegativeInt32 = Schema.Int.pipe(Schema.between(0, INT32_MAX)).annotations({
  identifier: "NonNegativeInt32"
})

/** @since 0.1.0 */
export const Cents = NonNegativeInt32.annotations({ identifier: "Cents", description: "US cents, 0 to 2147483647" })

/**
 * Counts Unicode code points, as JSON Schema's `minLength`/`maxLength` do.
 *
 * @since 0.1.0
 */
export const codePointLength = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * Whether a string is well-formed Unicode (no unpaired surrogate, which JSON can carry but no database stores as
 * sent).
 *
 * @since 0.1.0
 */
export const isWellFormed = (s: string): boolean => !LONE_SURROGATE.test(s)

/**
 * Text that is stored exactly as sent: well-formed Unicode only.
 *
 * @since 0.1.0
 */
export const Text = Schema.String.pipe(
  Schema.filter(isWellFormed, { message: () => "must be well-formed Unicode (no unpaired surrogates)" })
)

/**
 * A string whose length in code points lies in `[min, max]`.
 *
 * @since 0.1.0
 */
export const StringCodePoints = (min: number, max: number) =>
  Text.pipe(
    Schema.filter((s) => {
      const n = codePointLength(s)
      return n >= min && n <= max
    }, {
      message: () => `must be ${min} to ${max} characters long`,
      jsonSchema: { minLength: min, maxLength: max }
    })
  )

/** @since 0.1.0 */
export const NonEmptyName = Text.pipe(
  Schema.filter((s) => s.length > 0, { message: () => "must not be empty", jsonSchema: { minLength: 1 } })
)

/** @since 0.1.0 */
export const EarningsDecimal = Schema.String.pipe(Schema.pattern(/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/)).annotations({
  identifier: "Decimal",
  description: "US dollars as an exact decimal string"
})

// ---------------------------------------------------------------------------------------------------------------------
// Enumerations
// ---------------------------------------------------------------------------------------------------------------------

/** @since 0.1.0 */
export const SCOPES = ["clients:read", "projects:read", "projects:write", "timers:read", "timers:write"] as const

/** @since 0.1.0 */
export const Scope = Schema.Literal(...SCOPES).annotations({ identifier: "Scope" })
/** @since 0.1.0 */
export type Scope = typeof Scope.Type

/** @since 0.1.0 */
export const Role = Schema.Literal("owner", "admin", "member").annotations({ identifier: "Role" })
/** @since 0.1.0 */
export type Role = typeof Role.Type

/** @since 0.1.0 */
export const EntryStatus = Schema.Literal("active", "completed", "voided").annotations({ identifier: "EntryStatus" })
/** @since 0.1.0 */
export type EntryStatus = typeof EntryStatus.Type

// ---------------------------------------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------------------------------------

const exact = { parseOptions: { onExcessProperty: "error" as const } }

/** @since 0.1.0 */
export const Client = Schema.Struct({
  id: Uuid,
  name: NonEmptyName,
  color: Color
}).annotations({ identifier: "Client", ...exact })
/** @since 0.1.0 */
export type Client = typeof Client.Type

/** @since 0.1.0 */
export const Project = Schema.Struct({
  id: Uuid,
  clientId: Uuid,
  name: NonEmptyName,
  color: Color
}).annotations({ identifier: "Project", ...exact })
/** @since 0.1.0 */
export type Project = typeof Project.Type

/** @since 0.1.0 */
export const Note = StringCodePoints(0, 500).annotations({ identifier: "Note" })

/** @since 0.1.0 */
export const Timer = Schema.Struct({
  id: Uuid,
  clientId: Uuid,
  clientName: NonEmptyName,
  projectId: Uuid,
  projectName: NonEmptyName,
  color: Color,
  billable: Schema.Boolean,
  note: Schema.NullOr(Note),
  startedAt: Timestamp,
  serverNow: Timestamp,
  elapsedSeconds: NonNegativeInt32,
  payRateCents: Cents,
  currency: Schema.Literal("USD")
}).annotations({ identifier: "Timer", ...exact })
/** @since 0.1.0 */
export type Timer = typeof Timer.Type

/** @since 0.1.0 */
export const TimeEntry = Schema.Struct({
  id: Uuid,
  clientId: Uuid,
  clientName: NonEmptyName,
  projectId: Uuid,
  projectName: NonEmptyName,
  color: Color,
  status: EntryStatus,
  billable: Schema.Boolean,
  note: Schema.NullOr(Note),
  startedAt: Timestamp,
  endedAt: Schema.NullOr(Timestamp),
  durationSeconds: Schema.NullOr(NonNegativeInt32),
  payRateCents: Cents,
  earnings: Schema.NullOr(EarningsDecimal),
  currency: Schema.Literal("USD")
}).annotations({ identifier: "TimeEntry", ...exact })
/** @since 0.1.0 */
export type TimeEntry = typeof TimeEntry.Type

/** @since 0.1.0 */
export const ErrorCode = Schema.String.pipe(Schema.pattern(/^[A-Z][A-Z0-9_]*$/))

/** @since 0.1.0 */
export const ErrorBody = Schema.Struct({
  error: Schema.Struct({
    code: ErrorCode,
    message: Schema.String.pipe(Schema.minLength(1)),
    details: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  }),
  requestId: Schema.String.pipe(Schema.minLength(1))
}).annotations({ identifier: "ErrorBody" })
/** @since 0.1.0 */
export type ErrorBody = typeof ErrorBody.Type

// ---------------------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------------------

/** @since 0.1.0 */
export const ProjectName = StringCodePoints(1, 200).annotations({ identifier: "ProjectName" })

/** @since 0.1.0 */
export const CreateProjectBody = Schema.Struct({
  clientId: Uuid,
  name: ProjectName,
  color: Schema.optional(Schema.NullOr(Color))
}).annotations({ identifier: "CreateProjectRequest", ...exact })
/** @since 0.1.0 */
export type CreateProjectBody = typeof CreateProjectBody.Type

/** @since 0.1.0 */
export const StartTimerBody = Schema.Struct({
  projectId: Uuid,
  billable: Schema.optional(Schema.Boolean),
  note: Schema.optional(Note)
}).annotations({ identifier: "StartTimerRequest", ...exact })
/** @since 0.1.0 */
export type StartTimerBody = typeof StartTimerBody.Type

/** @since 0.1.0 */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]+$/

/** @since 0.1.0 */
export const CursorParam = Schema.String.pipe(
  Schema.pattern(CURSOR_PATTERN),
  Schema.minLength(1),
  Schema.maxLength(1024)
).annotations({ identifier: "Cursor", description: "opaque nextCursor of the preceding page" })

/** @since 0.1.0 */
export const LimitParam = Schema.String.pipe(
  // Exactly the decimal integers 1 to 100 without sign or leading zero, so JSON Schema can say it too.
  Schema.pattern(/^(?:[1-9][0-9]?|100)$/, { message: () => "must be a decimal integer from 1 to 100" })
).annotations({ identifier: "Limit", description: "decimal integer 1 to 100; default 20" })

/** @since 0.1.0 */
export const ListProjectsQuery = Schema.Struct({ clientId: Uuid })

/** @since 0.1.0 */
export const ListTimeEntriesQuery = Schema.Struct({
  projectId: Schema.optional(Uuid),
  cursor: Schema.optional(CursorParam),
  limit: Schema.optional(LimitParam)
})

// ---------------------------------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------------------------------

/** @since 0.1.0 */
export const ListClientsResponse = Schema.Struct({
  clients: Schema.Array(Client),
  canCreateProjects: Schema.Boolean
}).annotations({ identifier: "ListClientsResponse" })
/** @since 0.1.0 */
export type ListClientsResponse = typeof ListClientsResponse.Type

/** @since 0.1.0 */
export const ListProjectsResponse = Schema.Struct({
  projects: Schema.Array(Project)
}).annotations({ identifier: "ListProjectsResponse" })
/** @since 0.1.0 */
export type ListProjectsResponse = typeof ListProjectsResponse.Type

/** @since 0.1.0 */
export const CreateProjectResponse = Schema.Struct({
  project: Project
}).annotations({ identifier: "CreateProjectResponse" })
/** @since 0.1.0 */
export type CreateProjectResponse = typeof CreateProjectResponse.Type

/** @since 0.1.0 */
export const ActiveTimerResponse = Schema.Struct({
  timer: Schema.NullOr(Timer)
}).annotations({ identifier: "ActiveTimerResponse" })
/** @since 0.1.0 */
export type ActiveTimerResponse = typeof ActiveTimerResponse.Type

/** @since 0.1.0 */
export const TimerMutationResponse = Schema.Struct({
  timer: Schema.NullOr(Timer),
  stoppedTimerId: Schema.NullOr(Uuid)
}).annotations({ identifier: "TimerMutationResponse" })
/** @since 0.1.0 */
export type TimerMutationResponse = typeof TimerMutationResponse.Type

/** @since 0.1.0 */
export const TimeEntriesPage = Schema.Struct({
  entries: Schema.Array(TimeEntry),
  nextCursor: Schema.NullOr(CursorParam)
}).annotations({ identifier: "TimeEntriesPage" })
/** @since 0.1.0 */
export type TimeEntriesPage = typeof TimeEntriesPage.Type
