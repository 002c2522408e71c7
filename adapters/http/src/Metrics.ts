/**
 * What Stint measures, as Effect `Metric`s in the process-wide registry: requests, their durations, the domain events
 * operators watch (rate-limit rejections, idempotent replays and conflicts, timer starts and stops), store calls, the
 * database pool and the process. `MetricsServer` exports them in Prometheus' text format.
 *
 * Updates are synchronous (`unsafeUpdate` with label arrays cached per combination), so recording a request costs a
 * few map lookups; nothing here runs unless metrics are switched on.
 *
 * @since 0.1.0
 */
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as HttpMethod from "./internal/httpMethod.js"

/** Seconds, from 0.5 ms to 10 s: HTTP requests. */
const requestBuckets = MetricBoundaries.fromIterable([
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
])

/** Seconds, from 0.1 ms to 5 s: one store call. */
const storeBuckets = MetricBoundaries.fromIterable([
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5
])

/**
 * `stint_http_requests_total{method, route, status, code}`: every answered request. `method` is a known method
 * (OpenTelemetry's list, or `OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS`), `_OTHER` for any other (clients choose it:
 * see `internal/httpMethod.ts`); `route` the path template (`/api/v1/timers/:timerId/stop`), `none` when no route
 * matched; `code` the spec's error code, `none` on success.
 *
 * @since 0.1.0
 */
export const httpRequests = Metric.counter("stint_http_requests", {
  description: "HTTP requests answered, by method, route template, status and error code.",
  incremental: true
})

/**
 * `stint_http_request_duration_seconds{route}`: from the request's arrival to its answer.
 *
 * @since 0.1.0
 */
export const httpRequestDuration = Metric.histogram(
  "stint_http_request_duration_seconds",
  requestBuckets,
  "HTTP request duration in seconds, by route template."
)

/**
 * `stint_http_requests_aborted_total`: requests whose client went away before the answer (their handling was
 * interrupted; logged as `request aborted by the client`). Not in `stint_http_requests_total`, which counts answers.
 *
 * @since 0.1.0
 */
export const httpRequestsAborted = Metric.counter("stint_http_requests_aborted", {
  description: "HTTP requests abandoned by their client before the answer (handling interrupted).",
  incremental: true
})

/**
 * `stint_rate_limit_rejections_total`: requests refused with 429 (counted where the store says no).
 *
 * @since 0.1.0
 */
export const rateLimitRejections = Metric.counter("stint_rate_limit_rejections", {
  description: "Requests refused by the per-key rate limit (429).",
  incremental: true
})

/**
 * `stint_idempotent_replays_total`: timer mutations answered with the stored response of an earlier request.
 *
 * @since 0.1.0
 */
export const idempotentReplays = Metric.counter("stint_idempotent_replays", {
  description: "Timer mutations answered by replaying the stored response (Idempotent-Replayed: true).",
  incremental: true
})

/**
 * `stint_idempotency_conflicts_total`: an `Idempotency-Key` reused with different input (409).
 *
 * @since 0.1.0
 */
export const idempotencyConflicts = Metric.counter("stint_idempotency_conflicts", {
  description: "Idempotency-Keys reused with different input (409 IDEMPOTENCY_CONFLICT).",
  incremental: true
})

/**
 * `stint_timer_starts_total`: committed timer starts (a replay starts nothing).
 *
 * @since 0.1.0
 */
export const timerStarts = Metric.counter("stint_timer_starts", {
  description: "Timers started (committed; replays excluded).",
  incremental: true
})

/**
 * `stint_timer_stops_total{status}`: committed ends of entries: `completed` (a stop, or the running timer a start
 * replaced) or `voided` (by an operator).
 *
 * @since 0.1.0
 */
export const timerStops = Metric.counter("stint_timer_stops", {
  description: "Time entries ended (committed): completed by a stop or by the next start, or voided.",
  incremental: true
})

/**
 * `stint_store_call_duration_seconds{method}`: one call of the `Store` port (`withTimerTransaction` spans the whole
 * transaction).
 *
 * @since 0.1.0
 */
export const storeCallDuration = Metric.histogram(
  "stint_store_call_duration_seconds",
  storeBuckets,
  "Store port call duration in seconds, by method."
)

/**
 * `stint_store_call_failures_total{method}`: store calls that failed with a `StoreError` or a defect.
 *
 * @since 0.1.0
 */
export const storeCallFailures = Metric.counter("stint_store_call_failures", {
  description: "Store port calls that failed (StoreError or defect), by method.",
  incremental: true
})

/**
 * `stint_db_pool_connections{state}`: the PostgreSQL pool's connections, `in_use` or `idle`, at scrape time.
 *
 * @since 0.1.0
 */
export const poolConnections = Metric.gauge("stint_db_pool_connections", {
  description: "PostgreSQL pool connections by state (in_use, idle) at scrape time."
})

/**
 * `stint_db_pool_waiting`: queries waiting for a free pooled connection, at scrape time.
 *
 * @since 0.1.0
 */
export const poolWaiting = Metric.gauge("stint_db_pool_waiting", {
  description: "Queries waiting for a PostgreSQL pool connection at scrape time."
})

/**
 * `stint_db_pool_max`: the pool's size limit.
 *
 * @since 0.1.0
 */
export const poolMax = Metric.gauge("stint_db_pool_max", {
  description: "The PostgreSQL pool's maximum number of connections."
})

