/**
 * OpenTelemetry's own complaints in `stint serve`'s log (`internal/otelDiag.ts`): each warning or error one JSON line,
 * a message repeated within a minute left out and counted, and the standard variables Stint does not honour named.
 */
import * as OtelApi from "@opentelemetry/api"
import { afterEach, describe, expect, it } from "vitest"
import * as OtelDiag from "../src/internal/otelDiag.js"

afterEach(() => OtelApi.diag.disable())

const installed = () => {
  const lines: Array<{ message: string; logLevel: string; annotations: Record<string, unknown> }> = []
  let now = 1_000_000
  OtelDiag.install((line) => lines.push(JSON.parse(line) as (typeof lines)[number]), () => now)
  return { lines, advance: (millis: number) => (now += millis) }
}

describe("the diag logger", () => {
  it("writes warnings and errors as JSON lines of the request log's shape; info and debug not at all", () => {
    const { lines } = installed()
    OtelApi.diag.error("OTEL_TRACES_SAMPLER value \"bogus\" invalid", "more")
    OtelApi.diag.warn("a warning", { field: 1 })
    OtelApi.diag.info("an info")
    OtelApi.diag.debug("a debug line")
    expect(lines).toMatchObject([
      {
        message: "OTEL_TRACES_SAMPLER value \"bogus\" invalid more",
        logLevel: "ERROR",
        annotations: { component: "opentelemetry" }
      },
      { message: "a warning {\"field\":1}", logLevel: "WARN", annotations: { component: "opentelemetry" } }
    ])
    expect(lines).toHaveLength(2)
  })

  it("writes a message repeated within a minute once, then again with the number left out", () => {
    const { advance, lines } = installed()
    for (let i = 0; i < 5; i++) {
      OtelApi.diag.error("export failed: connect ECONNREFUSED")
      advance(10_000)
    }
    OtelApi.diag.error("another failure")
    expect(lines.map((line) => line.message)).toEqual(["export failed: connect ECONNREFUSED", "another failure"])
    advance(20_000)
    OtelApi.diag.error("export failed: connect ECONNREFUSED")
    expect(lines).toHaveLength(3)
    expect(lines[2]?.annotations).toEqual({ component: "opentelemetry", suppressed: 4 })
  })

  it("an exception the SDK caught (its JSON, stack included) is written as its message", () => {
    const { lines } = installed()
    const failure = new Error("connect ECONNREFUSED 127.0.0.1:9")
    OtelApi.diag.error(JSON.stringify({ stack: failure.stack, message: failure.message, code: "ECONNREFUSED" }))
    OtelApi.diag.error("{not json")
    expect(lines.map((line) => line.message)).toEqual(["connect ECONNREFUSED 127.0.0.1:9", "{not json"])
  })
})

describe("unsupported", () => {
  it("names each standard variable set to what Stint does not do, and nothing for what it does", () => {
    expect(OtelDiag.unsupported({
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf",
      OTEL_PROPAGATORS: "tracecontext, baggage"
    })).toEqual([])
    expect(OtelDiag.unsupported({})).toEqual([])
    const warnings = OtelDiag.unsupported({
      OTEL_TRACES_EXPORTER: "zipkin",
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc",
      OTEL_PROPAGATORS: "tracecontext,b3"
    })
    expect(warnings).toHaveLength(4)
    expect(warnings[0]).toMatch(/^OTEL_TRACES_EXPORTER=zipkin is not supported \(zipkin\)/)
    expect(warnings[1]).toMatch(/^OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/)
    expect(warnings[2]).toMatch(/^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported/)
    expect(warnings[3]).toMatch(/^OTEL_PROPAGATORS=tracecontext,b3 is not supported \(b3\)/)
  })
})
