/**
 * A fault-injecting HTTP proxy in front of a real server: it forwards every request and logs what passed (method,
 * path, headers, body, when it was forwarded, when and how the server answered), and on request it breaks the next
 * matching exchanges: cuts the connection after the server answered, answers 500 instead of forwarding or after
 * forwarding, holds the answer back, or changes the body.
 */
import { randomUUID } from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** How an exchange is broken. */
export type Fault =
  /** Forward, let the server answer, then close the connection without a word. */
  | { readonly _tag: "Drop" }
  /** Answer 500 `INTERNAL_ERROR` without forwarding. */
  | { readonly _tag: "FailBefore" }
  /** Forward, let the server answer, then answer 500 `INTERNAL_ERROR` instead. */
  | { readonly _tag: "FailAfter" }
  /** Forward, and pass the answer on only after `millis`. */
  | { readonly _tag: "Hold"; readonly millis: number }
  /** Forward, and pass the answer on with its body changed. */
  | { readonly _tag: "Rewrite"; readonly body: (text: string) => string }

/** One request that reached the proxy. */
export interface Exchange {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  /** What broke it, if anything. */
  fault?: Fault["_tag"]
  /** When it was sent on to the server (ms since the epoch); absent when it never was. */
  forwardedAt?: number
  /** When the server's whole answer was back. */
  answeredAt?: number
  /** The server's status. */
  status?: number
  /** The server's body. */
  answer?: string
  /** The client closed the connection before the proxy answered (an aborted request). */
  abandoned?: boolean
}

export interface Proxy {
  readonly url: string
  /** Every exchange, in arrival order. */
  readonly log: Array<Exchange>
  /** Breaks the next `times` exchanges whose method and path match. */
  readonly inject: (method: string, path: RegExp, fault: Fault, times?: number) => void
  /** Serves `body` at `path` itself (a page and a script on the API's origin, for a browser). */
  readonly serve: (path: string, contentType: string, body: string) => void
  readonly close: () => Promise<void>
}

interface Rule {
  readonly method: string
  readonly path: RegExp
  readonly fault: Fault
  remaining: number
}

const readAll = (stream: NodeJS.ReadableStream): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    stream.on("data", (chunk: Buffer) => chunks.push(chunk))
    stream.on("end", () => resolve(Buffer.concat(chunks)))
    stream.on("error", reject)
  })

const internalError = (response: Http.ServerResponse) => {
  const requestId = `proxy-${randomUUID()}`
  response.writeHead(500, { "content-type": "application/json", "x-request-id": requestId })
  response.end(JSON.stringify({ error: { code: "INTERNAL_ERROR", message: "injected", details: {} }, requestId }))
}

/** Starts a proxy to `target` (`http://host:port`) on a free port. */
export const start = async (target: string): Promise<Proxy> => {
  const upstream = new URL(target)
  const agent = new Http.Agent({ keepAlive: true })
  const rules: Array<Rule> = []
  const log: Array<Exchange> = []
  const pages = new Map<string, { readonly contentType: string; readonly body: string }>()

  const forward = (exchange: Exchange) =>
    new Promise<{ status: number; headers: Http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      exchange.forwardedAt = Date.now()
      const outgoing = Http.request({
        host: upstream.hostname,
        port: upstream.port,
        method: exchange.method,
        path: exchange.path,
        headers: { ...exchange.headers, host: upstream.host, connection: "keep-alive" },
        agent
      }, async (incoming) => {
        const body = await readAll(incoming)
        exchange.answeredAt = Date.now()
        exchange.status = incoming.statusCode ?? 0
        exchange.answer = body.toString("utf8")
        resolve({ status: exchange.status, headers: incoming.headers, body })
      })
      outgoing.on("error", reject)
      outgoing.end(exchange.body)
    })

  const server = Http.createServer(async (request, response) => {
    const page = pages.get(request.url ?? "")
    if (page !== undefined) {
      response.writeHead(200, { "content-type": page.contentType })
      return response.end(page.body)
    }
    const exchange: Exchange = {
      method: request.method ?? "",
      path: request.url ?? "",
      headers: request.headers,
      body: (await readAll(request)).toString("utf8")
    }
    log.push(exchange)
    response.on("close", () => {
      if (!response.writableFinished) exchange.abandoned = true
    })
    const rule = rules.find((r) => r.remaining > 0 && r.method === exchange.method && r.path.test(exchange.path))
    if (rule !== undefined) {
      rule.remaining--
      exchange.fault = rule.fault._tag
    }
    const fault = rule?.fault
    if (fault?._tag === "FailBefore") return internalError(response)
    try {
      const answer = await forward(exchange)
      if (fault?._tag === "Drop") return response.socket?.destroy()
      if (fault?._tag === "FailAfter") return internalError(response)
      if (fault?._tag === "Hold") await new Promise((resolve) => setTimeout(resolve, fault.millis))
      const body = fault?._tag === "Rewrite" ? Buffer.from(fault.body(answer.body.toString("utf8"))) : answer.body
      const { "content-length": _length, "transfer-encoding": _encoding, connection: _connection, ...headers } =
        answer.headers
      response.writeHead(answer.status, { ...headers, "content-length": String(body.length) })
      response.end(body)
    } catch {
      response.socket?.destroy()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    inject: (method, path, fault, times = 1) => rules.push({ method, path, fault, remaining: times }),
    serve: (path, contentType, body) => pages.set(path, { contentType, body }),
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
      agent.destroy()
    }
  }
}
