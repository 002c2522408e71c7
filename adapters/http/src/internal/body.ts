/**
 * Reads a request body for the core, never more than 64 KiB of it: a JSON value, the reason it cannot be read (wrong
 * content type, too large, not UTF-8, malformed JSON), a member name an object in it repeats (`Request.parseJson`), or
 * nothing when none was sent. Never fails: the core decides when an unreadable body matters (after authentication,
 * rate limit, scope and the idempotency key). One set of rules over three sources: Node's `IncomingMessage`, a Web
 * `Request`, and any `@effect/platform` request.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Request } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Http from "node:http"

/** The largest body read: 64 KiB. */
export const MAX_BYTES = 64 * 1024

/** What a bounded read found. */
export type Collected =
  | { readonly _tag: "Complete"; readonly bytes: Uint8Array }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Broken" }

/** The request's body as the pipeline reads it: its framing headers and a bounded reader. */
export interface Source {
  readonly contentType: string | undefined
  /** `Content-Encoding`, as sent. */
  readonly contentEncoding: string | undefined
  readonly contentLength: string | undefined
  /**
   * Whether the framing headers say if there is a body (HTTP/1.1 as Node parses it: no `Content-Length` and no
   * `Transfer-Encoding` means none). When not, the body is read first and an empty one counts as none.
   */
  readonly framed: boolean
  /** `Transfer-Encoding`, as sent: when present, the request declares a body without a length. */
  readonly transferEncoding: string | undefined
  /** Reads at most `MAX_BYTES` (and discards the rest); called at most once. */
  readonly collect: Effect.Effect<Collected>
}

const wrongType = Request.unreadable("Send the request body as JSON with \"Content-Type: application/json\".")
const tooLarge = Request.unreadable("The request body is larger than 64 KiB.")
const broken = Request.unreadable("The request body could not be read.")

const isJsonMediaType = (contentType: string | undefined): boolean =>
  contentType !== undefined && contentType.split(";")[0]?.trim().toLowerCase() === "application/json"

/** The codings a header names, in lower case (two headers arrive joined with ", "; empty items dropped). */
const codingsOf = (header: string | undefined): ReadonlyArray<string> =>
  header === undefined
    ? []
    : header.split(",").map((coding) => coding.trim().toLowerCase()).filter((coding) => coding !== "")

/**
 * A compressed body (gzip, say) would read as malformed JSON, or worse, a body labelled compressed and sent plain
 * would be read as if it were not: the refusal names the coding instead. `identity` (any case, also repeated) is no
 * coding at all. Of the transfer codings, only `chunked` is undone (by the server's parser, as framing); any other
 * (`gzip, chunked`) would leave the body encoded.
 */
const encodedBody = (source: Source): Request.Body | undefined => {
  const content = source.contentEncoding
  if (codingsOf(content).some((coding) => coding !== "identity")) {
    return Request.unreadable(
      `The request body's Content-Encoding (${content?.trim().slice(0, 40)}) is not supported: send it uncompressed.`
    )
  }
  const transfer = source.transferEncoding
  if (codingsOf(transfer).some((coding) => coding !== "chunked" && coding !== "identity")) {
    return Request.unreadable(
      `The request body's Transfer-Encoding (${
        transfer?.trim().slice(0, 40)
      }) is not supported: send it with chunked alone, uncompressed.`
    )
  }
  return undefined
}

const utf8 = new TextDecoder("utf-8", { fatal: true })

const parse = (bytes: Uint8Array): Request.Body => {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return Request.unreadable("The request body is not valid UTF-8.")
  }
  return Request.parseJson(text)
}

const classify = (source: Source, collected: Collected): Request.Body | undefined => {
  if (collected._tag === "Complete" && collected.bytes.length === 0) return undefined
  if (collected._tag === "Broken") return broken
  if (!isJsonMediaType(source.contentType)) return wrongType
  return encodedBody(source) ??
    (collected._tag === "TooLarge" ? tooLarge : parse(collected.bytes))
}

/**
 * Reads the body of a request: nothing when the framing says there is none, the refusal when the type or the declared
 * length already decides, and otherwise the bounded bytes, classified.
 */
export const read = (source: Source): Effect.Effect<Request.Body | undefined> => {
  if (!source.framed) return Effect.map(source.collect, (collected) => classify(source, collected))
  const length = source.contentLength
  if ((length === undefined || length === "0") && source.transferEncoding === undefined) return Effect.succeed(undefined)
  // Left unread, the body is discarded by the transport once the response is sent.
  if (!isJsonMediaType(source.contentType)) return Effect.succeed(wrongType)
  const encoded = encodedBody(source)
  if (encoded !== undefined) return Effect.succeed(encoded)
  if (Number(length) > MAX_BYTES) return Effect.succeed(tooLarge)
  return Effect.map(source.collect, (collected) => classify(source, collected))
}

/** Node requests whose body Node's parser gave up on (a malformed chunk): they will never end. */
const brokenBodies = new WeakSet<Http.IncomingMessage>()
/** The event `breakBody` emits on such a request, for a read already waiting on it. */
const BODY_BROKEN = Symbol("@stint/http/body-broken")

/**
 * Tells the reader of `request`'s body that Node's parser failed inside it (the server's `clientError`): a read
 * waiting for the body, or one that starts later, finds it unreadable instead of waiting for an end that never comes.
 * Does nothing once the body has been received whole.
 */
