/**
 * `AdminStore.bulk` on PostgreSQL: one transaction on a connection of its own, opened without the timeouts meant for
 * requests (a load of a million rows runs for many seconds; the idle-in-transaction limit only guards against a
 * vanished loader). Time entries go in with `COPY … FROM STDIN` (text format), the few other rows with the same
 * INSERT statements as `AdminStore.insert`; the locks of users whose active entries a batch adds are taken first, as
 * a timer transaction would. A batch's `COPY` runs while the loader prepares the next batch (one in flight at a time). A violated constraint becomes the same `RecordConflict` as `insert`'s, and any failure
 * rolls everything back (the connection is closed whatever happens).
 */
import type { RecordConflict, StoreError } from "@stint/core/Errors"
import { type Dataset, emptyDataset, type EntryRow } from "@stint/core/Records"
import type { BulkTransaction } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import pg from "pg"
import { from as copyFrom } from "pg-copy-streams"
import * as AdminResults from "./AdminResults.js"
import * as AdminStatements from "./AdminStatements.js"
import { libpqCompatible, type PoolSettings, resolveSslMode, type Row, types } from "./Database.js"
import { storeError } from "./Failure.js"
import { type Compiled, raw } from "./Sql.js"
import * as Text from "./Text.js"
import * as TimerStatements from "./TimerStatements.js"

/** How long the loader may leave its transaction idle (between two batches) before the server ends it. */
export const IDLE_IN_TRANSACTION_MILLIS = 300_000

const connect = (settings: PoolSettings): Effect.Effect<pg.Client, StoreError> =>
  Effect.tryPromise({
    try: async () => {
      const client = new pg.Client({
        connectionString: libpqCompatible(await resolveSslMode(settings.url, settings.connectTimeoutMillis)),
        connectionTimeoutMillis: settings.connectTimeoutMillis,
        statement_timeout: 0,
        idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MILLIS,
        keepAlive: true,
        application_name: "stint bulk load",
        types
      })
      // A connection that dies while loading emits "error"; the statement in flight fails with it.
      client.on("error", () => undefined)
      await client.connect()
      return client
    },
    catch: (error) => storeError("connecting for a bulk load", error)
  })

const run = (client: pg.Client, what: string, statement: Compiled): Effect.Effect<ReadonlyArray<Row>, StoreError> =>
  Effect.async((resume) => {
    client.query({ text: statement.text, values: [...statement.values] }, (error: Error | undefined, result) =>
      resume(error ? Effect.fail(storeError(what, error)) : Effect.succeed(result.rows)))
  })

/**
 * Sends `statement` now (the driver queues it behind whatever the connection is doing) and returns its answer, to be
 * awaited later; the promise never rejects.
 */
const send = (client: pg.Client, what: string, statement: Compiled): Promise<Either.Either<ReadonlyArray<Row>, StoreError>> =>
  new Promise((resolve) => {
    client.query({ text: statement.text, values: [...statement.values] }, (error: Error | undefined, result) =>
      resolve(error ? Either.left(storeError(what, error)) : Either.right(result.rows)))
  })

const SPECIAL = /[\\\t\n\r]/
const SPECIALS = /[\\\t\n\r]/g
const ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" }

/** A text value in COPY's text format (after the adapter's own escape of what `text` cannot hold). */
const copyText = (value: string): string => {
  const stored = Text.encode(value)
  return SPECIAL.test(stored) ? stored.replace(SPECIALS, (c) => ESCAPES[c] ?? c) : stored
}

const ENTRY_COLUMNS = "id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at, pay_rate_cents"

/** The time entries as COPY text: one line per row, tab-separated, `\N` for null. */
export const entryLines = (entries: ReadonlyArray<EntryRow>): string => {
  let text = ""
  for (const e of entries) {
    text += `${e.id}\t${e.workspaceId}\t${e.userId}\t${e.projectId}\t${e.status}\t${e.billable ? "t" : "f"}\t${
      e.note === null ? "\\N" : copyText(e.note)
    }\t${e.startedAt}\t${e.endedAt === null ? "\\N" : e.endedAt}\t${e.payRateCents}\n`
  }
  return text
}

/** How a batch's `COPY` ended: `undefined` once the server has taken every row. */
type Outcome = StoreError | RecordConflict | undefined

/**
 * Starts the `COPY` of `entries` and returns at once with the promise of its outcome (which never rejects): the server
 * builds the rows while the loader decodes and checks the next batch. Only the batch's `active` entries are kept until
 * then (a second active entry is the one conflict that names a row by something other than its key).
 */
