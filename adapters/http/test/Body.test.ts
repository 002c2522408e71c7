/**
 * The body reader's codings over a Web `Request` (the Web handler's source; `ServerInput.test.ts` covers Node's over
 * HTTP): a content coding or a transfer coding other than `chunked` is refused, naming it, never read as sent.
 */
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
