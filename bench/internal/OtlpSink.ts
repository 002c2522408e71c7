/**
 * A local OTLP/HTTP receiver for `npm run bench -- --observability`: the traced server exports its spans here, as it
 * would to a collector. It reads every batch whole (what a collector must do before answering) and counts the spans
 * in it, so that the report can show that every request was traced and none was dropped.
 *
 * It runs in a process of its own, as a collector would: in the load driver's process, each batch it read (hundreds
 * of KB of JSON, once a second or so) could hold up the driver's next requests, and only in the traced server's rounds,
 * charging the receiver's work to the traced server (not measured: the separate process removes the question).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createInterface } from "node:readline"

/** A running receiver. */
export interface Sink {
  /** The value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string
  /** Spans received so far. */
  readonly spans: () => Promise<number>
  readonly stop: () => Promise<void>
}

/**
 * The receiver's program: answers every POST after reading it whole, counting one span per `"spanId"` member of its
 * OTLP/JSON body (`parentSpanId` is another name); `GET /spans` answers the count. Prints its port once listening.
 */
const program = `
import * as Http from "node:http"
let spans = 0
const server = Http.createServer((request, response) => {
  if (request.method === "GET") return response.writeHead(200).end(String(spans))
  const chunks = []
  request.on("data", (chunk) => chunks.push(chunk))
  request.on("end", () => {
    spans += Buffer.concat(chunks).toString("utf8").split('"spanId"').length - 1
    response.writeHead(200, { "content-type": "application/json" }).end("{}")
  })
})
server.listen(0, "127.0.0.1", () => console.log(server.address().port))
process.on("SIGTERM", () => server.close(() => process.exit(0)))
`

export const start = async (): Promise<Sink> => {
  const child: ChildProcess = spawn(process.execPath, ["--input-type=module", "-e", program], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const port = await new Promise<number>((resolve, reject) => {
    if (child.stdout === null) return reject(new Error("the OTLP receiver has no stdout"))
    createInterface({ input: child.stdout }).once("line", (line) => resolve(Number(line)))
    child.once("exit", (code) => reject(new Error(`the OTLP receiver exited (${code}) before listening`)))
  })
  const endpoint = `http://127.0.0.1:${port}`
  return {
    endpoint,
    spans: async () => Number(await (await fetch(`${endpoint}/spans`)).text()),
    stop: async () => {
      child.kill("SIGTERM")
      await exited
    }
  }
}
