/**
 * Deliberately broken storage adapters: the in-memory store with one rule broken each, the way real adapters get it
 * wrong. The kit must fail every one of them.
 */
import { type Errors, MemoryStore, RateLimit, type Records, Store } from "@stint/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

type StoreShape = Store.Store["Type"]

/** The memory store with some of its methods replaced, given the original and its tables. */
const broken = (
  change: (store: StoreShape, tables: MemoryStore.Tables) => Partial<StoreShape>
): Layer.Layer<Store.Store | MemoryStore.MemoryDriver> =>
  Layer.effectContext(Effect.map(MemoryStore.make, ({ driver, store }) =>
    Context.make(Store.Store, { ...store, ...change(store, driver.tables) }).pipe(
      Context.add(MemoryStore.MemoryDriver, driver)
    )))

/**
 * An off-by-one page boundary: the next page starts at the last entry of the previous one, not after it. Every page
 * is read through `listEntries`: the stacks pass half of the page reads along with authentication, which this store
 * would answer right, so whether a check saw the bug depended on which half its requests fell in.
 */
export const offByOnePage = broken((store) => ({
  authenticate: (digest, now, policy, along) =>
    along?._tag === "EntriesPage" ? store.authenticate(digest, now, policy) : store.authenticate(digest, now, policy, along),
  listEntries: (scope, query) =>
    store.listEntries(scope, query.after === null ? query : { ...query, after: { ...query.after, id: `${query.after.id}~` } })
}))

/** Ties not broken by id: ordered by start time only, and a page continues strictly after the last start time. */
export const tiesByStartOnly = broken((store) => ({
  listEntries: (scope, query) =>
    Effect.map(store.listEntries(scope, { projectId: query.projectId, after: null, limit: 1_000_000 }), (rows) =>
      [...rows]
        .sort((a, b) => b.startedAt - a.startedAt)
        .filter((row) => query.after === null || row.startedAt < query.after.startedAt)
        .slice(0, query.limit))
}))

/** A fixed-minute rate window instead of a sliding one. */
export const fixedMinuteWindow = broken((store) => {
  const buckets = new Map<string, number>()
  return {
    authenticate: (digest, now, policy: RateLimit.Policy) =>
      // The memory store finds the key and refuses what does not authenticate; the window is this adapter's own.
      Effect.map(
        store.authenticate(digest, now, { limit: Number.MAX_SAFE_INTEGER, windowMillis: policy.windowMillis }),
        Option.map((found) => {
          if (!found.accepted) return found
          const bucket = `${found.key.id}/${Math.floor(now / policy.windowMillis)}`
          const used = buckets.get(bucket) ?? 0
          if (used >= policy.limit) return { ...found, accepted: false }
          buckets.set(bucket, used + 1)
          return found
        })
      )
  }
})

/**
 * A non-atomic start: reads and writes in separate steps with time between them and no lock, writing straight into
 * the tables (no unique index either), so two starts can both see "nothing running".
 */
export const nonAtomicStart = broken((store, tables) => ({
  withTimerTransaction: (scope, body) =>
    body({
      read: (query) => store.withTimerTransaction(scope, (tx) => tx.read(query)),
      write: (changes) =>
        Effect.andThen(Effect.sleep("2 millis"), Effect.sync(() => {
          const finish = changes.finish
          if (finish !== undefined) {
            const row = tables.entries.get(finish.id)
            if (row !== undefined) tables.entries.set(finish.id, { ...row, status: finish.status, endedAt: finish.endedAt })
          }
          if (changes.insert !== undefined) tables.entries.set(changes.insert.id, changes.insert)
          if (changes.idempotency !== undefined) {
            tables.idempotency.set(`${scope.workspaceId} ${scope.userId} ${changes.idempotency.key}`, changes.idempotency)
          }
        }))
    })
}))

/** The idempotency record stored after the change committed, in a step of its own. */
export const idempotencyOutsideTransaction = broken((store) => ({
  withTimerTransaction: (scope, body) =>
    Effect.gen(function*() {
      let record: Parameters<Store.TimerTransaction["write"]>[0]["idempotency"]
      const result = yield* store.withTimerTransaction(scope, (tx) =>
        body({
          read: tx.read,
          write: (changes) => {
            record = changes.idempotency
            return tx.write({ ...changes, idempotency: undefined })
          }
        }))
      yield* Effect.sleep("3 millis")
      if (record !== undefined) {
        const stored = record
        yield* store.withTimerTransaction(scope, (tx) => tx.write({ idempotency: stored }))
      }
      return result
    })
}))

/**
 * No lock at all: a read and a write that are each atomic but not together, and no pause of its own. Only the kit's
 * own widening of the gap between them shows the race.
 */
export const noLock = broken((store) => ({
  withTimerTransaction: (scope, body) =>
    body({
      read: (query) => store.withTimerTransaction(scope, (tx) => tx.read(query)),
      write: (changes) => store.withTimerTransaction(scope, (tx) => tx.write(changes))
    })
}))