export const breakBody = (request: Http.IncomingMessage): void => {
  if (request.complete || brokenBodies.has(request)) return
  brokenBodies.add(request)
  request.emit(BODY_BROKEN)
}

/**
 * Collects a Node body up to `MAX_BYTES`; past it, discards the rest as it arrives (as Node does with a body nobody
 * reads), so that the connection stays usable and memory stays bounded. Node's `requestTimeout` bounds the time; a
 * body the parser gave up on (`breakBody`) is unreadable at once.
 */
const collectNode = (source: Http.IncomingMessage): Effect.Effect<Collected> =>
  Effect.async<Collected>((resume) => {
    if (brokenBodies.has(source)) {
      resume(Effect.succeed({ _tag: "Broken" }))
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off(BODY_BROKEN, onBroken)
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
    const onBroken = () => {
      cleanup()
      chunks.length = 0
      resume(Effect.succeed({ _tag: "Broken" }))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    source.on(BODY_BROKEN, onBroken)
    return Effect.sync(cleanup)
  })

const header = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.[0]

/**
 * Headers Stint reads of which Node keeps only the first when one is repeated (`request.headers`); every other it
 * joins with ", ", as a Web `Headers` joins all.
 */
const FIRST_ONLY: ReadonlySet<string> = new Set(["authorization", "content-type"])

/**
 * A header of a Node request (`name` in lowercase) as a Web `Headers` gives it: a repeated one joined with ", ", so
 * that two `Authorization` headers are one malformed value on every runtime rather than the first one on Node alone.
 */
export const nodeHeader = (request: Http.IncomingMessage, name: string): string | undefined => {
  const value = header(request.headers[name])
  if (value === undefined || !FIRST_ONLY.has(name)) return value
  const raw = request.rawHeaders
  let joined: string | undefined
  let count = 0
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i] ?? ""
    if (field.length === name.length && field.toLowerCase() === name) {
      joined = count === 0 ? raw[i + 1] : `${joined}, ${raw[i + 1]}`
      count++
    }
  }
  return count > 1 ? joined : value
}

/** A Node request's body. */
export const fromNode = (source: Http.IncomingMessage): Source => ({
  contentType: nodeHeader(source, "content-type"),
  contentEncoding: header(source.headers["content-encoding"]),
  contentLength: header(source.headers["content-length"]),
  framed: true,
  transferEncoding: header(source.headers["transfer-encoding"]),
  collect: collectNode(source)
})

/**
 * Reads a Web stream up to `MAX_BYTES`; past it, answers at once and discards the rest as it arrives, as the Node
 * reader does. Cancelling the stream instead would make a Node-based runtime (`@hono/node-server`) destroy the
 * connection, which `stint serve` keeps usable.
 */
const collectWeb = (body: ReadableStream<Uint8Array>): Effect.Effect<Collected> =>
  Effect.promise(async (): Promise<Collected> => {
    const reader = body.getReader()
    const chunks: Array<Uint8Array> = []
    let size = 0
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return { _tag: "Complete", bytes: Buffer.concat(chunks, size) }
        size += value.length
        if (size > MAX_BYTES) {
          chunks.length = 0
          void discard(reader)
          return { _tag: "TooLarge" }
        }
        chunks.push(value)
      }
    } catch {
      return { _tag: "Broken" }
    }
  })

/** Reads a stream to its end, keeping nothing. */
const discard = async (reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> => {
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read());
  } catch {
    // The client went away: nothing left to discard.
  }
}

/** A Web `Request`'s body: framed when it declares a length or a transfer encoding, read to find out otherwise. */
export const fromWeb = (request: globalThis.Request): Source => {
  const body = request.body
  const contentLength = request.headers.get("content-length") ?? undefined
  const transferEncoding = request.headers.get("transfer-encoding") ?? undefined
  return {
    contentType: request.headers.get("content-type") ?? undefined,
    contentEncoding: request.headers.get("content-encoding") ?? undefined,
    contentLength,
    framed: contentLength !== undefined || transferEncoding !== undefined || body === null,
    transferEncoding,
    collect: body === null ? Effect.succeed({ _tag: "Complete", bytes: new Uint8Array(0) }) : collectWeb(body)
  }
}

/** Any other platform's request: through its body stream, stopping after `MAX_BYTES`. */
const collectStream = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Collected> =>
  request.stream.pipe(
    Stream.runFoldWhile(
      { size: 0, chunks: [] as Array<Uint8Array> },
      (state) => state.size <= MAX_BYTES,
      (state, chunk) => ({ size: state.size + chunk.length, chunks: [...state.chunks, chunk] })
    ),
    Effect.map((state): Collected =>
      state.size > MAX_BYTES ? { _tag: "TooLarge" } : { _tag: "Complete", bytes: Buffer.concat(state.chunks) }
    ),
    Effect.orElseSucceed((): Collected => ({ _tag: "Broken" }))
  )

/** An `@effect/platform` request's body: Node's directly (bounded, without closing the connection), others' streamed. */
export const fromPlatform = (request: HttpServerRequest.HttpServerRequest): Source => {
  const source: unknown = NodeHttpServerRequest.toIncomingMessage(request)
  if (source instanceof Http.IncomingMessage) return fromNode(source)
  return {
    contentType: request.headers["content-type"],
    contentEncoding: request.headers["content-encoding"],
    contentLength: request.headers["content-length"],
    framed: false,
    transferEncoding: request.headers["transfer-encoding"],
    collect: collectStream(request)
  }
}
