/**
 * A local OTLP/HTTP receiver for the benchmarks that trace (`npm run bench -- --observability`, `bench/observing.mjs`):
 * the traced server exports its spans here, as it would to a collector. It reads every batch whole (what a collector
 * must do before answering) and counts the spans in it, so that a report can show that every sampled request was
 * traced and none dropped: in an OTLP/protobuf body (the exporters' default), the `spans` of each `scope_spans` of each
 * `resource_spans`, walked in protobuf's wire format without decoding the spans; in an OTLP/JSON body
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`), one per `"spanId"` member (`parentSpanId` is another name).
 *
 * It runs in a process of its own, as a collector would: in the load driver's process, each batch it read (hundreds
 * of KB of JSON, once a second or so) could hold up the driver's next requests, and only in the traced server's rounds,
 * charging the receiver's work to the traced server (not measured: the separate process removes the question).
 *
 * `start()` runs this file as that process (`node otlpReceiver.mjs`: listens, prints its port, stops on SIGTERM or
 * when its stdin closes, as it does when the process that started it ends).
 */
import { spawn } from "node:child_process"
import { fstatSync } from "node:fs"
import * as Http from "node:http"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { repeated } from "../../testing/protobufWire.mjs"

const self = fileURLToPath(import.meta.url)

/** Starts the receiver process; answers its endpoint, its span count so far, and how to stop it. */
export const start = async () => {
  // Its stdin is a pipe from this process: when this process ends, however it ends, the receiver sees it close.
  const child = spawn(process.execPath, [self], { stdio: ["pipe", "pipe", "inherit"] })
  const exited = new Promise((resolve) => child.once("exit", () => resolve()))
  const port = await new Promise((resolve, reject) => {
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

/**
 * The spans in an OTLP/protobuf `ExportTraceServiceRequest`: its `resource_spans` (field 1), their `scope_spans`
 * (field 2), their `spans` (field 2), read with the tests' wire reader; the spans themselves are counted, not read.
 */
const countProtobufSpans = (bytes) => {
  let spans = 0
  for (const resourceSpans of repeated(bytes, 1)) {
    for (const scopeSpans of repeated(resourceSpans, 2)) spans += repeated(scopeSpans, 2).length
  }
  return spans
}

const serve = () => {
  let spans = 0
  const server = Http.createServer((request, response) => {
    if (request.method === "GET") return response.writeHead(200).end(String(spans))
    const chunks = []
    request.on("data", (chunk) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks)
      if (request.headers["content-type"] === "application/x-protobuf") {
        spans += countProtobufSpans(body)
        return response.writeHead(200, { "content-type": "application/x-protobuf" }).end()
      }
      spans += body.toString("utf8").split("\"spanId\"").length - 1
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  server.listen(0, "127.0.0.1", () => console.log(server.address().port))
  process.on("SIGTERM", () => server.close(() => process.exit(0)))
  // Started by `start()` (stdin a pipe from the starting process, a socket pair as Node makes it): that process is
  // gone when the pipe ends.
  const input = fstatSync(0)
  if (input.isFIFO() || input.isSocket()) {
    process.stdin.on("end", () => process.exit(0))
    process.stdin.resume()
  }
}

if (process.argv[1] === self) serve()
