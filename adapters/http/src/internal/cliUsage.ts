/**
 * The handler of a command that only groups subcommands: asked alone, it points at its help.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { CliError, EXIT_USAGE } from "./cliFailure.js"

/** Fails with a usage error naming the group's help. */
export const usageOnly = (group: string): Effect.Effect<never, CliError> =>
  Effect.fail(new CliError({
    message: `missing subcommand: see ${group.length === 0 ? "stint" : `stint ${group}`} --help`,
    exitCode: EXIT_USAGE
  }))