const startCopy = (client: pg.Client, entries: ReadonlyArray<EntryRow>, active: ReadonlyArray<EntryRow>): Promise<Outcome> =>
  new Promise((resolve) => {
    let settled = false
    const settle = (outcome: Outcome) => {
      if (!settled) {
        settled = true
        resolve(outcome)
      }
    }
    const stream = client.query(copyFrom(`COPY time_entries (${ENTRY_COLUMNS}) FROM STDIN`))
    stream.on("error", (error) => {
      const failure = storeError("copying time entries", error)
      const kept: Dataset = { ...emptyDataset, timeEntries: active }
      settle(Option.getOrElse(AdminResults.conflict(kept, failure), () => failure))
    })
    stream.on("finish", () => settle(undefined))
    stream.end(entryLines(entries))
  })

/**
 * The transaction's statements, with at most one `COPY` in flight: `insert` returns once its rows are sent, and every
 * later statement (the next lookup or insert, the commit) first waits for that `COPY` and fails with its failure. So
 * the server's work on one batch overlaps the loader's work on the next, memory holds one batch in flight, and a
 * failure is still reported for the batch that caused it, before anything that came after.
 */
const loader = (client: pg.Client) => {
  let inFlight: Promise<Outcome> | undefined
  /** Waits for the `COPY` in flight, if any; its failure becomes this effect's. */
  const settle: Effect.Effect<void, StoreError | RecordConflict> = Effect.suspend(() => {
    const pending = inFlight
    inFlight = undefined
    return pending === undefined
      ? Effect.void
      : Effect.flatMap(Effect.promise(() => pending), (outcome) => outcome === undefined ? Effect.void : Effect.fail(outcome))
  })
  const insert = (dataset: Dataset): Effect.Effect<void, StoreError | RecordConflict> =>
    Effect.zipRight(
      settle,
      Effect.gen(function*() {
        const active = dataset.timeEntries.filter((e) => e.status === "active")
        if (active.length > 0) yield* run(client, "locking users", TimerStatements.lockAll(active))
        for (const statement of AdminStatements.insert({ ...dataset, timeEntries: [] })) {
          yield* run(client, "inserting a dataset", statement)
        }
        if (dataset.timeEntries.length > 0) {
          yield* Effect.sync(() => {
            inFlight = startCopy(client, dataset.timeEntries, active)
          })
        }
      }).pipe(
        Effect.catchTag("StoreError", (error): Effect.Effect<never, StoreError | RecordConflict> =>
          Option.match(AdminResults.conflict(dataset, error), { onNone: () => Effect.fail(error), onSome: Effect.fail }))
      )
    )
  const transaction: BulkTransaction = {
    // The lookup goes out at once, queued behind the COPY in flight (so it sees that batch's rows): the server starts
    // it the moment the COPY ends. A failed COPY is reported, not the lookup that then failed in its aborted transaction.
    lookup: (refs) =>
      Effect.suspend(() => {
        const statement = (AdminStatements.onlyEntries(refs) ? AdminStatements.lookupEntries : AdminStatements.lookup)(refs)
        const answer = send(client, "lookup", statement)
        return Effect.zipRight(
          settle,
          Effect.flatMap(Effect.flatMap(Effect.promise(() => answer), identity), (rows) => AdminResults.readLookup(refs, rows))
        )
      }),
    insert
  }
  return { transaction, settle }
}

/** `AdminStore.bulk`: `body` runs inside one transaction on a dedicated connection, committed when it succeeds. */
export const bulk = (settings: PoolSettings) =>
<A, E, R>(body: (tx: BulkTransaction) => Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreError | RecordConflict, R> =>
  Effect.acquireUseRelease(
    connect(settings),
    (client) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          yield* run(client, "beginning a bulk load", raw("BEGIN"))
          const { settle, transaction } = loader(client)
          const exit = yield* Effect.exit(restore(body(transaction)))
          // The last batch's COPY may still be running; a failure of it comes before whatever `body` did next.
          const copied = yield* Effect.exit(settle)
          if (Exit.isSuccess(exit) && Exit.isSuccess(copied)) {
            yield* run(client, "committing a bulk load", raw("COMMIT"))
            return exit.value
          }
          // Closing the connection rolls back too; ROLLBACK first ends the transaction at once.
          yield* Effect.ignore(run(client, "rolling back a bulk load", raw("ROLLBACK")))
          return yield* Exit.isFailure(copied) ? Exit.failCause(copied.cause) : exit
        })
      ),
    (client) => Effect.promise(() => client.end().catch(() => undefined))
  )
