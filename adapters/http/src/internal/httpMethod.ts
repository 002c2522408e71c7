/**
 * A request's method as metrics and spans name it, after OpenTelemetry's HTTP conventions: a known method as it is,
 * any other `_OTHER` (the span keeps the method sent in `http.request.method_original`). The client chooses the
 * method, and any token reaches the pipeline: Node's parser passes a few dozen (`PURGE`, `LOCK`), `stint serve`
 * answers the rest itself (`FOO`, `get`: 404 or 405), and the Web handler takes whatever its runtime accepts. A label
 * made from the method as sent would let clients add series to the metrics without end.
 *
 * The known methods are the conventions' (HTTP's nine, and `QUERY`), or, as the conventions ask of instrumentation
 * that turns valid methods into `_OTHER`, the comma-separated list in `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS`
 * (read once, when this module loads).
 */
const DEFAULT = ["CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE"]

/** The methods `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS` lists, or the default when it is unset or lists none. */
const knownMethods = (setting: string | undefined): ReadonlySet<string> => {
  const listed = (setting ?? "").split(",").map((method) => method.trim()).filter((method) => method !== "")
  return new Set(listed.length > 0 ? listed : DEFAULT)
}

// `process` may be missing where the Web handler runs (a runtime without Node's globals): the default then.
const KNOWN = knownMethods(globalThis.process?.env?.["OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS"])

/** What stands for any method that is not known. */
const OTHER = "_OTHER"

/** Whether `method` is known (case-sensitive, as HTTP's methods are). */
export const isKnown = (method: string): boolean => KNOWN.has(method)

/** The method as a metric label or span attribute: itself when known, else `_OTHER`. */
export const label = (method: string): string => KNOWN.has(method) ? method : OTHER

/** The method as the first word of a span's name: itself when known, else `HTTP` (the conventions' word). */
export const spanWord = (method: string): string => KNOWN.has(method) ? method : "HTTP"
