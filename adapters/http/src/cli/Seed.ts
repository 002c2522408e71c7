/**
 * `stint seed FILE` and `stint migrate`: load a fixture file all or nothing, or only apply migrations.
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import { Fixture } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Database from "../Database.js"
import { CliError } from "../internal/cliFailure.js"
import { database, logToStderr, printJson, printLine, withStore } from "../internal/cliOptions.js"
import * as FixtureFile from "../internal/fixtureFile.js"
import * as Heap from "../internal/heap.js"

/**
 * `stint seed FILE [--database URL]`: skims the file (its top level must be well-formed JSON) before the database is
 * opened, then streams it into the store all or nothing, checking every row against the file and what is stored,
 * and prints the summary as JSON. The file is never held in memory whole: a fixture of a million time entries loads in
 * a few hundred megabytes.
 *
 * @since 0.1.0
 */
export const seed = Command.make("seed", {
  file: Args.file({ name: "FILE", exists: "yes" }).pipe(Args.withDescription("The fixture file (JSON).")),
  database
}, ({ database, file }) =>
  Effect.scoped(Effect.gen(function*() {
    // A long load allocates steadily; a bounded old generation keeps RSS near the live heap (internal/heap.ts).
    yield* Effect.sync(Heap.bound)
    const source = yield* FixtureFile.open(file)
    const summary = yield* Fixture.loadFrom(source).pipe(
      Effect.catchTag("AdminInputInvalid", (error) =>
        new CliError({ message: `invalid fixture ${file} at ${error.path}: ${error.message}` })),
      withStore(database)
    )
    yield* printJson(summary)
  }))).pipe(
    Command.withDescription(
      "Load a fixture file, all or nothing, and print a JSON summary (every API key with its plaintext, rows per " +
        "kind). An invalid fixture is refused, naming the JSON path of the problem, and nothing is written. The file " +
        "is streamed: its size is bounded by the disk, not by memory."
    )
  )

/**
 * `stint migrate [--database URL]`: applies pending migrations and exits.
 *
 * @since 0.1.0
 */
export const migrate = Command.make("migrate", { database }, ({ database }) =>
  Effect.zipRight(
    Effect.provide(Database.migrate(database), logToStderr),
    printLine(JSON.stringify({ migrated: true, database: Database.redact(database) }))
  )).pipe(Command.withDescription("Apply pending migrations and exit."))
