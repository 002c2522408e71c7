/**
 * `NodeHashing` hashes short inputs in TypeScript and the rest natively: on both sides of the switch, and with keys
 * changing between calls, it gives exactly the bytes of `node:crypto` (stored key digests and issued cursors depend on
 * them).
 */
import { describe, expect, it } from "@effect/vitest"
import { NodeHashing } from "@stint/http"
import { FastCheck as fc } from "effect"
import { createHash, createHmac } from "node:crypto"

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex")
const nodeSha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex")
const nodeHmac = (key: Uint8Array, data: Uint8Array) => createHmac("sha256", key).update(data).digest("hex")

/** Lengths around the switch, and some on either side of it. */
const length = fc.oneof(
  fc.integer({ min: NodeHashing.NATIVE_FROM_BYTES - 3, max: NodeHashing.NATIVE_FROM_BYTES + 3 }),
  fc.integer({ min: 0, max: 3 * NodeHashing.NATIVE_FROM_BYTES })
)
const bytes = length.chain((n) => fc.uint8Array({ minLength: n, maxLength: n }))

describe("NodeHashing", () => {
  it.prop("gives node:crypto's SHA-256 on both sides of the switch to native hashing", [bytes], ([data]) => {
    expect(hex(NodeHashing.hashing.sha256(data))).toBe(nodeSha256(data))
  }, { fastCheck: { numRuns: 500 } })

  it.prop("gives node:crypto's HMAC-SHA-256 on both sides of it, for keys of any length", [
    fc.uint8Array({ maxLength: 150 }),
    bytes
  ], ([key, data]) => {
    expect(hex(NodeHashing.hashing.hmacSha256(key, data))).toBe(nodeHmac(key, data))
  }, { fastCheck: { numRuns: 500 } })

  it("gives every key its own MAC when keys alternate, and a key's array changed in place its new MAC", () => {
    const data = new TextEncoder().encode("stint-cursor\nsome binding\n")
    const one = new Uint8Array(32).fill(1)
    const two = new Uint8Array(32).fill(2)
    for (let i = 0; i < 3; i++) {
      expect(hex(NodeHashing.hashing.hmacSha256(one, data))).toBe(nodeHmac(one, data))
      expect(hex(NodeHashing.hashing.hmacSha256(two, data))).toBe(nodeHmac(two, data))
    }
    one[31] = 9
    expect(hex(NodeHashing.hashing.hmacSha256(one, data))).toBe(nodeHmac(one, data))
  })
})
