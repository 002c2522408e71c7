import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { MemoryStore, Operations } from "@stint/core"

describe("smoke", () => {
  it.effect("rejects a missing key", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Operations.listClients({}))
      expect(error.code).toBe("INVALID_API_KEY")
    }).pipe(Effect.provide(MemoryStore.layerMemory)))
})
