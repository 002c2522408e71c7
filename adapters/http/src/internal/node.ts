/**
 * Node's `http` requests and responses for the pipeline: a request as `Incoming`, an `Outgoing` written, and the
 * request aborted when its client goes away before the answer.
 */
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import type * as Stream from "node:stream"
import * as Body from "./body.js"
import type * as Pipeline from "./pipeline.js"

/**
 * A Node request as the pipeline reads it, under the request target `url` (the mount prefix `prefix`, if any, already
 * removed).
 */
export const incoming = (request: Http.IncomingMessage, url: string, prefix?: string): Pipeline.Incoming => ({
  method: request.method ?? "GET",
  url,
  header: (name) => Body.nodeHeader(request, name),
  body: () => Body.fromNode(request),
  ...(prefix === undefined || prefix === "" ? {} : { prefix })
})

/**
 * A request line: a method (an HTTP token, at most 64 characters here: it goes into the log line), one space, a target
 * of visible characters, one space, the version.
 */
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}) ([\x21-\x7e]+) HTTP\/1\.[01]\r?\n/

/** Node's own limit on a request's head (`--max-http-header-size`'s default): a longer line is not looked for. */
const MAX_LINE_BYTES = 16 * 1024

/** The methods Node's parser reads: any other is refused by the parser before the request reaches the server. */
const KNOWN_METHODS = new Set(Http.METHODS)

/** No body: for a request answered from its request line alone. */
const NO_BODY: Body.Source = {
  contentType: undefined,
  contentEncoding: undefined,
  contentLength: undefined,
  framed: true,
  transferEncoding: undefined,
  collect: Effect.succeed({ _tag: "Complete", bytes: new Uint8Array(0) })
}

/**
 * The request of a well-formed request line whose method Node's parser does not know (`FOO`, `get`, `QUERY` on an
 * older Node), from the parser's `HPE_INVALID_METHOD` error on `socket`; `undefined` unless the bytes it failed on
 * (`rawPacket`: the whole chunk of data it was parsing) are the first the connection received and start with such a
 * line. HTTP's methods are any token, case-sensitive: such a request is well-formed HTTP, and no route serves its
 * method, so the routes answer it from its line alone (404, or 405 with `Allow` for a known path) with no header or
 * body read.
 *
 * Only the connection's first data: there the request starts at the chunk's first byte. Later on the chunk may start
 * inside another request (the end of a body Node is discarding, a method split across two segments), and nothing
 * tells where the failing request starts, so such a request keeps the 400 of one Node cannot parse, as does a first
 * segment that ends before the line does.
 */
export const unknownMethod = (rawPacket: unknown, socket: Stream.Duplex): Pipeline.Incoming | undefined => {
  if (!Buffer.isBuffer(rawPacket) || (socket as { readonly bytesRead?: unknown }).bytesRead !== rawPacket.length) {
    return undefined
  }
  const line = REQUEST_LINE.exec(rawPacket.toString("latin1", 0, Math.min(rawPacket.length, MAX_LINE_BYTES)))
  const method = line?.[1]
  const url = line?.[2]
  if (method === undefined || url === undefined || KNOWN_METHODS.has(method)) return undefined
  return { method, url, header: () => undefined, body: () => NO_BODY }
}

/**
 * Writes a response straight onto a connection that has no `ServerResponse` (a `CONNECT` request's socket, one whose
 * request Node could not parse), then closes it; `false` when the client is already gone.
 */
export const writeRaw = (socket: Stream.Duplex, outgoing: Pipeline.Outgoing): boolean => {
  if (!socket.writable) {
    socket.destroy()
    return false
  }
  let head = `HTTP/1.1 ${outgoing.status} ${Http.STATUS_CODES[outgoing.status] ?? ""}\r\n`
  for (const [name, value] of Object.entries(outgoing.headers)) head += `${name}: ${value}\r\n`
  socket.end(`${head}connection: close\r\n\r\n${outgoing.body}`)
  return true
}

/** Writes a response, unless the connection is already gone. */
export const write = (response: Http.ServerResponse, outgoing: Pipeline.Outgoing): void => {
  if (response.destroyed || response.headersSent) return
  response.writeHead(outgoing.status, outgoing.headers)
  response.end(outgoing.body)
}

/** Runs a request through `runner` and writes its answer; the request is interrupted if its client leaves first. */
export const serve = (
  runner: Pipeline.Runner,
  request: Http.IncomingMessage,
  response: Http.ServerResponse,
  url: string,
  prefix?: string
): void => {
  let answered = false
  const abort = runner.run(incoming(request, url, prefix), (outgoing) => {
    answered = true
    write(response, outgoing)
  })
  if (!answered) {
    response.once("close", () => {
      if (!answered) abort()
    })
  }
}
