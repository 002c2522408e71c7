/**
 * The `stint` command line: every command of `cli-and-fixtures.md` plus the operators' admin commands, with help on
 * each, one line on stderr and a non-zero exit status on failure.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import type * as NodeContext from "@effect/platform-node/NodeContext"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Admin from "./cli/Admin.js"
import * as Keys from "./cli/Keys.js"
import * as Seed from "./cli/Seed.js"
import * as Serve from "./cli/Serve.js"
import { describe, withoutColour } from "./internal/cliFailure.js"
import { usageOnly } from "./internal/cliUsage.js"

/**
 * The version `stint --version` prints.
 *
 * @since 0.1.0
 */
export const VERSION = "0.1.0"

/**
 * The root command and its subcommands.
 *
 * @since 0.1.0
 */
export const command = Command.make("stint", {}, () => usageOnly("")).pipe(
  Command.withDescription("Stint: serve the time-tracking API and manage its data."),
  Command.withSubcommands([
    Serve.command,
    Seed.migrate,
    Seed.seed,
    Keys.command,
    Admin.workspaces,
    Admin.users,
    Admin.memberships,
    Admin.clients,
    Admin.projects,
    Admin.assignments,
    Admin.entries
  ])
)

const cli = Command.run(command, { name: "stint", version: VERSION })

/** @effect/cli prints its own multi-line, coloured parse errors on stderr; we print one line instead. */
const withoutCliErrorOutput = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(self, { ...console, error: () => Effect.void, unsafe: { ...console.unsafe, error: () => {} } }))

/**
 * What @effect/cli prints (help, the version) ends with a line break of its own, which `console.log` doubles: every
 * help text and `stint --version`'s number were followed by an empty line. One text with a trailing line break loses
 * it.
 */
const oneLineBreak = (args: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  const [only] = args
  return args.length === 1 && typeof only === "string" && only.endsWith("\n") ? [only.slice(0, -1)] : args
}

/**
 * @effect/cli's usage line names a subcommand alone (`$ create --user UUID …` for `stint keys create --help`): it is
 * shown with the words that lead to it, as it is typed (`$ stint keys create --user UUID …`). `words` are the command
 * line's leading words (`commandWords`); the usage line's name is looked up among them.
 */
const fullUsage = (words: ReadonlyArray<string>) => (args: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  const [only] = args
  if (args.length !== 1 || typeof only !== "string") return args
  return [only.replace(/^\$ (\S+)/m, (line, name: string) => {
    const at = words.lastIndexOf(name)
    return at < 0 ? line : `$ ${["stint", ...words.slice(0, at + 1)].join(" ")}`
  })]
}

/** The command line's leading words (the command and its subcommand), past a `--log-level` before them. */
const commandWords = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const options = beforeDashes(argv)
  return leadingWords(options, options.length).words
}

/**
 * The leading words of `options` before `end`: the command's and subcommands' names (`words`), and the same with a
 * `--log-level` among them kept as given (`line`). The scan stops at the first other option.
 */
const leadingWords = (options: ReadonlyArray<string>, end: number) => {
  const words: Array<string> = []
  const line: Array<string> = []
  for (let i = 0; i < end; i++) {
    const arg = options[i]!
    if (arg === "--log-level" && i + 1 < end) line.push(arg, options[++i]!)
    else if (arg.startsWith("--log-level=")) line.push(arg)
    else if (arg.startsWith("-")) break
    else {
      words.push(arg)
      line.push(arg)
    }
  }
  return { words, line }
}

const plain = (args: ReadonlyArray<unknown>): ReadonlyArray<unknown> =>
  args.map((arg) => typeof arg === "string" ? withoutColour(arg) : arg)

/**
 * What @effect/cli prints on stdout, as written: the usage line as typed (`fullUsage`), one line break at the end,
 * not two; coloured for a terminal only (written anywhere else, a pipe, a file, a CI log, or with `NO_COLOR` set, it
 * is plain text).
 */
const asPrinted = (argv: ReadonlyArray<string>) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const coloured = process.stdout.isTTY === true && (process.env["NO_COLOR"] ?? "") === ""
  const usage = fullUsage(commandWords(argv))
  const shown = (args: ReadonlyArray<unknown>) => oneLineBreak(usage(coloured ? args : plain(args)))
  return Effect.flatMap(Effect.console, (console) =>
    Effect.withConsole(self, {
      ...console,
      log: (...args) => console.log(...shown(args)),
      unsafe: { ...console.unsafe, log: (...args) => console.unsafe.log(...shown(args)) }
    }))
}

/**
 * Runs the command line (`argv` as in `process.argv`) and answers the exit status: 0 on success, 1 when the operation
 * failed, 2 when the command line was not understood. Failures print one line on stderr. Interruption (SIGINT,
 * SIGTERM) propagates, so a server stops gracefully.
 *
 * @since 0.1.0
 */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number, never, NodeContext.NodeContext> =>
  wizardWithoutTerminal(argv)
    ? Effect.as(Console.error("stint: --wizard asks its questions on a terminal, and standard input is not one"), 2)
    : runCli(argv)

const BUILT_IN = ["--help", "-h", "--version"] as const

/**
 * @effect/cli finds `--help`, `-h` and `--version` only right after a command's name; after its options
 * (`stint serve --port 0 --help`) it parses the options, then refuses the word as an unknown argument. That refusal, and
 * only it, is answered by running the line again with the word right after the command's name, so that a line that
 * parses (`--name -h` names something `-h`) or fails on anything else (`--port abc --help`) is left as it was.
 */
const unknownBuiltIn = (error: unknown): boolean =>
  ValidationError.isValidationError(error) && "error" in error &&
  BUILT_IN.some((word) => withoutColour(HelpDoc.toAnsiText(error.error)).includes(`Received unknown argument: '${word}'`))

/**
 * The line with its first `--help`, `-h` or `--version` (before any `--`) right after the command's name: its leading
 * words and a `--log-level` before them; the options in between go, as help answers none of them.
 */
const builtInFirst = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const options = beforeDashes(argv)
  const at = options.findIndex((arg) => (BUILT_IN as ReadonlyArray<string>).includes(arg))
  if (at < 0) return argv
  return [...argv.slice(0, 2), ...leadingWords(options, at).line, options[at]!]
}

/**
 * `--wizard` (@effect/cli's prompts) with standard input not a terminal: the prompts would wait for keys that never
 * come (with `< /dev/null`, forever).
 */
const wizardWithoutTerminal = (argv: ReadonlyArray<string>): boolean =>
  beforeDashes(argv).includes("--wizard") && process.stdin.isTTY !== true

/** The command line's words before any `--` (after it, every word is an argument). */
const beforeDashes = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const args = argv.slice(2)
  const end = args.indexOf("--")
  return end < 0 ? args : args.slice(0, end)
}

const runCli = (argv: ReadonlyArray<string>): Effect.Effect<number, never, NodeContext.NodeContext> =>
  cli(argv).pipe(
    Effect.catchIf(unknownBuiltIn, () => cli(builtInFirst(argv))),
    withoutCliErrorOutput,
    asPrinted(argv),
    Effect.as(0),
    Effect.catchAllCause((cause) =>
      Option.match(describe(cause), {
        onNone: () => Effect.failCause(Cause.stripFailures(cause)),
        onSome: ({ exitCode, message }) => Effect.as(Console.error(`stint: ${message}`), exitCode)
      })
    )
  )
