/**
 * `stint serve` with `OTEL_EXPORTER_OTLP_ENDPOINT`: spans go over the wire, OTLP/HTTP (protobuf by default, JSON when
 * asked), to a receiver the test runs (a plain node:http server), the request span with its store-call children; the
 * request log line carries the trace id.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { build, serve, type Serving, stintJson, tempDir } from "./CliHarness.js"
import { fixture, ids, ownerKey, writeJson } from "./CliFixture.js"
import { decodeTraces, type OtlpExport, type OtlpSpan } from "./OtlpProtobuf.js"

const dir = tempDir()
beforeAll(build)
afterAll(dir.remove)

/**
 * A receiver of OTLP/HTTP exports: every request's path, content type, raw body and body read by its content type
 * (protobuf or JSON).
 */
const receiver = async () => {
  const received: Array<
    { readonly path: string; readonly contentType: string; readonly raw: Buffer; readonly body: OtlpExport }
  > = []
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const raw = Buffer.concat(chunks)
      const contentType = request.headers["content-type"] ?? ""
      const protobuf = contentType === "application/x-protobuf"
      received.push({
        path: request.url ?? "",
        contentType,
        raw,
        body: protobuf ? decodeTraces(raw) : JSON.parse(raw.toString("utf8")) as OtlpExport
      })
      if (protobuf) response.writeHead(200, { "content-type": "application/x-protobuf" }).end()
      else response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    spans: () => received.flatMap(({ body }) => body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans ?? []))),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value

const eventually = async <A>(find: () => A | undefined, timeoutMillis: number): Promise<A> => {
  const deadline = Date.now() + timeoutMillis
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error("not received in time")
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

let server: Serving | undefined
let otlp: Awaited<ReturnType<typeof receiver>> | undefined
afterEach(async () => {
  server?.kill()
  await otlp?.close()
})

const PROTOCOLS = [
  { protocol: "protobuf, the default", env: {}, contentType: /^application\/x-protobuf$/, file: "protobuf" },
  {
    protocol: "JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json)",
    env: { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
    contentType: /^application\/json/,
    file: "json"
  },
  {
    // The traces' own variable wins over the general one.
    protocol: "protobuf (OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf over OTEL_EXPORTER_OTLP_PROTOCOL=http/json)",
    env: { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" },
    contentType: /^application\/x-protobuf$/,
    file: "traces-protobuf"
  }
] as const

describe("OTLP/HTTP export", () => {
  it.each(PROTOCOLS)("sends the request span and its store-call children to OTEL_EXPORTER_OTLP_ENDPOINT as $protocol", async ({ contentType, env, file }) => {
    otlp = await receiver()
    const db = `sqlite:${join(dir.path, `otlp-${file}.db`)}`
    await stintJson(["seed", writeJson(join(dir.path, `fixture-${file}.json`), fixture), "--database", db])
    server = await serve(["--port", "0", "--database", db], {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_BSP_SCHEDULE_DELAY: "50",
        OTEL_SERVICE_NAME: "stint-under-test",
        ...env
      }
    })
    const response = await fetch(`${server.url}/api/v1/clients`, { headers: { authorization: `Bearer ${ownerKey}` } })
    expect(response.status).toBe(200)
    const requestId = response.headers.get("x-request-id")

    const receiving = otlp
    const span = await eventually(() => receiving.spans().find((s) => s.name === "GET /api/v1/clients"), 20_000)
    expect(receiving.received[0]?.path).toBe("/v1/traces")
    expect(receiving.received[0]?.contentType).toMatch(contentType)
    expect(receiving.received[0]?.body.resourceSpans[0]?.resource?.attributes).toContainEqual({
      key: "service.name",
      value: { stringValue: "stint-under-test" }
    })
    expect(attribute(span, "http.route")).toEqual({ stringValue: "/api/v1/clients" })
    expect(attribute(span, "stint.request_id")).toEqual({ stringValue: requestId })
    expect(attribute(span, "stint.key_id")).toEqual({ stringValue: ids.ownerKey })
    expect(Number(attribute(span, "http.response.status_code")?.intValue)).toBe(200)
    const children = await eventually(() => {
      const found = receiving.spans().filter((s) => s.parentSpanId === span.spanId).map((s) => s.name).sort()
      return found.length === 2 ? found : undefined
    }, 20_000)
    expect(children).toEqual(["Store.authenticate", "Store.listClients"])
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/)
    for (const { raw } of receiving.received) expect(raw.toString("latin1")).not.toContain(ownerKey)

    const line = server.lines.find((l) => l.includes(String(requestId)))
    expect((JSON.parse(line ?? "{}") as { annotations?: { traceId?: string } }).annotations?.traceId)
      .toBe(span.traceId)
  })

  it("logs OpenTelemetry's complaints: a misconfigured variable, an unsupported one, a collector that refuses", async () => {
    const db = `sqlite:${join(dir.path, "complaints.db")}`
    await stintJson(["seed", writeJson(join(dir.path, "complaints.json"), fixture), "--database", db])
    // A port nothing listens on: every export fails.
    const closed = await receiver()
    await closed.close()
    server = await serve(["--port", "0", "--database", db], {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: closed.url,
        OTEL_BSP_SCHEDULE_DELAY: "50",
        OTEL_TRACES_SAMPLER: "bogus",
        OTEL_EXPORTER_OTLP_PROTOCOL: "grpc"
      }
    })
    const complaints = () =>
      server?.lines.flatMap((line) => {
        if (!line.startsWith("{")) return [] // the listening line
        const parsed = JSON.parse(line) as { message: string; annotations?: { component?: string } }
        return parsed.annotations?.component === "opentelemetry" ? [parsed.message] : []
      }) ?? []
    expect(complaints().some((message) => message.startsWith("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported")))
      .toBe(true)
    expect(complaints().some((message) => message.includes("OTEL_TRACES_SAMPLER value \"bogus\" invalid"))).toBe(true)
    // Still traced (the SDK's default sampler) and still serving; the failed export is logged.
    const response = await fetch(`${server.url}/api/v1/clients`, { headers: { authorization: `Bearer ${ownerKey}` } })
    expect(response.status).toBe(200)
    const refused = await eventually(() => complaints().find((message) => message.includes("ECONNREFUSED")), 30_000)
    // The exception's message, not its JSON with a stack.
    expect(refused).toMatch(/^connect ECONNREFUSED 127\.0\.0\.1:\d+$/)
  })
})
