/**
 * A local OTLP/HTTP receiver for `npm run bench -- --observability`: the traced server exports its spans here, as it
 * would to a collector. It reads every batch whole (what a collector must do before answering) and counts the spans
 * in it, so that the report can show that every request was traced and none was dropped.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/** A running receiver. */
export interface Sink {
  /** The value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string
  /** Spans received so far. */
  readonly spans: () => number
  readonly stop: () => Promise<void>
}

/** Spans in one OTLP/JSON batch: one `"spanId"` member each (`parentSpanId` is another name). */
const spansIn = (body: string): number => body.split("\"spanId\"").length - 1

export const start = async (): Promise<Sink> => {
  let spans = 0
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      spans += spansIn(Buffer.concat(chunks).toString("utf8"))
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => spans,
    stop: () => new Promise((resolve) => server.close(() => resolve()))
  }
}
