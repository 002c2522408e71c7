/**
 * Where a fixture is read from, a member at a time: the document's top-level members in file order, each array as a
 * pull-based stream of its elements (already parsed from JSON, not yet decoded). `Fixture.loadFrom` reads the small
 * arrays whole and streams the time entries in batches, so an adapter that streams a file (the `stint seed` command
 * does) never holds it in memory. `fromValue` serves a fixture that is already in memory.
 *
 * @since 0.1.0
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as RepeatedMember from "./internal/repeatedMember.js"

/**
 * One top-level member of the document: an array, streamed element by element (each read of `elements` starts
 * from the first element), or any other JSON value.
 *
 * @since 0.1.0
 */
export type Member<E> =
  | { readonly _tag: "Array"; readonly name: string; readonly elements: Stream.Stream<unknown, E> }
  | { readonly _tag: "Value"; readonly name: string; readonly value: unknown }

/**
 * The document: an object's members in file order (a name may repeat, as JSON allows; loading refuses that), or a
 * document that is not an object.
 *
 * @since 0.1.0
 */
export type Document<E> =
  | { readonly _tag: "Object"; readonly members: ReadonlyArray<Member<E>> }
  | { readonly _tag: "Other"; readonly value: unknown }

/**
 * Where the first member name that an object of `text` (valid JSON) names twice sits: member names and array indices
 * from the outermost value in, the repeated name last (`[2, "note"]` for `[{}, {}, {"note": 1, "note": 2}]`), or
 * `undefined` when no object repeats a name (check a text `JSON.parse` accepted: of any other, the answer means
 * nothing). Given `parsed`, what `JSON.parse` made of `text`, a text without a repeat is told by counting its names
 * against the parsed members, two or three times faster than looking for the repeat.
 *
 * `JSON.parse` keeps the last value of a repeated name and drops the others without a word, and loading only sees
 * parsed values: a source that parses JSON text checks each text it parses with this and fails on a repeat (`stint
 * seed` refuses the file, naming the path), so that no part of what the file says is silently lost. Top-level members
 * are the exception: the document lists them all, and loading refuses a repeat.
 *
 * @since 0.1.0
 */
export const repeatedMember = (text: string, parsed?: unknown): ReadonlyArray<string | number> | undefined =>
  RepeatedMember.repeatedPath(text, parsed)

/**
 * A fixture source: opening it reads as little as it must to list the top-level members. `E` is the source's own
 * failure (a file that cannot be read or is not JSON), passed through by loading.
 *
 * @since 0.1.0
 */
export interface FixtureSource<E> {
  readonly open: Effect.Effect<Document<E>, E>
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A source over a fixture already in memory (a parsed JSON value, or one built in code).
 *
 * @since 0.1.0
 */
export const fromValue = (input: unknown): FixtureSource<never> => ({
  open: Effect.sync((): Document<never> =>
    isObject(input)
      ? {
        _tag: "Object",
        members: Object.keys(input).map((name): Member<never> => {
          const value = input[name]
          return Array.isArray(value)
            ? { _tag: "Array", name, elements: Stream.fromChunk(Chunk.unsafeFromArray(value)) }
            : { _tag: "Value", name, value }
        })
      }
      : { _tag: "Other", value: input }
  )
})
