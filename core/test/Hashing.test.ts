/**
 * The portable SHA-256 and HMAC-SHA-256 give exactly the bytes of `node:crypto` (stored digests depend on it), and the
 * core hashes through whatever `Hashing` is provided.
 */
import { describe, expect, it } from "@effect/vitest"
import { ApiKey, Hashing } from "@stint/core"
import { Effect, FastCheck as fc } from "effect"
import { createHash, createHmac } from "node:crypto"

const nodeSha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest())
const nodeHmac = (key: Uint8Array, data: Uint8Array) => new Uint8Array(createHmac("sha256", key).update(data).digest())
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")

describe("Hashing.portable", () => {
  it("matches the FIPS 180-2 examples", () => {
    const text = (s: string) => new TextEncoder().encode(s)
    expect(hex(Hashing.portable.sha256(text("abc"))))
      .toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    expect(hex(Hashing.portable.sha256(text(""))))
      .toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(hex(Hashing.portable.sha256(text("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))))
      .toBe("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  })

  it("gives node:crypto's SHA-256 for any input, across block boundaries", () => {
    for (let n = 0; n < 200; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) % 256)
      expect(hex(Hashing.portable.sha256(data))).toBe(hex(nodeSha256(data)))
    }
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2000 }), (data) => {
      expect(hex(Hashing.portable.sha256(data))).toBe(hex(nodeSha256(data)))
    }))
  })

  it("gives node:crypto's HMAC-SHA-256, keys longer than a block included", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 150 }), fc.uint8Array({ maxLength: 300 }), (key, data) => {
      expect(hex(Hashing.portable.hmacSha256(key, data))).toBe(hex(nodeHmac(key, data)))
    }))
  })
})

describe("Hashing", () => {
  it.effect("is the port every digest goes through", () =>
    Effect.gen(function*() {
      const key = "stint_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
      expect(yield* ApiKey.digest(key)).toBe(createHash("sha256").update(key).digest("hex"))
      const constant: Hashing.HashingShape = { sha256: () => new Uint8Array(32).fill(0xab), hmacSha256: () => new Uint8Array(32) }
      expect(yield* ApiKey.digest(key).pipe(Effect.provideService(Hashing.Hashing, constant))).toBe("ab".repeat(32))
    }))
})
