/**
 * The `Plain` check the type-level test of the Promise face relies on tells plain data from Effect's types.
 */
import type * as Brand from "effect/Brand"
import type * as Chunk from "effect/Chunk"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import { describe, expectTypeOf, it } from "vitest"
import type { Plain } from "./support/Plain.js"

describe("Plain", () => {
  it("accepts plain data", () => {
    expectTypeOf<Plain<{ readonly a: string; readonly b: ReadonlyArray<{ c: number | null }>; d?: boolean }>>()
      .toEqualTypeOf<true>()
  })

  it("refuses Effect's data types, effects, brands and functions, however deep", () => {
    expectTypeOf<Plain<Option.Option<string>>>().toEqualTypeOf<false>()
    expectTypeOf<Plain<{ readonly list: Chunk.Chunk<number> }>>().toEqualTypeOf<false>()
    expectTypeOf<Plain<{ readonly run: Effect.Effect<string> }>>().toEqualTypeOf<false>()
    expectTypeOf<Plain<{ readonly id: string & Brand.Brand<"Id"> }>>().toEqualTypeOf<false>()
    expectTypeOf<Plain<Array<{ readonly f: () => void }>>>().toEqualTypeOf<false>()
  })
})
