/**
 * The advisory lock of a user in a workspace has one key whichever way a transaction takes it: computed by the adapter
 * (`lockKey`, sent as a literal with BEGIN) or by the server from the key's row (`LOCK_KEY_OF_K`, when a start or a
 * stop authenticates inside its transaction). Were they to differ, two requests of one user could both hold "the"
 * lock; the kit's races check that behaviour, this checks the two computations agree for any ids.
 */
import { describe, expect, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import { LOCK_KEY_OF_K, lockKey } from "../src/internal/TimerStatements.js"
import { databaseLayer, TestDatabase } from "./support.js"

describe("the timer lock's key", () => {
  layer(databaseLayer)((it) => {
    it.effect("is the same computed by the adapter and by the server, for any workspace and user ids", () =>
      Effect.gen(function*() {
        const db = yield* TestDatabase
        const pairs = FastCheck.sample(FastCheck.tuple(FastCheck.uuid(), FastCheck.uuid()), 200)
        const rows = yield* db.sql<{ w: string; u: string; key: string }>(
          `SELECT k.workspace_id::text AS w, k.user_id::text AS u, (${LOCK_KEY_OF_K})::text AS key
           FROM unnest($1::uuid[], $2::uuid[]) AS k(workspace_id, user_id)`,
          [pairs.map(([w]) => w), pairs.map(([, u]) => u)]
        )
        expect(rows).toHaveLength(pairs.length)
        for (const row of rows) {
          // Ids are read back as the server writes them (lowercase), as the adapter's scopes are.
          expect(row.key).toBe(String(lockKey({ workspaceId: row.w, userId: row.u })))
        }
        // Not vacuous: the keys differ between pairs, and both signs occur.
        expect(new Set(rows.map((row) => row.key)).size).toBe(pairs.length)
        expect(rows.some((row) => row.key.startsWith("-"))).toBe(true)
      }))
  })
})
