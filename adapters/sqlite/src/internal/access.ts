/**
 * What authentication needs from SQLite: API keys by digest with their user's membership, the per-key sliding-window
 * rate limit (the core's `RateLimit.decide` inside one `BEGIN IMMEDIATE` transaction, so every process on the file
 * counts in the same window), and the cursor secret shared through the `settings` table.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { StoreError } from "@stint/core/Errors"
import * as RateLimit from "@stint/core/RateLimit"
import type { KeyRecord } from "@stint/core/Records"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import { immediate, orStoreError } from "./database.js"
import { decodeRows, KeyRow } from "./rows.js"

const decodeKeys = decodeRows(KeyRow, "API keys")

/** `Store.findApiKey`: the key with this digest, with its user's current membership in the key's workspace. */
export const findApiKey = (sql: SqlClient.SqlClient) =>
(digest: string): Effect.Effect<Option.Option<KeyRecord>, StoreError> =>
  sql.unsafe(
    `SELECT k.id, k.user_id, k.workspace_id, k.scopes, k.created_at, k.revoked_at, m.role,
        m.pay_rate_cents AS member_rate_cents
      FROM api_keys k
      LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.user_id
      WHERE k.digest = ?`,
    [digest]
  ).pipe(
    orStoreError("reading an API key"),
    Effect.flatMap(decodeKeys),
    Effect.map((rows) =>
      Option.map(Option.fromNullable(rows[0]), (row): KeyRecord => ({
        id: row.id,
        userId: row.userId,
        workspaceId: row.workspaceId,
        scopes: row.scopes,
        createdAt: row.createdAt,
        revokedAt: row.revokedAt,
        membership: row.role === null || row.memberRateCents === null
          ? null
          : { role: row.role, payRateCents: row.memberRateCents }
      }))
    )
  )

const decodeHits = decodeRows(Schema.Struct({ at: Schema.Number }), "rate limit hits")

/**
 * `Store.consumeRateLimit`: under the write lock, the key's remembered hits are decided on by `RateLimit.decide`;
 * hits that left the window are forgotten and an accepted request is remembered.
 */
export const consumeRateLimit = (sql: SqlClient.SqlClient) =>
(keyId: string, now: number, policy: RateLimit.Policy): Effect.Effect<boolean, StoreError> =>
  immediate(sql)(Effect.gen(function*() {
    const hits = yield* sql.unsafe(`SELECT at FROM rate_limit_hits WHERE key_id = ?`, [keyId]).pipe(
      orStoreError("reading rate limit hits"),
      Effect.flatMap(decodeHits)
    )
    const decision = RateLimit.decide(hits.map((hit) => hit.at), now, policy)
    // `decide` keeps exactly the hits after `now - windowMillis`.
    yield* sql.unsafe(`DELETE FROM rate_limit_hits WHERE key_id = ? AND at <= ?`, [keyId, now - policy.windowMillis])
      .pipe(orStoreError("forgetting rate limit hits"))
    if (decision.accepted) {
      yield* sql.unsafe(`INSERT INTO rate_limit_hits (key_id, at) VALUES (?, ?)`, [keyId, now]).pipe(
        orStoreError("counting a request")
      )
    }
    return decision.accepted
  }))

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
