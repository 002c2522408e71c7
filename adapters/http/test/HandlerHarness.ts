/**
 * Plain `node:http` servers around the embedders' handlers, for the handler tests: the Node handler as the request
 * listener (with an optional `next` of the app's own), and the Web handler behind a minimal Node-to-Fetch bridge.
 */
import type { Handler } from "@stint/http"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** A server the test started. */
export interface Listening {
  readonly url: string
  readonly close: () => Promise<void>
}

const listen = (server: Http.Server): Promise<Listening> =>
  new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done())
            server.closeAllConnections()
          })
      })
    })
  })

/** The Node handler as a plain server's listener; `own` answers what the handler passes on with `next()`. */
export const nodeServer = (
  handler: Handler.NodeHandler,
  own?: (request: Http.IncomingMessage, response: Http.ServerResponse) => void
): Promise<Listening> =>
  listen(Http.createServer((request, response) =>
    handler(request, response, own === undefined ? undefined : () => own(request, response))
  ))

/** The Web handler behind a bridge that hands it a `Request` and writes its `Response` as it is. */
export const fetchServer = (handler: Handler.FetchHandler): Promise<Listening> =>
  listen(Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", async () => {
      const headers = new Headers()
      for (const [name, value] of Object.entries(request.headers)) {
        if (typeof value === "string") headers.set(name, value)
      }
      const hasBody = request.method !== "GET" && request.method !== "HEAD"
      const answer = await handler(
        new Request(`http://${request.headers.host ?? "localhost"}${request.url ?? "/"}`, {
          method: request.method ?? "GET",
          headers,
          ...(hasBody ? { body: Buffer.concat(chunks) } : {})
        })
      )
      response.writeHead(answer.status, [...answer.headers].flat())
      response.end(Buffer.from(await answer.arrayBuffer()))
    })
  }))

/** A raw reply. */
export interface Reply {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
}

/** Sends one request with Node's client (no fetch normalisation in between). */
export const send = (
  url: string,
  request: { readonly method: string; readonly path: string; readonly headers?: Record<string, string>; readonly body?: string }
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const target = new URL(url)
    const outgoing = Http.request({
      host: target.hostname,
      port: target.port,
      method: request.method,
      path: request.path,
      agent: false,
      headers: {
        ...(request.body === undefined ? {} : { "content-length": String(Buffer.byteLength(request.body)) }),
        ...request.headers
      }
    }, (incoming) => {
      const chunks: Array<Buffer> = []
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk))
      incoming.on("error", reject)
      incoming.on("end", () =>
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(chunks).toString("utf8") }))
    })
    outgoing.on("error", reject)
    outgoing.end(request.body)
  })
