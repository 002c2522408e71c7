/**
 * Turns whatever made a command fail into one line for stderr and an exit status: no stack traces, no cause dumps.
 *
 * @since 0.1.0
 */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"

/** Exit status of a refused operation or a failed database. */
export const EXIT_FAILURE = 1
/** Exit status of a command line that could not be understood (unknown flag, missing option, bad value). */
export const EXIT_USAGE = 2

/**
 * A failure whose one-line message a command chose itself.
 */
export class CliError extends Schema.TaggedError<CliError>()("CliError", {
  message: Schema.String,
  exitCode: Schema.optionalWith(Schema.Number, { default: () => EXIT_FAILURE })
}) {}

/** Removes the terminal's colour codes from a text. */
export const withoutColour = (text: string): string =>
  // eslint-disable-next-line no-control-regex
  text.replace(/\u001b\[[0-9;]*m/g, "")

/** Collapses any text to one line. */
export const oneLine = (text: string): string => withoutColour(text).replace(/\s+/g, " ").trim()

/** A rendered help text's paragraphs, each on one line, joined with "; ". */
const paragraphs = (text: string): string =>
  text.split(/\n\s*\n/).map(oneLine).filter((line) => line.length > 0).join("; ")

const messageOf = (u: unknown): string => {
  if (Predicate.hasProperty(u, "message") && typeof u.message === "string" && u.message.length > 0) return u.message
  return String(u)
}

/** An error's message followed by those of its causes (a few levels deep), each said once. */
const causeChain = (error: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = error
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    const message = messageOf(current)
    if (!parts.some((part) => part.includes(message))) parts.push(message)
    current = Predicate.hasProperty(current, "cause") ? current.cause : undefined
  }
  return parts.join(": ")
}

/**
 * A configuration error as `NAME: what is wrong`, each problem once, joined with "; " (not its `toString`, which reads
 * `(Invalid data at NAME: "what is wrong")`).
 */
const configText = (error: ConfigError.ConfigError): string => {
  switch (error._op) {
    case "And":
    case "Or":
      return [...new Set([configText(error.left), configText(error.right)])].join("; ")
    default:
      return error.path.length === 0 ? error.message : `${error.path.join(".")}: ${error.message}`
  }
}

/**
 * An option's fallback from the environment that the environment refused (`STINT_PORT=abc`): @effect/cli reports it as
 * the configuration error's text, which `configText` words instead.
 */
const INVALID_DATA = /^\((?:Invalid|Missing) data at ([^:]*): "(.*)"\)$/s

const describeError = (error: unknown): { readonly message: string; readonly exitCode: number } => {
  if (ValidationError.isValidationError(error)) {
    const text = "error" in error ? paragraphs(HelpDoc.toAnsiText(error.error)) : ""
    const fromEnvironment = INVALID_DATA.exec(text)
    if (fromEnvironment !== null) {
      return { message: `invalid configuration: ${fromEnvironment[1]}: ${fromEnvironment[2]}`, exitCode: EXIT_USAGE }
    }
    return { message: text.length > 0 ? text : "invalid command line (see stint --help)", exitCode: EXIT_USAGE }
  }
  if (Predicate.isTagged(error, "DatabaseUrlInvalid")) {
    return { message: messageOf(error), exitCode: EXIT_USAGE }
  }
  if (ConfigError.isConfigError(error)) {
    return { message: `invalid configuration: ${configText(error)}`, exitCode: EXIT_USAGE }
  }
  if (Predicate.isTagged(error, "CliError") && error instanceof CliError) {
    return { message: error.message, exitCode: error.exitCode }
  }
  if (Predicate.isTagged(error, "AdminInputInvalid") && Predicate.hasProperty(error, "path")) {
    return { message: `invalid input at ${String(error.path)}: ${messageOf(error)}`, exitCode: EXIT_FAILURE }
  }
  if (Predicate.isTagged(error, "StoreError")) {
    return { message: `database error: ${causeChain(error)}`, exitCode: EXIT_FAILURE }
  }
  if (Predicate.isTagged(error, "ServeError") && Predicate.hasProperty(error, "cause")) {
    return { message: `cannot serve: ${messageOf(error.cause)}`, exitCode: EXIT_FAILURE }
  }
  return { message: messageOf(error), exitCode: EXIT_FAILURE }
}

/**
 * The line to print and the status to exit with for a failed command; `None` when it was only interrupted.
 */
export const describe = <E>(
  cause: Cause.Cause<E>
): Option.Option<{ readonly message: string; readonly exitCode: number }> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const described = describeError(failure.value)
    return Option.some({ ...described, message: oneLine(described.message) })
  }
  const defect = Cause.dieOption(cause)
  if (Option.isSome(defect)) {
    return Option.some({ message: oneLine(`internal error: ${messageOf(defect.value)}`), exitCode: EXIT_FAILURE })
  }
  return Option.none()
}
