/** A running receiver (`otlpReceiver.mjs`). */
export interface Receiver {
  /** The value for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string
  /** Spans received so far. */
  readonly spans: () => Promise<number>
  readonly stop: () => Promise<void>
}

export declare const start: () => Promise<Receiver>
