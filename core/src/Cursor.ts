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
import { constantTimeEqual, toHex, utf8 } from "./internal/crypto.js"

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

/** The value of a hex digit's character code (`0-9`, `a-f`, `A-F`). */
const hexValue = (code: number): number => code <= 57 ? code - 48 : (code | 0x20) - 87

/** Writes the 16 bytes of a UUID (hex digits, hyphens anywhere) into `out` at `at`. */
const writeUuid = (id: string, out: Uint8Array, at: number): void => {
  let o = at
  for (let i = 0; i < id.length; i++) {
    const high = id.charCodeAt(i)
    if (high === 45) continue
    out[o++] = (hexValue(high) << 4) | hexValue(id.charCodeAt(++i))
  }
}

const bytesToUuid = (bytes: Uint8Array): string => {
  const hex = toHex(bytes)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const TWO_32 = 2 ** 32

/**
 * The payload at the start of `token`: the version, `startedAt` as a big-endian signed 64-bit integer (written as its
 * two 32-bit halves, exact for every safe integer, without a BigInt) and the id's 16 bytes.
 */
const writePayload = (position: Position, token: Uint8Array): void => {
  const view = new DataView(token.buffer, token.byteOffset, PAYLOAD_BYTES)
  const high = Math.floor(position.startedAt / TWO_32)
  view.setUint8(0, VERSION)
  view.setInt32(1, high)
  view.setUint32(5, position.startedAt - high * TWO_32)
  writeUuid(position.id, token, 9)
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
  const token = new Uint8Array(PAYLOAD_BYTES + MAC_BYTES)
  writePayload(position, token)
  token.set(mac(hashing, secret, token.subarray(0, PAYLOAD_BYTES), binding), PAYLOAD_BYTES)
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
 * @since 0.1.0
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
  return { startedAt: view.getInt32(1) * TWO_32 + view.getUint32(5), id: bytesToUuid(token.subarray(9, PAYLOAD_BYTES)) }
}
