/**
 * Widens the window between a timer transaction's read and its write by a random 0–2 ms. A store whose reads never
 * wait (a synchronous in-memory store) would otherwise never interleave two transactions, and a missing lock would
 * pass every race check; with the pause, any step not guarded by the store's lock interleaves.
 */
import type { Store } from "@stint/core"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"

const pause = Effect.flatMap(Random.nextIntBetween(0, 3), (ms) => Effect.sleep(Duration.millis(ms)))

const widened = (tx: Store.TimerTransaction): Store.TimerTransaction => ({
  ...tx,
  read: (query) => Effect.zipLeft(tx.read(query), pause)
})

/** The same store, with a pause after every timer-transaction read (in either kind of timer transaction). */
export const widen = (store: Store.Store["Type"]): Store.Store["Type"] => {
  const combined = store.authenticateInTimerTransaction
  return {
    ...store,
    withTimerTransaction: (scope, body) => store.withTimerTransaction(scope, (tx) => body(widened(tx))),
    ...(combined === undefined ? {} : {
      authenticateInTimerTransaction: (authentication, expected, body) =>
        combined(authentication, expected, (found, tx) => body(found, widened(tx)))
    })
  }
}
