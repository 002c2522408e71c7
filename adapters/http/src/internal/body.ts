/**
 * Reads a request body for the core, never more than 64 KiB of it: a JSON value, the reason it cannot be read (wrong
 * content type, too large, not UTF-8, malformed JSON), or nothing when none was sent. Never fails: the core decides
 * when an unreadable body matters (after authentication, rate limit, scope and the idempotency key).
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Request } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Http from "node:http"

/** The largest body read: 64 KiB. */
export const MAX_BYTES = 64 * 1024

type Collected = { readonly _tag: "Complete"; readonly bytes: Uint8Array } | { readonly _tag: "TooLarge" }

const wrongType = Request.unreadable("Send the request body as JSON with \"Content-Type: application/json\".")
const tooLarge = Request.unreadable("The request body is larger than 64 KiB.")

const isJsonMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]?.trim().toLowerCase() === "application/json"

const utf8 = new TextDecoder("utf-8", { fatal: true })

const parse = (bytes: Uint8Array): Request.Body => {
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

const classify = (contentType: string | undefined, collected: Collected): Request.Body | undefined => {
  if (collected._tag === "Complete" && collected.bytes.length === 0) return undefined
  if (!isJsonMediaType(contentType)) return wrongType
  return collected._tag === "TooLarge" ? tooLarge : parse(collected.bytes)
}

/**
 * Collects a Node body up to `MAX_BYTES`; past it, discards the rest as it arrives (as Node does with a body nobody
 * reads), so that the connection stays usable and memory stays bounded. Node's `requestTimeout` bounds the time.
 */
const collectNode = (source: Http.IncomingMessage): Effect.Effect<Collected> =>
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

const readNode = (source: Http.IncomingMessage): Effect.Effect<Request.Body | undefined> => {
  const length = source.headers["content-length"]
  if ((length === undefined || length === "0") && source.headers["transfer-encoding"] === undefined) {
    return Effect.succeed(undefined)
  }
  const contentType = source.headers["content-type"]
  // Left unread, the body is discarded by Node once the response is sent.
  if (!isJsonMediaType(contentType)) return Effect.succeed(wrongType)
  if (Number(length) > MAX_BYTES) return Effect.succeed(tooLarge)
  return Effect.map(collectNode(source), (collected) => classify(contentType, collected))
}

/** Any other platform's request: through its body stream, stopping after `MAX_BYTES`. */
const readStream = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Request.Body | undefined> =>
  request.stream.pipe(
    Stream.runFoldWhile(
      { size: 0, chunks: [] as Array<Uint8Array> },
      (state) => state.size <= MAX_BYTES,
      (state, chunk) => ({ size: state.size + chunk.length, chunks: [...state.chunks, chunk] })
    ),
    Effect.map((state): Collected =>
      state.size > MAX_BYTES ? { _tag: "TooLarge" } : { _tag: "Complete", bytes: Buffer.concat(state.chunks) }
    ),
    Effect.map((collected) => classify(request.headers["content-type"], collected)),
    Effect.orElseSucceed(() => Request.unreadable("The request body could not be read."))
  )

/**
 * Reads the body of a request: Node's directly (bounded, without closing the connection), others' through their
 * stream.
 */
export const read = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Request.Body | undefined> => {
  const source: unknown = NodeHttpServerRequest.toIncomingMessage(request)
  return source instanceof Http.IncomingMessage ? readNode(source) : readStream(request)
}
