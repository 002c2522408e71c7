/**
 * What OpenTelemetry has to say, in `stint serve`'s log: the SDK reports a misconfiguration (an unknown
 * `OTEL_TRACES_SAMPLER`, a ratio out of range, an unparsable endpoint) and a failed export only through its `diag`
 * logger, which is silent unless one is installed. `install` makes those warnings and errors JSON log lines like the
 * request log's, and `unsupported` names the standard variables set to something Stint does not do.
 */
import * as OtelApi from "@opentelemetry/api"
import * as Cause from "effect/Cause"
import * as LogLevel from "effect/LogLevel"
import { logLine } from "./pipeline.js"

/** A message repeated within this long is counted, not written again (a collector that is down fails every batch). */
const QUIET_MILLIS = 60_000

/**
 * Installs a `diag` logger (warnings and errors) that writes each message as one JSON line through `write`, annotated
 * `component: "opentelemetry"`. The same message again within a minute is not written; the next line of it says how
 * many were left out (`suppressed`).
 */
export const install = (write: (line: string) => void, clock: () => number = Date.now): void => {
  const lastWritten = new Map<string, { at: number; suppressed: number }>()
  const log = (level: LogLevel.LogLevel) => (message: string, ...args: Array<unknown>) => {
    const text = [readable(message), ...args.map((arg) => typeof arg === "string" ? arg : safeString(arg))].join(" ")
    const now = clock()
    const seen = lastWritten.get(text)
    if (seen !== undefined && now - seen.at < QUIET_MILLIS) {
      seen.suppressed++
      return
    }
    if (lastWritten.size >= 100) {
      for (const [key, entry] of lastWritten) if (now - entry.at >= QUIET_MILLIS) lastWritten.delete(key)
    }
    lastWritten.set(text, { at: now, suppressed: 0 })
    const annotations: Record<string, unknown> = { component: "opentelemetry" }
    if (seen !== undefined && seen.suppressed > 0) annotations["suppressed"] = seen.suppressed
    write(logLine(text, level, annotations, Cause.empty, "#0"))
  }
  const ignore = () => {}
  OtelApi.diag.setLogger(
    {
      error: log(LogLevel.Error),
      warn: log(LogLevel.Warning),
      info: ignore,
      debug: ignore,
      verbose: ignore
    },
    { logLevel: OtelApi.DiagLogLevel.WARN, suppressOverrideMessage: true }
  )
}

/** Writes a warning through the installed logger. */
export const warn = (message: string): void => OtelApi.diag.warn(message)

/**
 * The SDK reports an exception it caught (a failed export) as the exception's JSON, stack included: its message is
 * what an operator reads.
 */
const readable = (message: string): string => {
  if (!message.startsWith("{")) return message
  try {
    const parsed: unknown = JSON.parse(message)
    const inner = typeof parsed === "object" && parsed !== null ? (parsed as { message?: unknown }).message : undefined
    return typeof inner === "string" && inner !== "" ? inner : message
  } catch {
    return message
  }
}

const safeString = (value: unknown): string => {
  if (value instanceof Error) return value.message
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Values of the standard variables that Stint reads as written; anything else is warned about. */
const SUPPORTED: ReadonlyArray<{ readonly name: string; readonly values: ReadonlyArray<string>; readonly does: string }> = [
  { name: "OTEL_TRACES_EXPORTER", values: ["otlp", "none"], does: "spans are exported over OTLP/HTTP" },
  {
    name: "OTEL_EXPORTER_OTLP_PROTOCOL",
    values: ["http/protobuf", "http/json"],
    does: "spans are exported over OTLP/HTTP, as protobuf unless http/json is asked for"
  },
  {
    name: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    values: ["http/protobuf", "http/json"],
    does: "spans are exported over OTLP/HTTP, as protobuf unless http/json is asked for"
  },
  {
    name: "OTEL_PROPAGATORS",
    values: ["tracecontext", "baggage", "none"],
    does: "a caller's trace context is read from traceparent and tracestate (W3C Trace Context) only"
  }
]

/** A warning for each standard variable in `env` set to a value Stint does not honour as written. */
export const unsupported = (env: Readonly<Record<string, string | undefined>>): ReadonlyArray<string> => {
  const warnings: Array<string> = []
  for (const { does, name, values } of SUPPORTED) {
    const value = env[name]?.trim()
    if (value === undefined || value === "") continue
    const other = value.split(",").map((part) => part.trim().toLowerCase()).filter((part) => !values.includes(part))
    if (other.length > 0) warnings.push(`${name}=${value} is not supported (${other.join(", ")}): ${does}`)
  }
  return warnings
}
