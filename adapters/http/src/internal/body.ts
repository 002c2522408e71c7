/**
 * Reads a request body for the core, never more than 64 KiB of it: a JSON value, the reason it cannot be read (wrong
 * content type, too large, not UTF-8, malformed JSON), or nothing when none was sent. Never fails: the core decides
 * when an unreadable body matters (after authentication, rate limit, scope and the idempotency key).
 */
import type * as Http from "node:http"
import { Request } from "@stint/core"
import * as Effect from "effect/Effect"

/** The largest body read: 64 KiB. */
export const MAX_BYTES = 64 * 1024

const isJsonMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]?.trim().toLowerCase() === "application/json"

const declaresBody = (source: Http.IncomingMessage): boolean => {
  const length = source.headers["content-length"]
  return (length !== undefined && length !== "0") || source.headers["transfer-encoding"] !== undefined
}

type Collected = { readonly _tag: "Complete"; readonly bytes: Buffer } | { readonly _tag: "TooLarge" }

/**
 * Collects the body up to `MAX_BYTES`; past it, discards the rest as it arrives (as Node does with a body nobody
 * reads), so that the connection stays usable and memory stays bounded. Node's `requestTimeout` bounds the time.
 */
const collect = (source: Http.IncomingMessage): Effect.Effect<Collected> =>
  Effect.async<Collected>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BYTES) {
        cleanup()
        chunks.length = 0
        source.resume()
        resume(Effect.succeed({ _tag: "TooLarge" }))
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed({ _tag: "Complete", bytes: Buffer.concat(chunks, size) }))
    }
    // The client went away mid-body: nobody waits for an answer; the server interrupts this request.
    const onError = () => cleanup()
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    return Effect.sync(cleanup)
  })

const utf8 = new TextDecoder("utf-8", { fatal: true })

const parse = (bytes: Buffer): Request.Body | undefined => {
  if (bytes.length === 0) return undefined
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return Request.unreadable("The request body is not valid UTF-8.")
  }
  try {
    return Request.json(JSON.parse(text))
  } catch {
    return Request.unreadable("The request body is not valid JSON.")
  }
}

/**
 * Reads the body of a request. A body left unread (wrong content type, declared too large) is discarded by Node once
 * the response is sent.
 */
export const read = (source: Http.IncomingMessage): Effect.Effect<Request.Body | undefined> => {
  if (!declaresBody(source)) return Effect.succeed(undefined)
  if (!isJsonMediaType(source.headers["content-type"])) {
    return Effect.succeed(
      Request.unreadable("Send the request body as JSON with \"Content-Type: application/json\".")
    )
  }
  const tooLarge = Request.unreadable("The request body is larger than 64 KiB.")
  const length = Number(source.headers["content-length"])
  if (Number.isFinite(length) && length > MAX_BYTES) return Effect.succeed(tooLarge)
  return Effect.map(collect(source), (collected) => collected._tag === "TooLarge" ? tooLarge : parse(collected.bytes))
}
