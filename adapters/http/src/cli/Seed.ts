/**
 * `stint seed FILE` and `stint migrate`: load a fixture file in one transaction, or only apply migrations.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as FileSystem from "@effect/platform/FileSystem"
import { Fixture } from "@stint/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Database from "../Database.js"
import { CliError } from "../internal/cliFailure.js"
import { database, printJson, withStore } from "../internal/cliOptions.js"

const readJson = (path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* Effect.mapError(
      fs.readFileString(path),
      (error) => new CliError({ message: `cannot read fixture ${path}: ${error.message}` })
    )
    return yield* Effect.try({
      try: (): unknown => JSON.parse(text),
      catch: (error) =>
        new CliError({
          message: `invalid fixture ${path}: not JSON (${error instanceof Error ? error.message : String(error)})`
        })
    })
  })

/**
 * `stint seed FILE [--database URL]`: validates the whole fixture (first against itself, before the database is
 * opened, then against what is stored), loads it in one transaction, prints the summary as JSON.
 *
 * @since 0.1.0
 */
export const seed = Command.make("seed", {
  file: Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("The fixture file (JSON).")),
  database
}, ({ database, file }) =>
  Effect.gen(function*() {
    const json = yield* readJson(file)
    const refuse = (error: { readonly path: string; readonly message: string }) =>
      new CliError({ message: `invalid fixture ${file} at ${error.path}: ${error.message}` })
    const decoded = Fixture.decode(json)
    if (Either.isLeft(decoded)) return yield* refuse(decoded.left)
    const summary = yield* Fixture.load(decoded.right).pipe(
      Effect.catchTag("AdminInputInvalid", (error) => refuse(error)),
      withStore(database)
    )
    yield* printJson(summary)
  })).pipe(
    Command.withDescription(
      "Load a fixture file in one transaction and print a JSON summary (every API key with its plaintext, rows per " +
        "kind). An invalid fixture is refused, naming the JSON path of the problem, and nothing is written."
    )
  )

/**
 * `stint migrate [--database URL]`: applies pending migrations and exits.
 *
 * @since 0.1.0
 */
export const migrate = Command.make("migrate", { database }, ({ database }) =>
  Effect.zipRight(
    Database.migrate(database),
    Console.log(JSON.stringify({ migrated: true, database: Database.redact(database) }))
  )).pipe(Command.withDescription("Apply pending migrations and exit."))
