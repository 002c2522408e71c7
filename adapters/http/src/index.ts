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
/** The OpenAPI 3.1 document generated from the definition. @since 0.1.0 */
export * as OpenApiDocument from "./OpenApiDocument.js"
/** Method and path-template matching with 404 and 405 outcomes. @since 0.1.0 */
export * as Router from "./Router.js"
/** The `HttpApp` of the whole service and its Node server layer. @since 0.1.0 */
export * as Server from "./Server.js"
/** The `stint` command line: its commands, and `run(argv)` answering the exit status. @since 0.1.0 */
export * as Cli from "./Cli.js"
/** The composition root's storage: a database address (`sqlite:PATH`, `postgres://…`) to a migrated `Store`. @since 0.1.0 */
export * as Database from "./Database.js"
