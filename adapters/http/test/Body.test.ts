/**
 * The body reader over a Web `Request` (the Web handler's source) and another platform's request (`ServerInput.test.ts`
 * covers Node's over HTTP): a content coding or a transfer coding other than `chunked` is refused, naming it, never read
 * as sent; 64 KiB is read, one byte more is not.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Body from "../src/internal/body.js"

const read = (headers: Record<string, string>) =>
  Body.read(Body.fromWeb(
    new Request("http://localhost/api/v1/projects", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: "{\"name\":\"x\"}"
    })
  ))

describe("a Web request's body", () => {
  it.effect("with a transfer coding other than chunked is unreadable, naming the coding", () =>
    Effect.gen(function*() {
      expect(yield* read({ "transfer-encoding": "gzip, chunked" })).toMatchObject({
        _tag: "Unreadable",
        reason: "The request body's Transfer-Encoding (gzip, chunked) is not supported: send it with chunked alone, uncompressed."
      })
      expect(yield* read({ "content-encoding": "br" })).toMatchObject({
        _tag: "Unreadable",
        reason: "The request body's Content-Encoding (br) is not supported: send it uncompressed."
      })
      expect(yield* read({ "transfer-encoding": "chunked" })).toMatchObject({ _tag: "Json" })
      expect(yield* read({})).toMatchObject({ _tag: "Json" })
    }))
})

/** `{"name":"p"}` padded with spaces (JSON's own whitespace) to exactly `size` bytes. */
const padded = (size: number): string => `{"name":"p"}`.padEnd(size, " ")

/** A body in chunks of 4,096 bytes, as a stream with no declared length. */
const streamed = (text: string): ReadableStream<Uint8Array> => {
  const bytes = new TextEncoder().encode(text)
  let offset = 0
  return new ReadableStream({
    pull: (controller) => {
      if (offset >= bytes.length) return controller.close()
      controller.enqueue(bytes.subarray(offset, offset + 4096))
      offset += 4096
    }
  })
}

const webRequest = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  new Request("http://localhost/api/v1/projects", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    ...(typeof body === "string" ? {} : { duplex: "half" })
  } as RequestInit)

/** "A body over 64 KiB: 400 INVALID_REQUEST": 64 KiB exactly is read, one byte more is not, whatever the source. */
describe("the 64 KiB limit off Node's own request", () => {
  const exact = padded(Body.MAX_BYTES)
  const over = padded(Body.MAX_BYTES + 1)
  const tooLarge = { _tag: "Unreadable", reason: expect.stringContaining("64 KiB") }

  it.effect("a Web request, with its length declared or streamed without one", () =>
    Effect.gen(function*() {
      const declared = (text: string) => webRequest(text, { "content-length": String(Buffer.byteLength(text)) })
      expect(yield* Body.read(Body.fromWeb(declared(exact)))).toEqual({ _tag: "Json", value: { name: "p" } })
      expect(yield* Body.read(Body.fromWeb(declared(over)))).toMatchObject(tooLarge)
      expect(yield* Body.read(Body.fromWeb(webRequest(streamed(exact))))).toEqual({ _tag: "Json", value: { name: "p" } })
      expect(yield* Body.read(Body.fromWeb(webRequest(streamed(over))))).toMatchObject(tooLarge)
    }))

  it.effect("another platform's request, read through its body stream", () =>
    Effect.gen(function*() {
      const platform = (text: string) => Body.fromPlatform(HttpServerRequest.fromWeb(webRequest(streamed(text))))
      expect(yield* Body.read(platform(exact))).toEqual({ _tag: "Json", value: { name: "p" } })
      expect(yield* Body.read(platform(over))).toMatchObject(tooLarge)
    }))
})
