/**
 * Passes `Store.authenticate` its read along (`Store.ReadAlong`) on every other call of each kind only. The core takes
 * the answer of a store that reads along instead of calling `findActiveEntry` or `listEntries`, so without this a
 * store that reads along would never have those exercised by the public operations; a store that does not read along
 * is unaffected.
 * The same for `Store.authenticateInTimerTransaction`: without the alternation, a store that has it would never
 * have its `authenticate` then `withTimerTransaction` exercised by starts and stops. With the alternation every check
 * sees both paths.
 */
import type { Store } from "@stint/core"

/**
 * The same store, its `authenticate` asked to read along on every other call of each kind, and its
 * `authenticateInTimerTransaction` (if it has one) offered to every other timer mutation: the core asks for it once
 * per start or stop, and takes the two usual steps when it is absent.
 */
export const readAlong = (store: Store.Store["Type"]): Store.Store["Type"] => {
  const calls = { ActiveEntry: 0, EntriesPage: 0 }
  let mutations = 0
  const alternated: Store.Store["Type"] = {
    ...store,
    authenticate: (digest, now, policy, along) =>
      store.authenticate(digest, now, policy, along !== undefined && calls[along._tag]++ % 2 === 1 ? undefined : along)
  }
  const combined = store.authenticateInTimerTransaction
  if (combined === undefined) return alternated
  return Object.defineProperty(alternated, "authenticateInTimerTransaction", {
    enumerable: true,
    get: () => mutations++ % 2 === 0 ? combined : undefined
  })
}
