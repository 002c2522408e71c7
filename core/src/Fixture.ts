/**
 * The fixture file of `cli-and-fixtures.md`: its schema, its cross-row rules (checked against the file and against
 * what is already stored), its defaults, and loading it all or nothing. The admin operations create records through
 * the same path, so one set of rules guards every write that does not come through the public API.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as Effect from "effect/Effect"
import type { AdminInputInvalid, RecordConflict, StoreError } from "./Errors.js"
import * as FixtureSource from "./FixtureSource.js"
import * as Import from "./internal/fixtureImport.js"
import * as Rules from "./internal/fixtureRules.js"
import * as FileSchema from "./internal/fixtureSchema.js"
import type { Dataset, ExistingRecords } from "./Records.js"
import type { Store } from "./Store.js"

/**
 * The fixture file. Every top-level array is optional; unknown properties are refused.
 *
 * @since 0.1.0
 */
export const FixtureFile = FileSchema.FixtureFile

/** @since 0.1.0 */
export type FixtureFile = typeof FixtureFile.Type

/**
 * What loading printed: every key of the fixture with its plaintext, and the rows loaded per kind.
 *
 * @since 0.1.0
 */
export type Summary = Import.Summary

/**
 * Decodes a fixture, naming the JSON path of the first problem.
 *
 * @since 0.1.0
 */
export const decode = (input: unknown): Either.Either<FixtureFile, AdminInputInvalid> => FileSchema.decodeFile(input)

/**
 * Checks every cross-row rule and fills in the defaults, given what is already stored. Pure: `now` and the generated
 * ids and keys are passed in.
 *
 * @since 0.1.0
 */
export const toDataset = (
  file: FixtureFile,
  existing: ExistingRecords,
  generated: {
    readonly now: number
    readonly keys: ReadonlyArray<{ readonly id: string; readonly key: string; readonly digest: string }>
  }
): Either.Either<Dataset, AdminInputInvalid> =>
  Either.flatMap(Rules.prepare(file, existing, generated), (prepared) =>
    Either.map(
      Rules.checkEntries(prepared.context, file.timeEntries ?? [], 0, new Set(existing.entryIds)),
      (timeEntries): Dataset => ({ ...prepared.dataset, timeEntries })
    ))

/**
 * Loads a fixture read from `source`, all or nothing: validated against itself and the store, naming the JSON path of
 * the first problem. Time entries are read, checked and inserted in batches (in one `AdminStore.bulk` load when
 * they need more than one), so the source can stream a file far larger than memory; the source's own failures pass
 * through, and nothing is written when anything fails.
 *
 * @since 0.1.0
 */
export const loadFrom: <E>(
  source: FixtureSource.FixtureSource<E>
) => Effect.Effect<Summary, AdminInputInvalid | RecordConflict | StoreError | E, Store> = Import.loadFrom

/**
 * Loads a fixture (decoded or raw JSON): validated against itself and the store, all or nothing.
 *
 * @since 0.1.0
 */
export const load = (input: unknown): Effect.Effect<Summary, AdminInputInvalid | RecordConflict | StoreError, Store> =>
  Import.loadFrom(FixtureSource.fromValue(input))
