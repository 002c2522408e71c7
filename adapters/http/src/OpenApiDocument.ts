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

const mounted = new Map<string, string>()

/**
 * The document as served under a mount prefix (`/time`): its server is the prefix, so that a client made from it calls
 * `/time/api/v1/…`; the paths stay the spec's. Made once per prefix.
 *
 * @since 0.1.0
 */
export const jsonAt = (prefix: string): string => {
  if (prefix === "" || prefix === "/") return json
  let made = mounted.get(prefix)
  if (made === undefined) {
    made = JSON.stringify({
      ...document,
      servers: [{ url: prefix, description: "The origin that serves this document, under the prefix Stint is mounted at." }]
    })
    mounted.set(prefix, made)
  }
  return made
}
