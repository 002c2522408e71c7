/**
 * Node's `http` requests and responses for the pipeline: a request as `Incoming`, an `Outgoing` written, and the
 * request aborted when its client goes away before the answer.
 */
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
