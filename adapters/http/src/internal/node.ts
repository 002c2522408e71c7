/**
 * Node's `http` requests and responses for the pipeline: a request as `Incoming`, an `Outgoing` written, and the
 * request aborted when its client goes away before the answer.
 */
import type * as Http from "node:http"
import * as Body from "./body.js"
import type * as Pipeline from "./pipeline.js"

/** A Node request as the pipeline reads it, under the request target `url` (a mount prefix already removed). */
export const incoming = (request: Http.IncomingMessage, url: string): Pipeline.Incoming => ({
  method: request.method ?? "GET",
  url,
  header: (name) => Body.nodeHeader(request, name),
  body: () => Body.fromNode(request)
})

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
  url: string
): void => {
  let answered = false
  const abort = runner.run(incoming(request, url), (outgoing) => {
    answered = true
    write(response, outgoing)
  })
  if (!answered) {
    response.once("close", () => {
      if (!answered) abort()
    })
  }
}