/**
 * A bulk load that writes each batch as it comes, each in a transaction of its own: a load refused in a later batch
 * leaves its earlier batches behind.
 */
export const bulkCommittedPerBatch = broken((store) => ({
  admin: {
    ...store.admin,
    bulk: (body) => body({ lookup: store.admin.lookup, insert: store.admin.insert })
  }
}))

/**
 * The memory store's `authenticate`, with its read along (`Store.ReadAlong`) replaced by `answer`'s, done for the
 * found key's scope.
 */
const readingAlong = (
  answer: (
    store: StoreShape,
    scope: { readonly workspaceId: string; readonly userId: string },
    along: Store.ReadAlong
  ) => Effect.Effect<Pick<Store.Authenticated, "activeEntry" | "entries">, Errors.StoreError>
) =>
  broken((store) => ({
    authenticate: (digest, now, policy, along) =>
      Effect.flatMap(store.authenticate(digest, now, policy), (found) =>
        Option.isNone(found) || along === undefined
          ? Effect.succeed(found)
          : Effect.map(
            answer(store, { workspaceId: found.value.key.workspaceId, userId: found.value.key.userId }, along),
            (read) => Option.some({ key: found.value.key, accepted: found.value.accepted, ...read })
          ))
  }))

/** Reads along with authentication, correctly: what `findActiveEntry` or `listEntries` answers. Not broken. */
export const alongCorrect = readingAlong((store, scope, along) =>
  along._tag === "ActiveEntry"
    ? Effect.map(store.findActiveEntry(scope), (activeEntry) => ({ activeEntry }))
    : Effect.map(store.listEntries(scope, along.query), (entries) => ({ entries }))
)

/** Reads the active entry along with authentication from a stale view: never any running timer. */
export const alongMissesActive = readingAlong(() => Effect.succeed({ activeEntry: Option.none() }))

/** Reads a page along with authentication without its cursor's position: always the first page. */
export const alongIgnoresCursor = readingAlong((store, scope, along) =>
  along._tag === "ActiveEntry"
    ? Effect.succeed({})
    : Effect.map(store.listEntries(scope, { ...along.query, after: null }), (entries) => ({ entries }))
)

/** The transaction handed to `authenticateInTimerTransaction`'s body when no key was found: it must not be used. */
const unusable: Store.TimerTransaction = {
  read: () => Effect.dieMessage("a timer read without an authenticated key"),
  write: () => Effect.dieMessage("a timer write without an authenticated key")
}

const sameQuery = (a: Store.TimerQuery, b: Store.TimerQuery) =>
  a.idempotencyKey === b.idempotencyKey && a.entryId === b.entryId && a.projectId === b.projectId

/**
 * `Store.authenticateInTimerTransaction` for the memory store, the body's read of `expected` answered by `early`'s
 * snapshot (run with the transaction it is given), if any.
 */
const combined = (
  early?: (
    store: StoreShape,
    scope: Records.UserScope,
    expected: Store.TimerQuery
  ) => Effect.Effect<Store.TimerSnapshot, Errors.StoreError>
) =>
  broken((store) => ({
    authenticateInTimerTransaction: (authentication, expected, body) =>
      Effect.flatMap(store.authenticate(authentication.digest, authentication.now, authentication.policy), (found) => {
        if (Option.isNone(found)) return body(found, unusable)
        const scope = { workspaceId: found.value.key.workspaceId, userId: found.value.key.userId }
        const run = (snapshot: Store.TimerSnapshot | undefined) =>
          store.withTimerTransaction(scope, (tx) =>
            body(found, {
              ...tx,
              read: (query) => snapshot !== undefined && sameQuery(query, expected) ? Effect.succeed(snapshot) : tx.read(query)
            }))
        return early === undefined ? run(undefined) : Effect.flatMap(early(store, scope, expected), run)
      })
  }))

/** Authenticates, then runs the body in the found key's timer transaction: correct. Not broken. */
export const combinedCorrect = combined()

/**
 * Reads what the body will read before taking the lock (in a transaction of its own, then a millisecond, the round
 * trip of a real store, before the lock), and answers with that.
 */
export const combinedReadsBeforeLock = combined((store, scope, expected) =>
  Effect.zipLeft(store.withTimerTransaction(scope, (tx) => tx.read(expected)), Effect.sleep("1 millis"))
)

/** Reads along inside the authenticated timer transaction, under the lock, but never finds the idempotency record. */
export const combinedMissesIdempotency = combined((store, scope, expected) =>
  store.withTimerTransaction(scope, (tx) =>
    Effect.map(tx.read(expected), (snapshot) => ({ ...snapshot, idempotency: Option.none() }))
  )
)

