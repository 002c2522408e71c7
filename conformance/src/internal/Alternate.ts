/**
 * Passes `Store.authenticate` its read along (`Store.ReadAlong`) on every other call only. The core takes the answer
 * of a store that reads along instead of calling `findActiveEntry`, so without this a store that reads along would
 * never have `findActiveEntry` exercised by the public operations; a store that does not read along is unaffected.
 * With the alternation every check sees both paths.
 */
import type { Store } from "@stint/core"

/** The same store, its `authenticate` asked to read along on every other call. */
export const readAlong = (store: Store.Store["Type"]): Store.Store["Type"] => {
  let calls = 0
  return {
    ...store,
    authenticate: (digest, now, policy, along) =>
      store.authenticate(digest, now, policy, along !== undefined && calls++ % 2 === 1 ? undefined : along)
  }
}
