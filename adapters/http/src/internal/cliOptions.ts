/**
 * Options and helpers shared by the `stint` commands: the database address, ids, JSON output.
 *
 * @since 0.1.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import { Schemas, type Store } from "@stint/core"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Database from "../Database.js"
import { CliError } from "./cliFailure.js"
import * as Redact from "./redact.js"

/** `--database URL`, else `STINT_DATABASE_URL`, else `sqlite:./stint.db`. */
export const database: Options.Options<string> = Options.text("database").pipe(
  Options.withDescription(
    "Database address: sqlite:PATH or postgres://user:pass@host:port/db. " +
      "Environment: STINT_DATABASE_URL. Default: sqlite:./stint.db. Pending migrations are applied first."
  ),
  Options.withPseudoName("URL"),
  Options.withFallbackConfig(Config.string("STINT_DATABASE_URL")),
  Options.withDefault(Database.DEFAULT_URL)
)

/** Checks an option's value with a schema; a mismatch names the flag, the value and the expected form. */
export const check = <A, B extends A>(
  flag: string,
  schema: Schema.Schema<B, A>,
  expected: string
) =>
(self: Options.Options<A>): Options.Options<B> =>
  Options.mapEffect(self, (value) =>
    Either.match(Schema.decodeEither(schema)(value), {
      onLeft: () =>
        Effect.fail(
          ValidationError.invalidValue(HelpDoc.p(Redact.keys(`--${flag} must be ${expected}, got ${JSON.stringify(value)}`)))
        ),
      onRight: Effect.succeed
    }))

/**
 * A whole number option written in decimal digits, at most `max`. `Options.integer` reads its value as `Number` does
 * (`0x10` is 16, `1e3` 1000, ` 80` 80, `+0` and `0.0` 0): a typo would bind another port or store another rate.
 */
export const decimal = (flag: string, max: number, expected: string): Options.Options<number> =>
  Options.text(flag).pipe(Options.mapEffect((text) =>
    /^[0-9]+$/.test(text) && Number(text) <= max
      ? Effect.succeed(Number(text))
      : Effect.fail(
        ValidationError.invalidValue(HelpDoc.p(Redact.keys(`--${flag} must be ${expected}, got ${JSON.stringify(text)}`)))
      )
  ))

/** A required UUID option, written in lowercase. */
export const uuid = (flag: string, description: string): Options.Options<string> =>
  Options.text(flag).pipe(
    check(flag, Schemas.Uuid, "a UUID"),
    Options.map((id) => id.toLowerCase()),
    Options.withPseudoName("UUID"),
    Options.withDescription(description)
  )

/** A required non-empty text option. */
export const name = (flag: string, description: string): Options.Options<string> =>
  Options.text(flag).pipe(
    check(flag, Schemas.NonEmptyName, "non-empty"),
    Options.withPseudoName("TEXT"),
    Options.withDescription(description)
  )

/** `--pay-rate-cents N`, optional. */
export const payRate = (description: string) =>
  decimal("pay-rate-cents", 2147483647, "an integer from 0 to 2147483647").pipe(
    Options.withPseudoName("CENTS"),
    Options.withDescription(description),
    Options.optional
  )

/** `--color #rrggbb`, optional. */
export const color = Options.text("color").pipe(
  check("color", Schemas.Color, "#rrggbb"),
  Options.withPseudoName("#RRGGBB"),
  Options.withDescription("Color #rrggbb (default #ff5c35)."),
  Options.optional
)

/** Errors of standard output are reported to `printLine`'s callback; without a listener they would crash the process. */
let listening = false

/**
 * Writes one line on stdout, and fails (exit 1, one line on stderr) when it cannot be written: a full disk, a closed
 * pipe. What a command prints may be the only copy of what it did (a generated key's plaintext), so a lost output is
 * a failure, not a success; the message says that the command's change was made.
 */
export const printLine = (text: string): Effect.Effect<void, CliError> =>
  Effect.async<void, CliError>((resume) => {
    if (!listening) {
      listening = true
      process.stdout.on("error", () => {})
    }
    try {
      process.stdout.write(`${text}\n`, (error) => resume(error == null ? Effect.void : Effect.fail(lost(error))))
    } catch (error) {
      resume(Effect.fail(lost(error)))
    }
  })

const lost = (error: unknown): CliError =>
  new CliError({
    message: `could not write to standard output (${
      Predicate.hasProperty(error, "code") ? String(error.code) : String(error)
    }): the command's changes were made, but what it printed is lost`
  })

/** Prints a value as JSON on stdout (see `printLine`). */
export const printJson = (value: unknown): Effect.Effect<void, CliError> => printLine(JSON.stringify(value, null, 2))

