/**
 * The OpenTelemetry resource of everything Stint exports, spans and metrics alike, so that the two join: `service.name`
 * `stint` unless `OTEL_SERVICE_NAME` names another, plus `OTEL_RESOURCE_ATTRIBUTES`.
 */
import * as Resource from "@effect/opentelemetry/Resource"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as TracingEnabled from "./tracingEnabled.js"

/** The `service.name` unless `OTEL_SERVICE_NAME` says otherwise. */
const SERVICE_NAME = "stint"

/** The resource, read from the environment when the layer is built. */
export const layer: Layer.Layer<Resource.Resource> = Layer.unwrapEffect(
  Effect.map(Effect.orDie(TracingEnabled.nonEmpty("OTEL_SERVICE_NAME")), (serviceName) =>
    Resource.layerFromEnv({ "service.name": Option.getOrElse(serviceName, () => SERVICE_NAME) }))
)
