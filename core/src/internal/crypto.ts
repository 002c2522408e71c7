/**
 * Web Crypto (the `crypto` global of Node, Deno, Bun, browsers and workers), typed minimally so that the core needs
 * neither `@types/node` nor the DOM library.
 */
import * as Effect from "effect/Effect"

interface CryptoKeyLike {
  readonly type: string
}

interface SubtleLike {
  digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer>
  importKey(
    format: "raw",
    key: Uint8Array,
    algorithm: { readonly name: "HMAC"; readonly hash: "SHA-256" },
    extractable: boolean,
    usages: ReadonlyArray<"sign">
  ): Promise<CryptoKeyLike>
  sign(algorithm: "HMAC", key: CryptoKeyLike, data: Uint8Array): Promise<ArrayBuffer>
}

interface WebCrypto {
  readonly subtle: SubtleLike
  getRandomValues<T extends Uint8Array>(array: T): T
}

interface TextCodecs {
  readonly TextEncoder: new() => { encode(input: string): Uint8Array }
}

const webCrypto = (): WebCrypto => (globalThis as unknown as { readonly crypto: WebCrypto }).crypto

const encoder = new (globalThis as unknown as TextCodecs).TextEncoder()

/** UTF-8 bytes of a string. */
export const utf8 = (input: string): Uint8Array => encoder.encode(input)

/** `n` bytes from the platform's cryptographic random source. */
export const randomBytes = (n: number): Uint8Array => webCrypto().getRandomValues(new Uint8Array(n))

/** Lowercase hex of bytes. */
export const toHex = (bytes: Uint8Array): string => {
  let out = ""
  for (const b of bytes) out += b.toString(16).padStart(2, "0")
  return out
}

/** SHA-256 of bytes or of a string's UTF-8 encoding. */
export const sha256 = (data: Uint8Array | string): Effect.Effect<Uint8Array> =>
  Effect.promise(() => webCrypto().subtle.digest("SHA-256", typeof data === "string" ? utf8(data) : data)).pipe(
    Effect.map((buffer) => new Uint8Array(buffer))
  )

/** HMAC-SHA-256 of `data` under `secret`. */
export const hmacSha256 = (secret: Uint8Array, data: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(async () => {
    const subtle = webCrypto().subtle
    const key = await subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
    return new Uint8Array(await subtle.sign("HMAC", key, data))
  })

/** Compares two byte arrays in time independent of where they differ. */
export const constantTimeEqual = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let diff = 0
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number)
  return diff === 0
}
