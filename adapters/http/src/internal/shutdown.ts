/**
 * The Node server's edges: graceful shutdown (stop accepting, let in-flight requests finish, then close every
 * connection) and the answer to requests Node cannot parse (in the spec's error shape, with a request id).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Http from "node:http"
import type * as Stream from "node:stream"
import * as ErrorResponses from "../ErrorResponses.js"

/** Counts requests in flight on a server and drains it. */
export interface Tracker {
  /**
   * Stops accepting connections, closes idle ones, and completes once every in-flight request has been answered and
   * every connection is closed; after `timeout`, closes the connections of requests still running.
   */
  readonly drain: (timeout: Duration.DurationInput) => Effect.Effect<void>
}

/** Starts counting the server's requests in flight. */
export const track = (server: Http.Server): Tracker => {
  let inFlight = 0
  let draining = false
  server.on("request", (_request: Http.IncomingMessage, response: Http.ServerResponse) => {
    inFlight++
    response.once("close", () => {
      inFlight--
      if (!draining) return
      // A finished request leaves its keep-alive connection idle: close it, and everything once nothing runs.
      if (inFlight === 0) server.closeAllConnections()
      else server.closeIdleConnections()
    })
  })
  const drain = (timeout: Duration.DurationInput) =>
    Effect.async<void>((resume) => {
      draining = true
      if (!server.listening) {
        resume(Effect.void)
        return
      }
      const timer = setTimeout(() => server.closeAllConnections(), Duration.toMillis(timeout))
      server.close(() => {
        clearTimeout(timer)
        resume(Effect.void)
      })
      if (inFlight === 0) server.closeAllConnections()
      return Effect.sync(() => clearTimeout(timer))
    })
  return { drain }
}

/**
 * Answers a request Node could not parse with `400 INVALID_REQUEST` in the error shape and closes the connection;
 * `false` when the client is already gone.
 */
export const answerClientError = (socket: Stream.Duplex, requestId: string): boolean => {
  if (!socket.writable) {
    socket.destroy()
    return false
  }
  const body = ErrorResponses.body("INVALID_REQUEST", "The HTTP request could not be parsed.", {}, requestId)
  socket.end(
    "HTTP/1.1 400 Bad Request\r\n" +
      "Content-Type: application/json\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      "Connection: close\r\n\r\n" +
      body
  )
  return true
}
