/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104) in plain TypeScript, synchronous. Written for speed on V8: the
 * compression works on 32-bit integers in local variables, reads the message's bytes in place, and allocates little
 * beyond the digest; HMAC keeps the states after its key's two padded blocks for the last key it saw (the server signs
 * every cursor with one secret), so a short message costs two or three compressions. On Node this is faster than
 * `node:crypto` for the short inputs the core hashes (an API key, a cursor, a request's fingerprint), whose cost there
 * is the call into native code, not the hashing.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
])

const INITIAL = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
])

const BLOCK_BYTES = 64

/** The message schedule, reused by every compression (nothing here is re-entrant, and nothing needs to be). */
const W = new Int32Array(64)

/** The last one or two blocks of a message: its tail, the 1 bit, zeros and the bit length. */
const TAIL = new Uint8Array(2 * BLOCK_BYTES)

/** Folds the 64-byte block of `bytes` at `at` into `state`. */
const compress = (state: Int32Array, bytes: Uint8Array, at: number): void => {
  const w = W
  for (let t = 0, i = at; t < 16; t++, i += 4) {
    w[t] = ((bytes[i] as number) << 24) | ((bytes[i + 1] as number) << 16) | ((bytes[i + 2] as number) << 8) |
      (bytes[i + 3] as number)
  }
  for (let t = 16; t < 64; t++) {
    const x = w[t - 15] as number
    const y = w[t - 2] as number
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)
    w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) | 0
  }
  let a = state[0] as number
  let b = state[1] as number
  let c = state[2] as number
  let d = state[3] as number
  let e = state[4] as number
  let f = state[5] as number
  let g = state[6] as number
  let h = state[7] as number
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7))
    const ch = (e & f) ^ (~e & g)
    const t1 = (h + S1 + ch + (K[t] as number) + (w[t] as number)) | 0
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10))
    const maj = (a & b) ^ (a & c) ^ (b & c)
    h = g
    g = f
    f = e
    e = (d + t1) | 0
    d = c
    c = b
    b = a
    a = (t1 + S0 + maj) | 0
  }
  state[0] = ((state[0] as number) + a) | 0
  state[1] = ((state[1] as number) + b) | 0
  state[2] = ((state[2] as number) + c) | 0
  state[3] = ((state[3] as number) + d) | 0
  state[4] = ((state[4] as number) + e) | 0
  state[5] = ((state[5] as number) + f) | 0
  state[6] = ((state[6] as number) + g) | 0
  state[7] = ((state[7] as number) + h) | 0
}

/**
 * Finishes the hash of a message whose first `prefixBytes` bytes are already folded into `state`, and whose rest is
 * `data`: the digest's 32 bytes. `state` is consumed.
 */
const finish = (state: Int32Array, prefixBytes: number, data: Uint8Array): Uint8Array => {
  const whole = data.length - (data.length % BLOCK_BYTES)
  for (let at = 0; at < whole; at += BLOCK_BYTES) compress(state, data, at)
  const rest = data.length - whole
  const tail = TAIL
  tail.fill(0)
  tail.set(data.subarray(whole), 0)
  tail[rest] = 0x80
  const tailBytes = rest + 9 <= BLOCK_BYTES ? BLOCK_BYTES : 2 * BLOCK_BYTES
  const bits = (prefixBytes + data.length) * 8
  const high = Math.floor(bits / 0x1_0000_0000)
  const low = bits - high * 0x1_0000_0000
  writeWord(tail, tailBytes - 8, high)
  writeWord(tail, tailBytes - 4, low)
  compress(state, tail, 0)
  if (tailBytes > BLOCK_BYTES) compress(state, tail, BLOCK_BYTES)
  const out = new Uint8Array(32)
  for (let i = 0; i < 8; i++) writeWord(out, i * 4, state[i] as number)
  return out
}

/** Writes the 32-bit word `value` big-endian into `bytes` at `at`. */
const writeWord = (bytes: Uint8Array, at: number, value: number): void => {
  bytes[at] = value >>> 24
  bytes[at + 1] = value >>> 16
  bytes[at + 2] = value >>> 8
  bytes[at + 3] = value
}

/** The SHA-256 digest (32 bytes) of `data`. */
export const sha256 = (data: Uint8Array): Uint8Array => finish(INITIAL.slice(), 0, data)

/** A key's states after its inner and outer padded blocks, for the last key `hmacSha256` was given. */
interface KeyStates {
  readonly key: Uint8Array
  readonly inner: Int32Array
  readonly outer: Int32Array
}

let lastKey: KeyStates | undefined

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

const keyStates = (key: Uint8Array): KeyStates => {
  if (lastKey !== undefined && sameBytes(lastKey.key, key)) return lastKey
  const block = new Uint8Array(BLOCK_BYTES)
  block.set(key.length > BLOCK_BYTES ? sha256(key) : key, 0)
  const padded = new Uint8Array(BLOCK_BYTES)
  for (let i = 0; i < BLOCK_BYTES; i++) padded[i] = (block[i] as number) ^ 0x36
  const inner = INITIAL.slice()
  compress(inner, padded, 0)
  for (let i = 0; i < BLOCK_BYTES; i++) padded[i] = (block[i] as number) ^ 0x5c
  const outer = INITIAL.slice()
  compress(outer, padded, 0)
  lastKey = { key: key.slice(), inner, outer }
  return lastKey
}

/** HMAC-SHA-256 of `data` under `key`. */
export const hmacSha256 = (key: Uint8Array, data: Uint8Array): Uint8Array => {
  const states = keyStates(key)
  return finish(states.outer.slice(), BLOCK_BYTES, finish(states.inner.slice(), BLOCK_BYTES, data))
}
