/**
 * The Node server's edges: graceful shutdown (stop accepting, let in-flight requests finish, then close every
 * connection) and the answer to requests Node cannot parse (in the spec's error shape, with a request id).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Http from "node:http"
import type * as Stream from "node:stream"
import * as Dispatch from "./dispatch.js"
import * as NodeIo from "./node.js"
import * as Pipeline from "./pipeline.js"

/** Counts requests in flight on a server and drains it. */
export interface Tracker {
  /**
   * Whether a request on this connection is still being answered. A parse error that arrives behind it (pipelined
   * garbage) must not be answered with a 400 that the client would read as the running request's answer.
   */
  readonly busy: (socket: Stream.Duplex) => boolean
  /** The last request Node parsed on this connection, if it is still being answered. */
  readonly running: (socket: Stream.Duplex) => Http.IncomingMessage | undefined
  /**
   * Closes the connection as soon as the requests running on it have been answered; the last one's answer, unless
   * already sent, says so (`Connection: close`).
   */
  readonly closeWhenIdle: (socket: Stream.Duplex) => void
  /**
   * Runs `then` once the requests running on this connection have been answered (their answers handed to the socket,
   * in order), instead of leaving the connection open: to answer, in its turn, a request that Node could not parse
   * behind them. Only the first `then` given for a connection runs.
   */
  readonly whenIdle: (socket: Stream.Duplex, then: () => void) => void
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
  const perSocket = new WeakMap<Stream.Duplex, number>()
  /** The last response begun on each connection, while it runs (its request is `response.req`). */
  const latest = new WeakMap<Stream.Duplex, Http.ServerResponse>()
  const closing = new WeakSet<Stream.Duplex>()
  const waiting = new WeakMap<Stream.Duplex, () => void>()
  server.on("request", (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    inFlight++
    const socket = request.socket
    perSocket.set(socket, (perSocket.get(socket) ?? 0) + 1)
    latest.set(socket, response)
    response.once("close", () => {
      inFlight--
      const left = (perSocket.get(socket) ?? 1) - 1
      perSocket.set(socket, left)
      if (latest.get(socket) === response) latest.delete(socket)
      if (left === 0) {
        const then = waiting.get(socket)
        if (then !== undefined) {
          waiting.delete(socket)
          then()
        } else if (closing.has(socket)) socket.destroy()
      }
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
  return {
    drain,
    busy: (socket) => (perSocket.get(socket) ?? 0) > 0,
    running: (socket) => latest.get(socket)?.req,
    closeWhenIdle: (socket) => {
      closing.add(socket)
      const response = latest.get(socket)
      if (response !== undefined && !response.headersSent) response.setHeader("Connection", "close")
    },
    whenIdle: (socket, then) => {
      if (waiting.has(socket)) return
      if ((perSocket.get(socket) ?? 0) === 0) return then()
      waiting.set(socket, then)
    }
  }
}

/**
 * Answers a request Node could not parse (or whose headers did not arrive in time) with `400 INVALID_REQUEST` saying
 * `message`, with the headers of every answer, and closes the connection; `false` when the client is already gone.
 */
export const answerClientError = (socket: Stream.Duplex, requestId: string, message: string): boolean =>
  NodeIo.writeRaw(
    socket,
    Pipeline.toResponse(Dispatch.failure(requestId, null, "INVALID_REQUEST", 400, message), requestId)
  )
