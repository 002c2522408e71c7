/**
 * A fixture file as the core's `FixtureSource`: opened and skimmed once (so a file that is not a JSON object is
 * refused before any database is touched), then each array streamed from disk a chunk at a time while loading reads
 * it. The file is closed with the scope.
 */
import { FixtureSource } from "@stint/core"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { closeSync, fstatSync, openSync } from "node:fs"
import { CliError } from "./cliFailure.js"
import {
  ElementReader,
  indexMembers,
  JsonFileError,
  type MemberPlace,
  readValue,
  RepeatedMemberError
} from "./jsonMembers.js"

const failure = (path: string) => (error: unknown): CliError =>
  error instanceof RepeatedMemberError
    // Worded as the core words a repeated top-level member.
    ? new CliError({ message: `invalid fixture ${path} at ${error.path}: appears more than once` })
    : error instanceof JsonFileError
    ? new CliError({ message: `invalid fixture ${path}: not JSON (${error.message})` })
    : new CliError({ message: `cannot read fixture ${path}: ${error instanceof Error ? error.message : String(error)}` })

const elements = (fd: number, place: MemberPlace, fail: (error: unknown) => CliError): Stream.Stream<unknown, CliError> =>
  Stream.suspend(() => {
    const reader = new ElementReader(fd, place)
    return Stream.repeatEffectChunkOption(Effect.suspend(() => {
      try {
        const next = reader.next()
        return next === undefined ? Effect.fail(Option.none()) : Effect.succeed(Chunk.unsafeFromArray(next))
      } catch (error) {
        return Effect.fail(Option.some(fail(error)))
      }
    }))
  })

/**
 * Opens the fixture at `path` and skims it: fails (one line, naming the file) when it cannot be read or its top level
 * is not well-formed JSON. The elements of its arrays are parsed as they are streamed.
 */
export const open = (path: string): Effect.Effect<FixtureSource.FixtureSource<CliError>, CliError, Scope.Scope> =>
  Effect.gen(function*() {
    const fail = failure(path)
    const fd = yield* Effect.acquireRelease(
      Effect.try({ try: () => openSync(path, "r"), catch: fail }),
      (fd) => Effect.sync(() => closeSync(fd))
    )
    const place = yield* Effect.try({ try: () => indexMembers(fd, fstatSync(fd).size), catch: fail })
    if (place._tag === "Other") return { open: Effect.succeed(place) }
    const members = yield* Effect.forEach(place.members, (member) =>
      member.kind === "array"
        ? Effect.succeed<FixtureSource.Member<CliError>>({
          _tag: "Array",
          name: member.name,
          elements: elements(fd, member, fail)
        })
        : Effect.map(
          Effect.try({ try: () => readValue(fd, member), catch: fail }),
          (value): FixtureSource.Member<CliError> => ({ _tag: "Value", name: member.name, value })
        ))
    return { open: Effect.succeed({ _tag: "Object", members } as const) }
  })
