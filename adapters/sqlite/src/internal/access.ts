/**
 * What authentication needs from SQLite, in one `BEGIN IMMEDIATE` transaction of prepared statements per request: the
 * API key by digest with its user's membership, and, when the key authenticates, the per-key sliding window (one row
 * per key holding the times of its accepted requests inside the window, packed in a BLOB and decided on by the core's
 * `RateLimit.decidePacked`; every process on the file counts in the same window), and the read along
 * (`Store.ReadAlong`: the active entry or a page of history) in the same transaction. Also the cursor secret shared
 * through the `settings` table.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as ApiKey from "@stint/core/ApiKey"
import type { StoreError } from "@stint/core/Errors"
import * as RateLimit from "@stint/core/RateLimit"
import type { Authenticated, ReadAlong } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import type { Connection } from "./connection.js"
import { orStoreError } from "./database.js"
import { readAlong } from "./entries.js"
import * as Records from "./records.js"
import { decodeRows } from "./rows.js"

const KEY = `SELECT k.id, k.user_id AS userId, k.workspace_id AS workspaceId, k.scopes, k.created_at AS createdAt,
    k.revoked_at AS revokedAt, m.role, m.pay_rate_cents AS memberRateCents
  FROM api_keys k
  LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
  WHERE k.digest = ?`

const WINDOW = `SELECT accepted_at AS acceptedAt FROM rate_limit_windows_packed WHERE key_id = ?`

const SAVE_WINDOW = `INSERT INTO rate_limit_windows_packed (key_id, accepted_at) VALUES (?, ?)
  ON CONFLICT (key_id) DO UPDATE SET accepted_at = excluded.accepted_at`

const EMPTY_WINDOW = new Uint8Array(0)

/** The window stored in a row (`RateLimit.decidePacked`'s bytes); none yet: empty. */
const storedWindow = (row: unknown): Uint8Array => {
  if (row === undefined) return EMPTY_WINDOW
  const stored = (row as { readonly acceptedAt?: unknown }).acceptedAt
  if (!(stored instanceof Uint8Array)) throw new Error("rate_limit_windows_packed.accepted_at: expected a BLOB")
  return stored
}

/**
 * `Store.authenticate`'s work, synchronous, for a transaction that holds the write lock: the key and its membership;
 * when the key authenticates at `now`, its window is decided on by `RateLimit.decidePacked` and stored back when it
 * changed (times that left the window forgotten, an accepted request remembered).
 */
export const authenticator = (connection: Connection) => {
  const findKey = connection.prepare(KEY)
  const readWindow = connection.prepare(WINDOW)
  const saveWindow = connection.prepare(SAVE_WINDOW)
  return (digest: string, now: number, policy: RateLimit.Policy): Option.Option<Authenticated> => {
    const row = findKey.get(digest) as Record<string, unknown> | undefined
    if (row === undefined) return Option.none()
    const key = Records.key(row)
    if (Option.isSome(ApiKey.refusal(key, now))) return Option.some({ key, accepted: false })
    const decision = RateLimit.decidePacked(storedWindow(readWindow.get(key.id)), now, policy)
    if (decision.changed) saveWindow.run(key.id, decision.window)
    return Option.some({ key, accepted: decision.accepted })
  }
}

/**
 * `Store.authenticate`: `authenticator`'s work in a `BEGIN IMMEDIATE` transaction of its own (synchronous, so in one
 * step), and the read along (`Store.ReadAlong`) in the same transaction once the key is accepted. A refused key needs
 * no read: the core answers it with an error. When only the read fails, the key's answer stands without it (its count
 * is kept, as it would be without the read), and the core asks for the read the usual way, where the failure shows;
 * unless SQLite ended the transaction itself (a full disk, an I/O error), which fails the authentication as a whole.
 */
export const authenticate = (connection: Connection) => {
  const authenticateNow = authenticator(connection)
  const read = readAlong(connection)
  const authenticateAndRead = (digest: string, now: number, policy: RateLimit.Policy, along: ReadAlong | undefined) => {
    const found = authenticateNow(digest, now, policy)
    if (along === undefined || Option.isNone(found) || !found.value.accepted) return found
    const { key } = found.value
    try {
      return Option.some({ ...found.value, ...read({ workspaceId: key.workspaceId, userId: key.userId }, along) })
    } catch (error) {
      // SQLite rolled the transaction back itself: the count is gone, so the authentication fails with it.
      if (!connection.inTransaction()) throw error
      return found
    }
  }
  return (
    digest: string,
    now: number,
    policy: RateLimit.Policy,
    along?: ReadAlong | undefined
  ): Effect.Effect<Option.Option<Authenticated>, StoreError> =>
    connection.transactionSync("authenticating a key", () => authenticateAndRead(digest, now, policy, along))
}

const SECRET_BYTES = 32

const decodeSecret = decodeRows(Schema.Struct({ value: Schema.Uint8ArrayFromSelf }), "the cursor secret")

/**
 * `Store.cursorSecret`: 32 random bytes created by the first process that asks (`INSERT OR IGNORE`, so concurrent
 * first uses agree), then read back and kept for the life of the layer.
 */
export const makeCursorSecret = (sql: SqlClient.SqlClient): Effect.Effect<Effect.Effect<Uint8Array, StoreError>> =>
  Effect.map(Ref.make(Option.none<Uint8Array>()), (cache) => {
    const load = Effect.gen(function*() {
      yield* sql.unsafe(`INSERT OR IGNORE INTO settings (name, value) VALUES ('cursor_secret', ?)`, [
        randomBytes(SECRET_BYTES)
      ]).pipe(orStoreError("creating the cursor secret"))
      const [row] = yield* sql.unsafe(`SELECT value FROM settings WHERE name = 'cursor_secret'`).pipe(
        orStoreError("reading the cursor secret"),
        Effect.flatMap(decodeSecret)
      )
      if (row === undefined || row.value.length !== SECRET_BYTES) {
        return yield* orStoreError("reading the cursor secret")(Effect.fail(new Error("missing or malformed")))
      }
      const secret = Uint8Array.from(row.value)
      yield* Ref.set(cache, Option.some(secret))
      return secret
    })
    return Effect.flatMap(Ref.get(cache), Option.match({ onNone: () => load, onSome: Effect.succeed }))
  })
