/**
 * Whether traces are switched on, read from the standard OpenTelemetry variables without loading OpenTelemetry: an
 * OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), the SDK is not
 * disabled (`OTEL_SDK_DISABLED=true`), and `OTEL_TRACES_EXPORTER` is not `none`.
 */
import * as Config from "effect/Config"
import * as Option from "effect/Option"

/** A variable that is set to something other than blanks. */
export const nonEmpty = (name: string): Config.Config<Option.Option<string>> =>
  Config.string(name).pipe(Config.option, Config.map(Option.filter((value) => value.trim() !== "")))

/** Whether spans are to be exported. */
export const config: Config.Config<boolean> = Config.all({
  endpoint: nonEmpty("OTEL_EXPORTER_OTLP_ENDPOINT"),
  tracesEndpoint: nonEmpty("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  disabled: nonEmpty("OTEL_SDK_DISABLED"),
  exporter: nonEmpty("OTEL_TRACES_EXPORTER")
}).pipe(Config.map(({ disabled, endpoint, exporter, tracesEndpoint }) =>
  (Option.isSome(endpoint) || Option.isSome(tracesEndpoint)) &&
  !Option.exists(disabled, (value) => value.trim().toLowerCase() === "true") &&
  !Option.exists(exporter, (value) => value.trim().toLowerCase() === "none")
))
