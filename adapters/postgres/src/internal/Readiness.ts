/**
 * `Store.ping` on PostgreSQL: ready means more than "the server answers". The database must have every migration
 * this build knows recorded (a database dropped and re-created under a running instance has none), and the cursor
 * secret the instance started with must still be the stored one (a database replaced and migrated again by another
 * instance stores a new one, and this instance's cursors would be refused by the others). One round trip.
 */
import { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import type pg from "pg"
import { queryAll } from "./Database.js"
import { retryTransient, stateOf } from "./Failure.js"
import { LATEST } from "./Migrations.js"
import * as Queries from "./Queries.js"
import * as Rows from "./Rows.js"

const WHAT = "checking readiness"

/** Why the answer to `Queries.ping` is not ready, or `undefined` when it is. */
const unreadiness = (results: ReadonlyArray<ReadonlyArray<Rows.Row>>): string | undefined => {
  const row = results[1]?.[0]
  if (row === undefined) return "no answer"
  const applied = Rows.number(row, "applied")
  if (applied < LATEST) return `its schema has ${applied} of the ${LATEST} migrations this build needs`
  if (!Rows.boolean(row, "sameSecret")) {
    return "its cursor secret is not the one this server started with (the database was replaced)"
  }
  return undefined
}

/** The readiness check on `pool`; `secret` is the stored cursor secret to expect (`null`: the operator gave it). */
export const ping = (pool: pg.Pool, secret: Uint8Array | null): Effect.Effect<void, StoreError> =>
  retryTransient(Effect.flatMap(
    Effect.catchAll(
      queryAll(pool, WHAT, [Queries.readyLockTimeout, Queries.ping(secret)]),
      // A migration holds the table: the committed schema is the one this instance has been serving.
      (refused) => stateOf(refused.error) === Queries.LOCK_NOT_AVAILABLE ? Effect.succeed(undefined) : Effect.fail(refused.error)
    ),
    (results) =>
      results === undefined ? Effect.void : Effect.flatMap(Rows.read(WHAT, () => unreadiness(results)), (reason) =>
        reason === undefined ? Effect.void : Effect.fail(new StoreError({ message: `PostgreSQL: not ready: ${reason}` })))
  ))
