/**
 * A request's method as metrics and spans name it, after OpenTelemetry's HTTP conventions: one of HTTP's nine
 * standard methods as it is, any other `_OTHER` (the span keeps the method sent in `http.request.method_original`).
 * The client chooses the method: Node's parser passes a few dozen (`PURGE`, `LOCK`, `QUERY`), the Web handler any
 * token its runtime accepts (`BREW`, `patch`). A label made from the method as sent would let clients add series to
 * the metrics without end.
 */
const STANDARD: ReadonlySet<string> = new Set([
  "CONNECT",
  "DELETE",
  "GET",
  "HEAD",
  "OPTIONS",
  "PATCH",
  "POST",
  "PUT",
  "TRACE"
])

/** What stands for any method that is not one of the nine. */
export const OTHER = "_OTHER"

/** Whether `method` is one of HTTP's nine standard methods (case-sensitive, as HTTP's methods are). */
export const isStandard = (method: string): boolean => STANDARD.has(method)

/** The method as a metric label or span attribute: itself when standard, else `_OTHER`. */
export const label = (method: string): string => STANDARD.has(method) ? method : OTHER

/** The method as the first word of a span's name: itself when standard, else `HTTP` (the conventions' word). */
export const spanWord = (method: string): string => STANDARD.has(method) ? method : "HTTP"