/**
 * `process_resident_memory_bytes`: the process's RSS at scrape time.
 *
 * @since 0.1.0
 */
export const residentMemory = Metric.gauge("process_resident_memory_bytes", {
  description: "Resident set size of the process in bytes."
})

/**
 * `nodejs_eventloop_lag_seconds{stat}`: event-loop delay since the previous scrape (`mean`, `p50`, `p99`,
 * `max`), measured by `perf_hooks.monitorEventLoopDelay`.
 *
 * @since 0.1.0
 */
export const eventLoopLag = Metric.gauge("nodejs_eventloop_lag_seconds", {
  description: "Event-loop delay beyond the 10 ms sampling interval, in seconds, since the previous scrape " +
    "(stat: mean, p50, p99, max)."
})

/**
 * The name of every metric as Prometheus shows it (counters gain `_total`, histograms `_bucket`, `_sum`, `_count`).
 *
 * @since 0.1.0
 */
export const names: ReadonlyArray<string> = [
  "stint_http_requests_total",
  "stint_http_request_duration_seconds",
  "stint_http_requests_aborted_total",
  "stint_rate_limit_rejections_total",
  "stint_idempotent_replays_total",
  "stint_idempotency_conflicts_total",
  "stint_timer_starts_total",
  "stint_timer_stops_total",
  "stint_store_call_duration_seconds",
  "stint_store_call_failures_total",
  "stint_db_pool_connections",
  "stint_db_pool_waiting",
  "stint_db_pool_max",
  "process_resident_memory_bytes",
  "nodejs_eventloop_lag_seconds"
]

/**
 * The counters without labels (registered when the listener starts, so that they show 0 before they first move).
 *
 * @since 0.1.0
 */
export const unlabelled: ReadonlyArray<Metric.Metric.Counter<number>> = [
  httpRequestsAborted,
  rateLimitRejections,
  idempotentReplays,
  idempotencyConflicts,
  timerStarts
]

/** The store methods `stint serve`'s requests call, whose failure series an alert watches. */
const servedMethods = [
  "authenticate",
  "authenticateInTimerTransaction",
  "withTimerTransaction",
  "listClients",
  "listProjects",
  "createProject",
  "findActiveEntry",
  "listEntries",
  "ping"
]

/**
 * Shows the labelled counters an alert watches at 0 before they first move (when the listener starts): the store
 * failures of every method `stint serve` calls, and the completed stops. A `rate()` over a series that does not exist
 * yet is no data, not 0.
 *
 * @since 0.1.0
 */
export const presetLabelled = (): void => {
  for (const method of servedMethods) storeCallFailures.unsafeUpdate(0, labels(["method", method]))
  timerStops.unsafeUpdate(0, labels(["status", "completed"]))
}

const labelCache = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()

/**
 * The label array for a combination of values, made once and then reused: Effect caches a metric's hook per label
 * array (by identity), so a reused array costs one lookup.
 *
 * @since 0.1.0
 */
export const labels = (...pairs: ReadonlyArray<readonly [string, string]>): ReadonlyArray<MetricLabel.MetricLabel> => {
  let key = ""
  for (const [name, value] of pairs) key += `${name}\u0000${value}\u0000`
  let found = labelCache.get(key)
  if (found === undefined) {
    found = pairs.map(([name, value]) => MetricLabel.make(name, value))
    labelCache.set(key, found)
  }
  return found
}

/**
 * One answered request, as the HTTP pipeline knows it at the end.
 *
 * @since 0.1.0
 */
export interface RequestRecord {
  readonly method: string
  /** The route template, `null` when no route matched. */
  readonly route: string | null
  readonly status: number
  /** The spec's error code, when the answer is an error. */
  readonly code?: string | undefined
  readonly durationMs: number
}

/** The labels of one (method, route, status, code) combination, for the request counter and the histogram. */
interface RequestLabels {
  readonly counter: ReadonlyArray<MetricLabel.MetricLabel>
  readonly duration: ReadonlyArray<MetricLabel.MetricLabel>
}

/** method → route → status → code → labels: a request finds its labels in four map lookups, no string built. */
const requestLabels = new Map<string, Map<string, Map<number, Map<string, RequestLabels>>>>()

const inner = <K, V>(map: Map<K, V>, key: K, make: () => V): V => {
  let found = map.get(key)
  if (found === undefined) {
    found = make()
    map.set(key, found)
  }
  return found
}

const labelsOfRequest = (method: string, route: string, status: number, code: string): RequestLabels => {
  const byCode = inner(
    inner(inner(requestLabels, method, () => new Map()), route, () => new Map()),
    status,
    () => new Map<string, RequestLabels>()
  )
  return inner(byCode, code, () => ({
    counter: labels(["method", method], ["route", route], ["status", String(status)], ["code", code]),
    duration: labels(["route", route])
  }))
}

/**
 * Counts a request and its duration.
 *
 * @since 0.1.0
 */
export const recordRequest = (record: RequestRecord): void => {
  const method = HttpMethod.label(record.method)
  const found = labelsOfRequest(method, record.route ?? "none", record.status, record.code ?? "none")
  httpRequests.unsafeUpdate(1, found.counter)
  httpRequestDuration.unsafeUpdate(record.durationMs / 1000, found.duration)
}

/**
 * Counts a request its client abandoned.
 *
 * @since 0.1.0
 */
export const recordAborted = (): void => {
  httpRequestsAborted.unsafeUpdate(1, [])
}
