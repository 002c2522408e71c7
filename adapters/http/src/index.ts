/**
 * `@stint/http`: Stint's Node HTTP adapter (the `HttpApi` definition, the server, the OpenAPI document and the `/docs`
 * page) and the `stint` command.
 *
 * @since 0.1.0
 */

/** The one `HttpApi` definition of the seven operations; use it with `HttpApiClient.make`. @since 0.1.0 */
export * as Api from "./Api.js"
/** The `/docs` API reference page, rendered from the OpenAPI document. @since 0.1.0 */
export * as Docs from "./Docs.js"
/** Error codes to HTTP statuses, the error response schemas and the error body. @since 0.1.0 */
export * as ErrorResponses from "./ErrorResponses.js"
/** The API routes derived from the definition and the core operation behind each. @since 0.1.0 */
export * as Handlers from "./Handlers.js"
/** The core's `Hashing` port on `node:crypto`. @since 0.1.0 */
export * as NodeHashing from "./NodeHashing.js"
/** The OpenAPI 3.1 document generated from the definition. @since 0.1.0 */
export * as OpenApiDocument from "./OpenApiDocument.js"
/** Method and path-template matching with 404 and 405 outcomes. @since 0.1.0 */
export * as Router from "./Router.js"
/** The Node server layer `stint serve` runs and the `HttpApp` of the whole service. @since 0.1.0 */
export * as Server from "./Server.js"
/**
 * The whole API as handlers to mount in any server: a Web-standard `fetch` and a Node `(req, res, next?)`, built from
 * a `Store` layer, with a mount prefix and `dispose()`. @since 0.1.0
 */
export * as Handler from "./Handler.js"
/** The hooks an observer (metrics, traces) gets on every request. @since 0.1.0 */
export * as Observer from "./Observer.js"
/** The `stint` command line: its commands, and `run(argv)` answering the exit status. @since 0.1.0 */
export * as Cli from "./Cli.js"
/** The composition root's storage: a database address (`sqlite:PATH`, `postgres://…`) to a migrated `Store`. @since 0.1.0 */
export * as Database from "./Database.js"
/** What operators see: the request hooks, the layer that turns metrics and traces on, the store decorator. @since 0.1.0 */
export * as Observability from "./Observability.js"
/** The metrics Stint records, as Effect `Metric`s. @since 0.1.0 */
export * as Metrics from "./Metrics.js"
/** The Prometheus listener (`GET /metrics` on its own port). @since 0.1.0 */
export * as MetricsServer from "./MetricsServer.js"
/** OpenTelemetry tracing: the OTLP/HTTP exporter when `OTEL_EXPORTER_OTLP_ENDPOINT` is set. @since 0.1.0 */
export * as Tracing from "./Tracing.js"
/** The `Store` decorator behind store-call metrics and spans. @since 0.1.0 */
export * as ObservedStore from "./ObservedStore.js"
