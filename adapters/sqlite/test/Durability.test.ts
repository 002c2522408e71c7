/**
 * Durability is not traded for speed unless asked: every connection syncs the WAL on each commit (`synchronous =
 * FULL`) by default, `NORMAL` only when the option says so, and anything else is refused.
 */
import { describe, expect, it } from "@effect/vitest"
import { SqliteStore } from "@stint/sqlite"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as Effect from "effect/Effect"
import { open } from "../src/internal/database.js"
import { tempFile } from "./support.js"

const synchronousOf = (options: Parameters<typeof open>[0]) =>
  Effect.scoped(Effect.map(open(options), (connection) => connection.prepare("PRAGMA synchronous").pluck().get()))
    .pipe(Effect.provide(Reactivity.layer))

describe("durability", () => {
  it.effect("is synchronous = FULL by default, NORMAL only when chosen", () =>
    Effect.gen(function*() {
      expect(yield* synchronousOf({ filename: tempFile() })).toBe(2)
      expect(yield* synchronousOf({ filename: tempFile(), synchronous: "FULL" })).toBe(2)
      expect(yield* synchronousOf({ filename: tempFile(), synchronous: "NORMAL" })).toBe(1)
    }))

  it.effect("refuses any other level", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(
        SqliteStore.migrate({ filename: tempFile(), synchronous: "OFF" as unknown as "FULL" })
      )
      expect(error._tag).toBe("StoreError")
      expect(error.message).toMatch(/synchronous/)
    }))
})
