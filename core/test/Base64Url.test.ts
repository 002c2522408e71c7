/**
 * The core's base64url (`internal/base64url.ts`), which writes API keys and cursors, against Node's own: the encoder
 * gives Node's characters for any bytes (keys keep their format, cursors already issued keep decoding), and the strict
 * decoder accepts exactly the strings Node writes, refusing every other, so that no two strings name the same bytes.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as Base64Url from "../src/internal/base64url.js"

const node = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")

/** Strings over the alphabet with, now and then, a character from outside it (padding, base64's `+` and `/`, others). */
const candidates = fc.array(
  fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") },
    { weight: 1, arbitrary: fc.constantFrom("=", "+", "/", " ", ".", "\n", "é", "\u0100", "\uD83D") }
  ),
  { maxLength: 40 }
).map((chars) => chars.join(""))

describe("base64url", () => {
  it.prop("encodes any bytes as Node does", [fc.uint8Array({ maxLength: 300 })], ([bytes]) => {
    expect(Base64Url.encode(bytes)).toBe(node(bytes))
  })

  it("encodes long inputs as Node does, across its chunks of character codes", () => {
    for (const length of [3071, 3072, 3073, 12_288, 12_289, 100_000]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + length) % 256)
      expect(Base64Url.encode(bytes)).toBe(node(bytes))
    }
  })

  it.prop("decodes what Node writes to the same bytes", [fc.uint8Array({ maxLength: 300 })], ([bytes]) => {
    expect(Base64Url.decode(node(bytes))).toEqual(bytes)
  })

  it.prop("accepts exactly the strings Node writes", [candidates], ([text]) => {
    const canonical = /^[A-Za-z0-9_-]*$/.test(text) && node(Buffer.from(text, "base64url")) === text
    const decoded = Base64Url.decode(text)
    expect(decoded !== undefined).toBe(canonical)
    if (decoded !== undefined) expect(Base64Url.encode(decoded)).toBe(text)
  })

  it("refuses a length that no byte count gives and non-zero trailing bits", () => {
    expect(Base64Url.decode("AAAAA")).toBeUndefined()
    expect(Base64Url.decode("AB")).toBeUndefined()
    expect(Base64Url.decode("AAB")).toBeUndefined()
    expect(Base64Url.decode("AA")).toEqual(new Uint8Array([0]))
    expect(Base64Url.decode("AAE")).toEqual(new Uint8Array([0, 1]))
  })
})
