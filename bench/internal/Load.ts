/**
 * The load driver: keep-alive HTTP/1.1 connections that each send one request after another for a while (or for a
 * number of requests), and the figures of a run (requests per second, latency percentiles, statuses).
 */
import * as Http from "node:http"
import { performance } from "node:perf_hooks"

/** One request to send. */
export interface Request {
  readonly method: "GET" | "POST"
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string
}

/** An answer as the driver saw it. */
export interface Response {
  readonly status: number
  readonly body: string
}

/**
 * What one connection sends: `next` gives the next request (or a short sequence of them, such as a start and then
 * the stop of that timer); each response of a sequence is handed to the function that builds the next request.
 */
export type Script = (connection: number) => Step

/** A step: a request and, optionally, what to send after its response. */
export interface Step {
  readonly request: Request
  readonly then?: (response: Response) => Step | undefined
}

/** The figures of one run. */
export interface Result {
  readonly requests: number
  readonly seconds: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly statuses: Readonly<Record<string, number>>
  readonly errors: number
  /** The first few transport errors, for the log. */
  readonly errorMessages: ReadonlyArray<string>
}

/** Where to send, and how much. */
export interface Options {
  readonly url: string
  readonly connections: number
  /** Seconds to run; ignored when `requests` is given. */
  readonly seconds?: number
  /** Total number of requests to send. */
  readonly requests?: number
  /** Called after every response with the number of responses so far (the memory run reads RSS here). */
  readonly onResponse?: (count: number) => void
}

const send = (agent: Http.Agent, base: URL, request: Request): Promise<Response> =>
  new Promise((resolve, reject) => {
    const outgoing = Http.request({
      host: base.hostname,
      port: base.port,
      agent,
      method: request.method,
      path: request.path,
      headers: request.body === undefined
        ? request.headers
        : { ...request.headers, "content-type": "application/json", "content-length": Buffer.byteLength(request.body) }
    }, (incoming) => {
      let body = ""
      incoming.setEncoding("utf8")
      incoming.on("data", (chunk: string) => (body += chunk))
      incoming.on("end", () => resolve({ status: incoming.statusCode ?? 0, body }))
      incoming.on("error", reject)
    })
    outgoing.on("error", reject)
    outgoing.end(request.body)
  })

/** The `p`th percentile of ascending `sorted` (0 when empty). */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0

const round = (x: number, places = 2): number => Math.round(x * 10 ** places) / 10 ** places

/** Runs `script` on `options.connections` connections until the time or the request count is used up. */
export const run = async (script: Script, options: Options): Promise<Result> => {
  const base = new URL(options.url)
  const agent = new Http.Agent({ keepAlive: true, maxSockets: options.connections })
  const latencies: Array<number> = []
  const statuses: Record<string, number> = {}
  let errors = 0
  const errorMessages: Array<string> = []
  let sent = 0
  const started = performance.now()
  const deadline = options.requests === undefined ? started + (options.seconds ?? 10) * 1000 : Infinity
  const more = () => (options.requests === undefined ? performance.now() < deadline : sent < options.requests)
  const connection = async (index: number) => {
    while (more()) {
      let step: Step | undefined = script(index)
      while (step !== undefined && more()) {
        sent++
        const begin = performance.now()
        let response: Response
        try {
          response = await send(agent, base, step.request)
        } catch (error) {
          errors++
          if (errorMessages.length < 5) {
            errorMessages.push(`${step.request.method} ${step.request.path}: ${error instanceof Error ? error.message : String(error)}`)
          }
          break
        }
        latencies.push(performance.now() - begin)
        statuses[response.status] = (statuses[response.status] ?? 0) + 1
        options.onResponse?.(latencies.length)
        step = step.then?.(response)
      }
    }
  }
  await Promise.all(Array.from({ length: options.connections }, (_, index) => connection(index)))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  latencies.sort((a, b) => a - b)
  return {
    requests: latencies.length,
    seconds: round(seconds),
    rps: Math.round(latencies.length / seconds),
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    statuses,
    errors,
    errorMessages
  }
}

/** A keep-alive connection for requests outside any run (setup steps, the deep-page samples). */
export const client = (url: string) => {
  const agent = new Http.Agent({ keepAlive: true, maxSockets: 1 })
  const base = new URL(url)
  return { send: (request: Request) => send(agent, base, request), close: () => agent.destroy() }
}