/**
 * Effect's log lines (`--log-level debug`: the migrations, say) on stderr, in the default logger's format: a command's
 * stdout is its output (JSON a script reads), never its log.
 */
export const logToStderr = Logger.replace(
  Logger.defaultLogger,
  // Straight to the stream: the command line silences the console's `error` (@effect/cli's own error output).
  Logger.map(Logger.logfmtLogger, (line) => {
    process.stderr.write(`${line}\n`)
  })
)

/** Runs an effect against the migrated database at `url`, closing it afterwards; its log lines go to stderr. */
export const withStore = (url: string) => <A, E>(self: Effect.Effect<A, E, Store.Store>) =>
  Effect.provide(Effect.provide(self, Database.layer(url)), logToStderr)

/** The flag that gives each field of the record an admin command writes. */
const FLAG_OF: Readonly<Record<string, string>> = {
  id: "--id",
  name: "--name",
  email: "--email",
  role: "--role",
  color: "--color",
  workspaceId: "--workspace",
  userId: "--user",
  clientId: "--client",
  projectId: "--project",
  payRateCents: "--pay-rate-cents",
  startedAt: "--started-at"
}

/**
 * `withStore` for a command that writes one record from its flags: an input `Admin` refuses at one of the record's
 * fields, which it names as `Fixture.load` does (`$.apiKeys[0].userId`), is said by the flag that gave it instead
 * (`--user: unknown user`).
 */
export const withAdminStore = (url: string) => <A, E>(self: Effect.Effect<A, E, Store.Store>) =>
  withStore(url)(Effect.mapError(self, (error): E | CliError => {
    const named = namedRecord(error)
    if (named !== undefined) return named
    if (
      !Predicate.isTagged(error, "AdminInputInvalid") || !Predicate.hasProperty(error, "path") ||
      !Predicate.hasProperty(error, "message")
    ) return error
    const path = String(error.path)
    const field = /^\$(?:\.\w+\[0\])?\.(\w+)$/.exec(path)?.[1]
    const flag = field === undefined ? undefined : FLAG_OF[field]
    if (flag !== undefined) return new CliError({ message: `${flag}: ${String(error.message)}` })
    // The record as a whole (a membership or an assignment that exists already): named by its kind, not a JSON path.
    const kind = RECORD_OF[/^\$\.(\w+)\[0\]$/.exec(path)?.[1] ?? ""]
    return kind === undefined ? error : new CliError({ message: `${kind} ${String(error.message)}` })
  }))

/**
 * The records an admin command names by one flag (archive, void, move, revoke), by the entity its `RecordNotFound`
 * names: the flag, and the record's name for an operator.
 */
const NAMED_BY: Readonly<Record<string, readonly [flag: string, noun: string]>> = {
  client: ["--id", "client"],
  project: ["--id", "project"],
  timeEntry: ["--id", "entry"],
  apiKey: ["--key-id", "API key"]
}

/**
 * A record an admin command named that does not exist, or whose state refuses the change (an entry voided already),
 * said by the flags that named it (`--id: entry … not found`), not by the store's entity (`timeEntry … not found`).
 */
const namedRecord = (error: unknown): CliError | undefined => {
  const notFound = Predicate.isTagged(error, "RecordNotFound")
  if (!notFound && !Predicate.isTagged(error, "RecordConflict")) return undefined
  if (!Predicate.hasProperty(error, "entity") || !Predicate.hasProperty(error, "id")) return undefined
  // A conflict of a record a command creates (its id taken meanwhile) is said as the store says it.
  if (!notFound && error.entity !== "timeEntry") return undefined
  const what = notFound ? "not found" : Predicate.hasProperty(error, "reason") ? String(error.reason) : "conflict"
  if (error.entity === "membership") {
    // Its id is the pair `workspace/user`.
    return new CliError({ message: `${RECORD_OF["memberships"]} ${String(error.id).replace("/", " ")} ${what}` })
  }
  const named = NAMED_BY[String(error.entity)]
  return named === undefined ? undefined : new CliError({ message: `${named[0]}: ${named[1]} ${String(error.id)} ${what}` })
}

/** The record an admin command writes, by its fixture array. */
const RECORD_OF: Readonly<Record<string, string>> = {
  workspaces: "workspace",
  users: "user",
  memberships: "membership (--workspace --user)",
  clients: "client",
  projects: "project",
  assignments: "assignment (--project --user)",
  apiKeys: "API key",
  timeEntries: "entry"
}

/** `{ [key]: value }` when the option was given, `{}` otherwise (for `exactOptionalPropertyTypes` inputs). */
export const given = <K extends string, A>(key: K, value: Option.Option<A>): { readonly [P in K]?: A } =>
  Option.isSome(value) ? ({ [key]: value.value } as { readonly [P in K]?: A }) : {}