/** Reads along correctly, but a request authenticated with a read along is not counted under the rate limit. */
export const alongUncounted = broken((store, tables) => ({
  authenticate: (digest, now, policy, along) =>
    Effect.map(store.authenticate(digest, now, policy, along), (found) => {
      if (along !== undefined && Option.isSome(found) && found.value.accepted) {
        const hits = tables.rateHits.get(found.value.key.id) ?? []
        tables.rateHits.set(found.value.key.id, hits.slice(0, -1))
      }
      return found
    })
}))

/**
 * Authenticates inside the timer transaction, under the lock, and answers every read of the body with the read of
 * `expected`, whatever the body asks.
 */
export const combinedAnswersEveryRead = broken((store) => ({
  authenticateInTimerTransaction: (authentication, expected, body) =>
    Effect.flatMap(store.authenticate(authentication.digest, authentication.now, authentication.policy), (found) => {
      if (Option.isNone(found)) return body(found, unusable)
      const scope = { workspaceId: found.value.key.workspaceId, userId: found.value.key.userId }
      return store.withTimerTransaction(scope, (tx) =>
        Effect.flatMap(tx.read(expected), (snapshot) => body(found, { ...tx, read: () => Effect.succeed(snapshot) })))
    })
}))

/** The timer transactions of `store`, entered either way, each with its handle passed through `change`. */
const everyTransaction = (
  store: StoreShape,
  change: (tx: Store.TimerTransaction) => Store.TimerTransaction
): Partial<StoreShape> => {
  const combined = store.authenticateInTimerTransaction
  return {
    withTimerTransaction: (scope, body) => store.withTimerTransaction(scope, (tx) => body(change(tx))),
    ...(combined === undefined ? {} : {
      authenticateInTimerTransaction: (authentication, expected, body) =>
        combined(authentication, expected, (found, tx) => body(found, change(tx)))
    })
  }
}

/**
 * Expired idempotency records forgotten a second early: the boundary off by a unit, which only a write that comes
 * between a key's last moment and its replay shows (the forgetting happens as a store writes).
 */
export const forgetsEarly = broken((store) => {
  const early = (tx: Store.TimerTransaction): Store.TimerTransaction => ({
    ...tx,
    write: (changes) =>
      tx.write(
        changes.forgetIdempotencyBefore === undefined
          ? changes
          : { ...changes, forgetIdempotencyBefore: changes.forgetIdempotencyBefore + 1_000 }
      )
  })
  return everyTransaction(store, early)
})

/**
 * A key's record stored again (its 24 hours over, the key used anew) without its fingerprint: an upsert that forgets
 * one column. The new execution is kept under the old input, so its own retry is refused as a conflict and the old
 * input replays it.
 */
export const keepsOldFingerprint = broken((store) => {
  const stale = (tx: Store.TimerTransaction): Store.TimerTransaction => {
    let stored: Store.TimerSnapshot["idempotency"] = Option.none()
    return {
      read: (query) => Effect.tap(tx.read(query), (snapshot) => void (stored = snapshot.idempotency)),
      write: (changes) => {
        const record = changes.idempotency
        return tx.write(
          record === undefined || Option.isNone(stored) || stored.value.key !== record.key
            ? changes
            : { ...changes, idempotency: { ...record, fingerprint: stored.value.fingerprint } }
        )
      }
    }
  }
  return everyTransaction(store, stale)
})

/**
 * A timer transaction's writes kept when its body fails after writing (applied in a transaction of their own once the
 * failed one has ended), entered either way.
 */
export const keepsFailedWrites = broken((store) => {
  /** Runs `transaction` with a recording `tx`; on failure, applies what was written. */
  const keeping = <A, E, R>(
    scope: () => Records.UserScope | undefined,
    transaction: (record: (tx: Store.TimerTransaction) => Store.TimerTransaction) => Effect.Effect<A, E, R>
  ): Effect.Effect<A, E | Errors.StoreError, R> => {
    let written: Store.TimerChanges | undefined
    const record = (tx: Store.TimerTransaction): Store.TimerTransaction => ({
      ...tx,
      write: (changes) => Effect.zipRight(tx.write(changes), Effect.sync(() => void (written = changes)))
    })
    return Effect.catchAll(transaction(record), (error) => {
      const changes = written, where = scope()
      return changes === undefined || where === undefined
        ? Effect.fail(error)
        : Effect.zipRight(store.withTimerTransaction(where, (tx) => tx.write(changes)), Effect.fail(error))
    })
  }
  const combined = store.authenticateInTimerTransaction
  return {
    withTimerTransaction: (scope, body) => keeping(() => scope, (record) => store.withTimerTransaction(scope, (tx) => body(record(tx)))),
    ...(combined === undefined ? {} : {
      authenticateInTimerTransaction: (authentication, expected, body) => {
        let scope: Records.UserScope | undefined
        return keeping(() => scope, (record) =>
          combined(authentication, expected, (found, tx) => {
            if (Option.isNone(found)) return body(found, tx)
            scope = { workspaceId: found.value.key.workspaceId, userId: found.value.key.userId }
            return body(found, record(tx))
          }))
      }
    })
  }
})
