/**
 * The OpenAPI 3.1 document of the API, generated from the one `HttpApi` definition and served at
 * `/api/v1/openapi.json`.
 *
 * @since 0.1.0
 */
import * as OpenApi from "@effect/platform/OpenApi"
import { Api } from "./Api.js"

/**
 * The document.
 *
 * @since 0.1.0
 */
export const document: OpenApi.OpenAPISpec = OpenApi.fromApi(Api)

/**
 * The document as served.
 *
 * @since 0.1.0
 */
export const json: string = JSON.stringify(document)
