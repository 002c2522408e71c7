import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Store } from "@stint/core/Store"
import { PgStore } from "@stint/postgres"
import { freshDatabaseScoped } from "../../../testing/postgres.js"

describe("smoke", () => {
  it.scoped("migrates and pings", () =>
    Effect.gen(function*() {
      const db = yield* freshDatabaseScoped
      const store = yield* PgStore.make({ url: db.url })
      yield* store.ping
      const secret = yield* store.cursorSecret
      expect(secret.length).toBe(32)
      const again = yield* PgStore.make({ url: db.url })
      expect(yield* again.cursorSecret).toEqual(secret)
      void Store
    }))
})
