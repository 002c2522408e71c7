/**
 * Keyset cursors for listTimeEntries. A cursor carries the last entry of a page (`startedAt`, `id`) and an HMAC-SHA-256
 * over that position and its binding (API key, workspace, project filter, limit). The binding is not in the token, so
 * a cursor presented under any other binding fails the MAC, as does any altered character (the strict base64url
 * decoder gives every string distinct bytes). 57 bytes, 76 characters: far below the spec's 1024.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Base64Url from "./internal/base64url.js"
import { Hashing, type HashingShape } from "./Hashing.js"
import { constantTimeEqual, utf8 } from "./internal/crypto.js"

/**
 * Where the next page continues: strictly after this entry in (`startedAt` desc, `id` desc) order.
 *
 * @since 0.1.0
 */
export interface Position {
  /** Epoch milliseconds. */
  readonly startedAt: number
  /** Lowercase UUID. */
  readonly id: string
}

/**
 * What a cursor is bound to; a cursor decodes only under the binding it was issued for.
 *
 * @since 0.1.0
 */
export interface Binding {
  readonly keyId: string
  readonly workspaceId: string
  readonly projectId: string | null
  readonly limit: number
}

const VERSION = 1
const PAYLOAD_BYTES = 1 + 8 + 16
const MAC_BYTES = 32

const uuidToBytes = (id: string): Uint8Array => {
  const hex = id.replace(/-/g, "")
  const out = new Uint8Array(16)
  for (let i = 0; i < 16; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16)
  return out
}

const bytesToUuid = (bytes: Uint8Array): string => {
  let hex = ""
  for (const b of bytes) hex += b.toString(16).padStart(2, "0")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const payload = (position: Position): Uint8Array => {
  const bytes = new Uint8Array(PAYLOAD_BYTES)
  const view = new DataView(bytes.buffer)
  view.setUint8(0, VERSION)
  view.setBigInt64(1, BigInt(position.startedAt))
  bytes.set(uuidToBytes(position.id), 9)
  return bytes
}

const mac = (hashing: HashingShape, secret: Uint8Array, body: Uint8Array, binding: Binding): Uint8Array => {
  const bound = utf8(
    `stint-cursor\n${binding.keyId}\n${binding.workspaceId}\n${binding.projectId ?? "-"}\n${binding.limit}\n`
  )
  const data = new Uint8Array(bound.length + body.length)
  data.set(bound, 0)
  data.set(body, bound.length)
  return hashing.hmacSha256(secret, data)
}

/**
 * Issues the cursor that continues after `position` under `binding`.
 *
 * @since 0.1.0
 */
export const encode = (position: Position, binding: Binding, secret: Uint8Array): Effect.Effect<string> =>
  Effect.map(Hashing, (hashing) => encodeWith(hashing, position, binding, secret))

/**
 * `encode` with a given hashing, synchronously.
 *
 * @since 0.1.0
 */
export const encodeWith = (hashing: HashingShape, position: Position, binding: Binding, secret: Uint8Array): string => {
  const body = payload(position)
  const token = new Uint8Array(PAYLOAD_BYTES + MAC_BYTES)
  token.set(body, 0)
  token.set(mac(hashing, secret, body, binding), PAYLOAD_BYTES)
  return Base64Url.encode(token)
}

/**
 * The position of a cursor issued under `binding` with `secret`; `None` for anything else (forged, altered, truncated,
 * or issued for another key, workspace, filter or limit).
 *
 * @since 0.1.0
 */
export const decode = (cursor: string, binding: Binding, secret: Uint8Array): Effect.Effect<Option.Option<Position>> =>
  Effect.map(Hashing, (hashing) => decodeWith(hashing, cursor, binding, secret))

/**
 * `decode` with a given hashing, synchronously.
 *
 * @since 0.1.0
 */
export const decodeWith = (
  hashing: HashingShape,
  cursor: string,
  binding: Binding,
  secret: Uint8Array
): Option.Option<Position> => {
  const token = tokenOf(cursor)
  if (token === undefined) return Option.none()
  if (!constantTimeEqual(mac(hashing, secret, token.subarray(0, PAYLOAD_BYTES), binding), token.subarray(PAYLOAD_BYTES))) {
    return Option.none()
  }
  return Option.some(positionOf(token))
}

/**
 * The position a well-formed cursor claims, unverified: `None` when it is not one. Nothing may trust it; the core
 * only reads ahead with it (`Store.ReadAlong`), and uses that read once `decodeWith` has verified the same cursor.
 *
 * @since 0.2.0
 */
export const peek = (cursor: string): Option.Option<Position> => {
  const token = tokenOf(cursor)
  return token === undefined ? Option.none() : Option.some(positionOf(token))
}

/** The bytes of a well-formed cursor (right length and version), its MAC unchecked. */
const tokenOf = (cursor: string): Uint8Array | undefined => {
  const token = Base64Url.decode(cursor)
  return token === undefined || token.length !== PAYLOAD_BYTES + MAC_BYTES || token[0] !== VERSION ? undefined : token
}

const positionOf = (token: Uint8Array): Position => {
  const view = new DataView(token.buffer, token.byteOffset, PAYLOAD_BYTES)
  return { startedAt: Number(view.getBigInt64(1)), id: bytesToUuid(token.subarray(9, PAYLOAD_BYTES)) }
}
