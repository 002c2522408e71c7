/**
 * Tracing in process: with an in-memory span exporter, one server span per request (named after the route template,
 * with status, error code, request id and key id, never the key), the store calls as its children, the caller's
 * `traceparent` honoured, a 5xx marked as an error, and the trace id on the request's log line. Off by default.
 */
import * as OtelTracer from "@effect/opentelemetry/Tracer"
import { ROOT_CONTEXT, SamplingDecision, SpanKind, SpanStatusCode, TraceFlags } from "@opentelemetry/api"
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler
} from "@opentelemetry/sdk-trace-base"
import { Errors, MemoryStore, Store } from "@stint/core"
import { Handler, Metrics, Observability, ObservedStore, type Observer, Tracing } from "@stint/http"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Metric from "effect/Metric"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as Http from "node:http"
import { beforeEach, describe, expect, it } from "vitest"
import * as OtelSpan from "../src/internal/otelSpan.js"
import { nodeServer, send } from "./HandlerHarness.js"
import { ids, keys } from "./ServerFixture.js"
import { type Options, stores, withServer } from "./ServerHarness.js"

const memory = stores.find((store) => store.name === "memory")
if (memory === undefined) throw new Error("no memory store case")

// A tracer provider shuts its processors (and so the exporter) down with the server: one exporter per test.
let exporter = new InMemorySpanExporter()
beforeEach(() => {
  exporter = new InMemorySpanExporter()
})

const traced = (options: Options = {}, unsampledParent?: boolean): Options => {
  const observability: Observability.Options = { spanProcessors: [new SimpleSpanProcessor(exporter)], unsampledParent }
  return {
    ...options,
    services: Observability.layer(observability),
    observer: Observability.hooks(Observability.shapeOf(observability)),
    store: (layer) =>
      Observability.storeLayer(observability).pipe(
        Layer.provide(options.store === undefined ? layer : options.store(layer))
      )
  }
}

const serverSpans = (): ReadonlyArray<ReadableSpan> =>
  exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER)

const childrenOf = (parent: ReadableSpan): ReadonlyArray<ReadableSpan> =>
  exporter.getFinishedSpans().filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId)

const only = <A>(items: ReadonlyArray<A>): A => {
  expect(items).toHaveLength(1)
  return items[0] as A
}

/** A store whose `findActiveEntry` runs inside `wrap` (an embedder's own code around the call). */
const aroundFindActiveEntry = (
  wrap: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
): NonNullable<Options["store"]> =>
(layer) =>
  Layer.effect(
    Store.Store,
    Effect.map(Store.Store, (store) => ({ ...store, findActiveEntry: (scope) => wrap(store.findActiveEntry(scope)) }))
  ).pipe(Layer.provide(layer))

/** A store whose `findActiveEntry` never answers, and a promise that resolves once a request is inside that call. */
const hangingFindActiveEntry = (): { readonly hanging: NonNullable<Options["store"]>; readonly inCall: Promise<void> } => {
  let entered = (): void => {}
  const inCall = new Promise<void>((resolve) => {
    entered = resolve
  })
  const hanging: NonNullable<Options["store"]> = (layer) =>
    Layer.effect(
      Store.Store,
      Effect.map(Store.Store, (store) => ({
        ...store,
        findActiveEntry: () => Effect.zipRight(Effect.sync(() => entered()), Effect.never)
      }))
    ).pipe(Layer.provide(layer))
  return { hanging, inCall }
}

/** Sends `GET /api/v1/timer` and goes away once the request is inside the hanging call. */
const abandonTimerRequest = async (port: number, inCall: Promise<void>): Promise<void> => {
  const request = Http.request({
    host: "127.0.0.1",
    port,
    path: "/api/v1/timer",
    headers: { authorization: `Bearer ${keys.member}` }
  })
  request.on("error", () => {})
  request.end()
  await inCall
  request.destroy()
}

describe("request spans", () => {
  it("a method that is not known: named HTTP, its method _OTHER, the method sent beside it", () =>
    withServer(memory, traced())(async (server) => {
      exporter.reset()
      // A method Node's parser knows, so it reaches the pipeline; no route serves it.
      expect((await server.api("PURGE", "/api/v1/timer", { key: keys.member })).status).toBe(405)
      const span = only(serverSpans())
      // A 405 keeps the route it matched.
      expect(span.name).toBe("HTTP /api/v1/timer")
      expect(span.attributes["http.request.method"]).toBe("_OTHER")
      expect(span.attributes["http.request.method_original"]).toBe("PURGE")
      exporter.reset()
      expect((await server.api("GET", "/api/v1/timer", { key: keys.member })).status).toBe(200)
      const standard = only(serverSpans())
      expect(standard.name).toBe("GET /api/v1/timer")
      expect(standard.attributes["http.request.method"]).toBe("GET")
      expect(standard.attributes["http.request.method_original"]).toBeUndefined()
    }))

  it("one server span per request, its attributes, its store-call children, and the trace id in the log", () =>
    withServer(memory, traced())(async (server) => {
      exporter.reset()
      const reply = await server.api("POST", "/api/v1/timers/start", {
        key: keys.member,
        idempotencyKey: "trace-1",
        json: { projectId: ids.website }
      })
      expect(reply.status).toBe(200)
      const span = only(serverSpans())
      expect(span.name).toBe("POST /api/v1/timers/start")
      expect(span.attributes).toMatchObject({
        "http.request.method": "POST",
        "http.route": "/api/v1/timers/start",
        "http.response.status_code": 200,
        "stint.request_id": reply.requestId,
        "stint.key_id": server.keyIdOf(keys.member)
      })
      expect(span.attributes["stint.error_code"]).toBeUndefined()
      // OpenTelemetry leaves OK to the application: a success's status stays unset.
      expect(span.status).toEqual({ code: SpanStatusCode.UNSET })

      const children = childrenOf(span)
      expect(children.map((child) => child.name).sort()).toEqual(["Store.authenticate", "Store.withTimerTransaction"])
      for (const child of children) {
        expect(child.kind).toBe(SpanKind.CLIENT)
        expect(child.status).toEqual({ code: SpanStatusCode.UNSET })
        expect(child.spanContext().traceId).toBe(span.spanContext().traceId)
      }
      // Store calls are leaves.
      for (const child of children) expect(childrenOf(child)).toEqual([])
      // The key itself is nowhere in any span.
      expect(JSON.stringify(exporter.getFinishedSpans().map((s) => [s.name, s.attributes, s.events])))
        .not.toContain(keys.member)

      const line = server.logs().find((log) => log.annotations["requestId"] === reply.requestId)
      expect(line?.annotations["traceId"]).toBe(span.spanContext().traceId)
      expect(line?.annotations["spanId"]).toBe(span.spanContext().spanId)
      // After the line's own fields, as any observer's fields come.
      expect(Object.keys(line?.annotations ?? {}).slice(-2)).toEqual(["traceId", "spanId"])
    }))

  it("an error answer carries its code; an unmatched path has no route", () =>
    withServer(memory, traced())(async (server) => {
      exporter.reset()
      const refused = await server.api("GET", "/api/v1/timer", { key: "stint_notAKeyAtAll00000000001" })
      expect(refused.status).toBe(401)
      const unknown = await server.send({ method: "GET", path: "/nowhere" })
      expect(unknown.status).toBe(404)
      const [first, second] = serverSpans()
      expect(first?.name).toBe("GET /api/v1/timer")
      expect(first?.attributes).toMatchObject({ "stint.error_code": "INVALID_API_KEY", "http.response.status_code": 401 })
      expect(first?.attributes["stint.key_id"]).toBeUndefined()
      // A 4xx is the client's error, not the server's: the server span's status stays unset (OpenTelemetry's HTTP
      // conventions).
      expect(first?.status).toEqual({ code: SpanStatusCode.UNSET })
      expect(second?.status).toEqual({ code: SpanStatusCode.UNSET })
      expect(second?.name).toBe("GET")
      expect(second?.attributes["http.route"]).toBeUndefined()
      expect(second?.attributes).toMatchObject({ "stint.error_code": "NOT_FOUND", "stint.request_id": unknown.requestId })
    }))

  it("continues the caller's trace from traceparent", () =>
    withServer(memory, traced())(async (server) => {
      exporter.reset()
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
      const parentId = "00f067aa0ba902b7"
      await server.api("GET", "/api/v1/timer", {
        key: keys.member,
        headers: { traceparent: `00-${traceId}-${parentId}-01` }
      })
      const span = only(serverSpans())
      expect(span.spanContext().traceId).toBe(traceId)
      expect(span.parentSpanContext?.spanId).toBe(parentId)
    }))

  it("keeps the caller's tracestate on the request span and its store-call children", () =>
    withServer(memory, traced())(async (server) => {
      exporter.reset()
      await server.api("GET", "/api/v1/timer", {
        key: keys.member,
        headers: {
          traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
          tracestate: "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
        }
      })
      const span = only(serverSpans())
      expect(span.spanContext().traceState?.serialize()).toBe("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
      const children = childrenOf(span)
      expect(children).toHaveLength(2)
      for (const child of children) {
        expect(child.spanContext().traceState?.serialize()).toBe("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")
      }
    }))

  it("ignores a traceparent the W3C standard does not allow (uppercase hex, all zeros, a bad version): a new trace", () =>
    withServer(memory, traced())(async (server) => {
      const sent = [
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"
      ]
      for (const traceparent of sent) {
        exporter.reset()
        const reply = await server.api("GET", "/api/v1/timer", { key: keys.member, headers: { traceparent } })
        expect(reply.status, traceparent).toBe(200)
        const span = only(serverSpans())
        expect(span.parentSpanContext, traceparent).toBeUndefined()
        expect(span.spanContext().traceId.toLowerCase(), traceparent).not.toBe("4bf92f3577b34da6a3ce929d0e0e4736")
      }
    }))

  it("a 5xx marks the request span and the failed store call as errors", () => {
    const unreachable: Options["store"] = (layer) =>
      Layer.effect(
        Store.Store,
        Effect.map(Store.Store, (store) => ({ ...store, ping: new Errors.StoreError({ message: "unreachable" }) }))
      ).pipe(Layer.provide(layer))
    return withServer(memory, traced({ store: unreachable }))(async (server) => {
      exporter.reset()
      const reply = await server.send({ method: "GET", path: "/readyz" })
      expect(reply.status).toBe(503)
      const span = only(serverSpans())
      expect(span.name).toBe("GET /readyz")
      expect(span.status.code).toBe(SpanStatusCode.ERROR)
      expect(span.attributes).toMatchObject({ "stint.error_code": "NOT_READY", "error.type": "NOT_READY" })
      const ping = only(childrenOf(span))
      expect([ping.name, ping.status.code]).toEqual(["Store.ping", SpanStatusCode.ERROR])
    })
  })

  it.each(stores.map((store) => [store.name, store] as const))(
    "%s: a refusal decided inside a store call (TIMER_NOT_FOUND) leaves that call's span a success",
    (_name, store) =>
      withServer(store, traced())(async (server) => {
        exporter.reset()
        const reply = await server.api("POST", `/api/v1/timers/${ids.website}/stop`, {
          key: keys.member,
          idempotencyKey: "stop-nothing"
        })
        expect(reply.status).toBe(404)
        const span = only(serverSpans())
        expect(span.attributes).toMatchObject({ "stint.error_code": "TIMER_NOT_FOUND" })
        const children = childrenOf(span)
        expect(children.length).toBeGreaterThan(0)
        for (const child of children) {
          expect(child.status.code, child.name).not.toBe(SpanStatusCode.ERROR)
          expect(child.events.filter((event) => event.name === "exception")).toEqual([])
        }
      })
  )

  it("a database that stops answering: /readyz 503 after its timeout, counted as a failed ping", () => {
    const silent: Options["store"] = (layer) =>
      Layer.effect(Store.Store, Effect.map(Store.Store, (store) => ({ ...store, ping: Effect.never }))).pipe(
        Layer.provide(layer)
      )
    const failedPings = () =>
      Effect.runSync(Metric.value(Metric.taggedWithLabels(Metrics.storeCallFailures, Metrics.labels(["method", "ping"]))))
        .count
    return withServer(memory, traced({ store: silent }))(async (server) => {
      const before = failedPings()
      const reply = await server.send({ method: "GET", path: "/readyz" })
      expect(reply.status).toBe(503)
      expect(Number(failedPings()) - Number(before)).toBe(1)
    })
  }, 20_000)

  describe("where a store call finds its parent span", () => {
    const tracing = () => Tracing.layer(new SimpleSpanProcessor(exporter))
    const spanNamed = (name: string): ReadableSpan =>
      only(exporter.getFinishedSpans().filter((span) => span.name === name))
    const isChild = (child: ReadableSpan, parent: ReadableSpan) => {
      expect(child.parentSpanContext?.spanId).toBe(parent.spanContext().spanId)
      expect(child.spanContext().traceId).toBe(parent.spanContext().traceId)
    }
    /** Runs `test` with a store whose calls are traced, under `Tracing`'s tracer (spans read before it closes). */
    const withObserved = <E>(test: (observed: Store.Store["Type"]) => Effect.Effect<void, E>) =>
      Effect.runPromise(
        Effect.flatMap(Store.Store, (store) => test(ObservedStore.make(store, { metrics: false, spans: true }))).pipe(
          Effect.provide(Layer.merge(MemoryStore.layerMemory, tracing()))
        )
      )
    /** Runs `self` as a request under `Tracing`'s request hook (sampled: the default sampler samples every root). */
    const asRequest = <A, E, R>(self: Effect.Effect<A, E, R>) =>
      Observability.hooks({ metrics: false, tracing: true }).request!(
        { method: "GET", url: "/api/v1/timer", header: () => undefined },
        self
      )

    it("a call made in a fiber the request forked is a child of the request span", () =>
      withObserved((observed) =>
        Effect.gen(function*() {
          // Fails if the request's span is kept where a forked fiber does not see it.
          yield* asRequest(Effect.flatMap(Effect.fork(observed.ping), Fiber.join))
          // Read before the layer closes: the provider's shutdown empties the exporter.
          isChild(spanNamed("Store.ping"), spanNamed("GET"))
        })
      ))

    it("inside a sampled request, an Effect span is the request's child, a call inside it that span's, and Effect sees the request span", () =>
      withObserved((observed) =>
        Effect.gen(function*() {
          // Fails if the request span is kept where Effect's own spans do not look (its ParentSpan).
          const [current] = yield* asRequest(
            Effect.all([Effect.currentSpan, Effect.withSpan(observed.ping, "embedder.work")])
          )
          const request = spanNamed("GET")
          expect(current.spanId).toBe(request.spanContext().spanId)
          isChild(spanNamed("embedder.work"), request)
          isChild(spanNamed("Store.ping"), spanNamed("embedder.work"))
        })
      ))

    it("a request effect run twice is two requests: each its own span, ended, with Effect's parent span set", () =>
      withObserved(() =>
        Effect.gen(function*() {
          const request = asRequest(Effect.orDie(Effect.currentParentSpan))
          const first = yield* request
          const second = yield* request
          expect(first.spanId).not.toBe(second.spanId)
          const spans = exporter.getFinishedSpans().filter((span) => span.name === "GET")
          expect(spans.map((span) => span.spanContext().spanId).sort()).toEqual([first.spanId, second.spanId].sort())
        })
      ))

    it("a request begun by a runner runs under the span begin decided, ended once; run again, it is decided afresh", () =>
      withObserved(() =>
        Effect.gen(function*() {
          const hooks = Observability.hooks({ metrics: false, tracing: true })
          const arrived = { method: "GET", url: "/api/v1/timer", header: () => undefined }
          const runtime = yield* Effect.runtime<never>()
          const context = hooks.begin!(arrived, runtime)
          if (context === undefined) throw new Error("begin decided nothing under Tracing's tracer")
          const begun = Context.unsafeGet(context, Tracer.ParentSpan)
          const request = hooks.request!(arrived, Effect.orDie(Effect.currentParentSpan))
          const first = yield* Effect.provide(request, context)
          expect(first).toBe(begun)
          const again = yield* Effect.provide(request, context)
          expect(again.spanId).not.toBe(begun.spanId)
          expect(exporter.getFinishedSpans().filter((span) => span.name === "GET").map((span) => span.spanContext().spanId).sort())
            .toEqual([begun.spanId, again.spanId].sort())
        })
      ))

    it("a call inside an embedder's own span (Effect.withSpan under Tracing's tracer) is a child of that span", () =>
      withObserved((observed) =>
        Effect.gen(function*() {
          yield* Effect.withSpan(observed.ping, "embedder.work")
          isChild(spanNamed("Store.ping"), spanNamed("embedder.work"))
        })
      ))
  })

  it("Handler.make with Observability.layer merged into its store layer: a request span and its store call's", async () => {
    const observability: Observability.Options = { spanProcessors: [new SimpleSpanProcessor(exporter)] }
    const handler = Handler.make(
      Layer.merge(
        Observability.storeLayer(observability).pipe(Layer.provide(MemoryStore.layerMemory)),
        Observability.layer(observability)
      ),
      { log: false, observer: Observability.hooks(Observability.shapeOf(observability)) }
    )
    const server = await nodeServer(handler.node)
    try {
      exporter.reset()
      const reply = await send(server.url, { method: "GET", path: "/readyz" })
      expect(reply.status).toBe(200)
      const span = only(serverSpans())
      expect(span.name).toBe("GET /readyz")
      expect(childrenOf(span).map((call) => call.name)).toEqual(["Store.ping"])
    } finally {
      await server.close()
      await handler.dispose()
    }
  })

  it("store-call spans lie within their request span (one clock for both)", () =>
    withServer(memory, traced())(async (server) => {
      exporter.reset()
      for (let i = 0; i < 5; i++) await server.api("GET", "/api/v1/timer", { key: keys.member })
      const nanos = (time: readonly [number, number]) => BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])
      const spans = serverSpans()
      expect(spans).toHaveLength(5)
      for (const span of spans) {
        const children = childrenOf(span)
        expect(children.map((child) => child.name).sort()).toEqual(["Store.authenticate", "Store.findActiveEntry"])
        for (const child of children) {
          expect(nanos(child.startTime)).toBeGreaterThanOrEqual(nanos(span.startTime))
          expect(nanos(child.endTime)).toBeLessThanOrEqual(nanos(span.endTime))
          expect(nanos(child.endTime)).toBeGreaterThanOrEqual(nanos(child.startTime))
        }
      }
    }))

  describe("a request its client abandons is counted as abandoned, not answered; the store call it was in is not measured (how long it ran is not how long it takes)", () => {
    const durations = (method: string) =>
      Number(
        Effect.runSync(Metric.value(Metric.taggedWithLabels(Metrics.storeCallDuration, Metrics.labels(["method", method]))))
          .count
      )
    const abortedCount = () => Effect.runSync(Metric.value(Metrics.httpRequestsAborted)).count
    /** Every answered request so far, whatever its labels. */
    const answeredCount = () =>
      Effect.runSync(Metric.snapshot).reduce(
        (sum, pair) =>
          pair.metricKey.name === "stint_http_requests" && "count" in pair.metricState
            ? sum + Number(pair.metricState.count)
            : sum,
        0
      )
    const abandoned = (tracing: boolean, quiet = false) => {
      const { hanging, inCall } = hangingFindActiveEntry()
      const observability: Observability.Options = {
        metrics: { port: 0 },
        ...(tracing ? { spanProcessors: [new SimpleSpanProcessor(exporter)] } : {})
      }
      return withServer(memory, {
        // Quiet: the log's minimum level is above the line's (INFO), so no line is written.
        services: quiet
          ? Layer.merge(Observability.layer(observability), Logger.minimumLogLevel(LogLevel.Warning))
          : Observability.layer(observability),
        observer: Observability.hooks(Observability.shapeOf(observability)),
        store: (layer) => Observability.storeLayer(observability).pipe(Layer.provide(hanging(layer)))
      })(async (server) => {
        const before = {
          authenticate: durations("authenticate"),
          findActiveEntry: durations("findActiveEntry"),
          aborted: abortedCount(),
          answered: answeredCount()
        }
        await abandonTimerRequest(server.port, inCall)
        for (let waited = 0; waited < 5_000; waited += 10) {
          if (abortedCount() - before.aborted > 0) break
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        expect(server.logs().some((line) => line.message === "request aborted by the client")).toBe(!quiet)
        expect(durations("authenticate") - before.authenticate).toBe(1)
        expect(durations("findActiveEntry") - before.findActiveEntry).toBe(0)
        // Counted once as abandoned, and not as answered.
        expect(abortedCount() - before.aborted).toBe(1)
        expect(answeredCount() - before.answered).toBe(0)
      })
    }
    it("with metrics alone", () => abandoned(false))
    it("with metrics and traces (the call's span ends as interrupted)", () => abandoned(true))
    it("with metrics, the log above INFO: counted all the same, no line", () => abandoned(false, true))

    it("a call that ends with an interruption of its own (a child fiber's), its request alive, is measured", () =>
      Effect.runPromise(
        Effect.gen(function*() {
          const store = yield* Store.Store
          // The call joins a child fiber that was interrupted: it fails with an interruption, its caller is not.
          const childInterrupted = Effect.flatMap(
            Effect.fork(Effect.never),
            (child) => Effect.zipRight(Fiber.interrupt(child), Fiber.join(child))
          )
          const observed = ObservedStore.make({ ...store, ping: childInterrupted }, { metrics: true, spans: false })
          const before = durations("ping")
          const exit = yield* Effect.exit(observed.ping)
          expect(Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)).toBe(true)
          expect(durations("ping") - before).toBe(1)
        }).pipe(Effect.provide(MemoryStore.layerMemory))
      ))
  })

  it.each([
    ["metrics alone", { metrics: true, spans: false }],
    ["metrics and an Effect span", { metrics: true, spans: true }]
  ])(
    "a store call that fails with a StoreError or a defect is a store failure, a refusal it passes through is not (%s)",
    (_, options) =>
      Effect.runPromise(
        Effect.gen(function*() {
          const store = yield* Store.Store
          const failures = (method: string) =>
            Number(
              Effect.runSync(
                Metric.value(Metric.taggedWithLabels(Metrics.storeCallFailures, Metrics.labels(["method", method])))
              ).count
            )
          const scope = { workspaceId: ids.acme, userId: ids.mia }
          const refusal = new Errors.TimerNotFound({ message: "no such timer" })
          const observed = ObservedStore.make({
            ...store,
            ping: Effect.fail(new Errors.StoreError({ message: "connection lost" })),
            listClients: () => Effect.die(new Error("a bug in the adapter"))
          }, options)
          const before = {
            ping: failures("ping"),
            listClients: failures("listClients"),
            withTimerTransaction: failures("withTimerTransaction")
          }
          expect(Exit.isFailure(yield* Effect.exit(observed.ping))).toBe(true)
          const died = yield* Effect.exit(observed.listClients(scope))
          expect(Exit.isFailure(died) && Cause.isDie(died.cause)).toBe(true)
          const refused = yield* Effect.exit(observed.withTimerTransaction(scope, () => Effect.fail(refusal)))
          expect(refused).toEqual(Exit.fail(refusal))
          expect({
            ping: failures("ping") - before.ping,
            listClients: failures("listClients") - before.listClients,
            withTimerTransaction: failures("withTimerTransaction") - before.withTimerTransaction
          }).toEqual({ ping: 1, listClients: 1, withTimerTransaction: 0 })
        }).pipe(Effect.provide(MemoryStore.layerMemory))
      )
  )

  it("a request its client abandons ends its span, and the span of the store call it was in, as interrupted", () => {
    const { hanging, inCall } = hangingFindActiveEntry()
    return withServer(memory, traced({ store: hanging }))(async (server) => {
      exporter.reset()
      await abandonTimerRequest(server.port, inCall)
      for (let waited = 0; serverSpans().length === 0 && waited < 5_000; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      const span = only(serverSpans())
      expect(span.attributes["status.interrupted"]).toBe(true)
      expect(span.status).toEqual({ code: SpanStatusCode.UNSET })
      const calls = childrenOf(span)
      expect(calls.map((call) => call.name).sort()).toEqual(["Store.authenticate", "Store.findActiveEntry"])
      const cut = calls.find((call) => call.name === "Store.findActiveEntry")
      expect(cut?.ended).toBe(true)
      expect(cut?.attributes["status.interrupted"]).toBe(true)
      expect(calls.find((call) => call.name === "Store.authenticate")?.attributes["status.interrupted"]).toBeUndefined()
      const line = server.logs().find((line) => line.message === "request aborted by the client")
      expect(line?.annotations).toMatchObject({ traceId: span.spanContext().traceId, spanId: span.spanContext().spanId })
    })
  })

  describe("sampling by OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG", () => {
    const withEnv = (env: Record<string, string>) => async (test: () => Promise<void>) => {
      const before = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]))
      Object.assign(process.env, env)
      try {
        await test()
      } finally {
        for (const [name, value] of Object.entries(before)) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
      }
    }

    it("always_off: requests are answered, nothing is recorded, the log line still has a trace id", () =>
      withEnv({ OTEL_TRACES_SAMPLER: "always_off" })(() =>
        withServer(memory, traced())(async (server) => {
          exporter.reset()
          const reply = await server.api("POST", "/api/v1/timers/start", {
            key: keys.member,
            idempotencyKey: "sampled-off-1",
            json: { projectId: ids.website }
          })
          expect(reply.status).toBe(200)
          expect(exporter.getFinishedSpans()).toEqual([])
          const line = server.logs().find((log) => log.annotations["requestId"] === reply.requestId)
          expect(line?.annotations["traceId"]).toMatch(/^[0-9a-f]{32}$/)
          expect(Object.keys(line?.annotations ?? {}).slice(-2)).toEqual(["traceId", "spanId"])
        })
      ))

    it("traceidratio 0.5: a request is sampled exactly when the sampler samples the trace id its log line shows, once", () =>
      withEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" })(() =>
        withServer(memory, traced())(async (server) => {
          exporter.reset()
          const replies = []
          // 200 requests over three keys, each well under the rate limit.
          const callers = [keys.member, keys.owner, keys.admin]
          for (let i = 0; i < 200; i++) {
            replies.push(await server.api("GET", "/api/v1/timer", { key: callers[i % callers.length] ?? keys.member }))
          }
          const ratio = new TraceIdRatioBasedSampler(0.5)
          const spans = new Map(serverSpans().map((span) => [span.spanContext().traceId, span]))
          let sampled = 0
          for (const reply of replies) {
            expect(reply.status).toBe(200)
            const fields = server.logs().find((log) => log.annotations["requestId"] === reply.requestId)?.annotations
            const traceId = String(fields?.["traceId"])
            expect(traceId).toMatch(/^[0-9a-f]{32}$/)
            expect(String(fields?.["spanId"])).toMatch(/^[0-9a-f]{16}$/)
            const decision = ratio.shouldSample(ROOT_CONTEXT, traceId).decision
            const span = spans.get(traceId)
            // Decided once, on the ids the line shows: the SDK's span (when sampled) has exactly those ids.
            expect(span !== undefined).toBe(decision === SamplingDecision.RECORD_AND_SAMPLED)
            if (span !== undefined) {
              sampled++
              expect(span.spanContext().spanId).toBe(fields?.["spanId"])
              expect(span.attributes["stint.request_id"]).toBe(reply.requestId)
            }
          }
          expect(spans.size).toBe(sampled)
          // 200 fair coins: 100 ± 7 expected, outside 70..130 with a chance of 3 in 100,000. Deciding twice (the SDK
          // drawing its own ids and sampling again) would sample a quarter of them: 50 ± 6.
          expect(sampled).toBeGreaterThanOrEqual(70)
          expect(sampled).toBeLessThanOrEqual(130)
        })
      ))

    it("the sampler is asked before any span is made, and a sampled span gets the ids it was decided on", () =>
      withEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" })(() =>
        Effect.runPromise(
          Effect.scoped(Effect.map(Layer.build(Tracing.layer(new SimpleSpanProcessor(exporter))), (context) => {
            const otel = Context.get(context, OtelTracer.OtelTracer)
            expect(OtelSpan.decidesRoots(otel)).toBe(true)
            const ratio = new TraceIdRatioBasedSampler(0.5)
            let sampled = 0
            for (let i = 0; i < 40; i++) {
              const decided = OtelSpan.decideRoot(otel, "GET", "server")
              if (decided === undefined) throw new Error("no decision")
              const yes = ratio.shouldSample(ROOT_CONTEXT, decided.traceId).decision ===
                SamplingDecision.RECORD_AND_SAMPLED
              expect(decided.traceFlags).toBe(yes ? TraceFlags.SAMPLED : TraceFlags.NONE)
              if (!yes) continue
              sampled++
              const span = OtelSpan.startDecided(otel, "GET", "server", decided)
              expect(span.spanContext()).toMatchObject({
                traceId: decided.traceId,
                spanId: decided.spanId,
                traceFlags: TraceFlags.SAMPLED
              })
              span.end()
            }
            expect(sampled).toBeGreaterThan(0)
            expect(exporter.getFinishedSpans().map((span) => span.spanContext().traceId)).toHaveLength(sampled)
          }))
        )
      ))

    it("an Effect span inside a request that is not sampled is not sampled either: no trace of its own, and Effect sees the request's ids", () => {
      // What the embedder's store saw of the current span, by request (the log line's trace id, the span's).
      const seen: Array<{ readonly traceId: string; readonly sampled: boolean }> = []
      const spanning = aroundFindActiveEntry((call) =>
        Effect.withSpan(
          Effect.zipRight(
            Effect.tap(Effect.orDie(Effect.currentParentSpan), (span) => Effect.sync(() => seen.push(span))),
            call
          ),
          "embedder.work"
        )
      )
      return withEnv({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" })(() =>
        withServer(memory, traced({ store: spanning }))(async (server) => {
          exporter.reset()
          const replies = []
          // Half of them sent in a caller's trace that the caller did not sample.
          for (let i = 0; i < 40; i++) {
            const traceparent = i % 2 === 0 ? undefined : `00-${"4bf92f3577b34da6a3ce929d0e0e47".concat(String(i).padStart(2, "0"))}-00f067aa0ba902b7-00`
            replies.push(await server.api("GET", "/api/v1/timer", {
              key: keys.member,
              ...(traceparent === undefined ? {} : { headers: { traceparent } })
            }))
          }
          const requests = new Map(serverSpans().map((span) => [span.spanContext().traceId, span]))
          const work = exporter.getFinishedSpans().filter((span) => span.name === "embedder.work")
          // Fails when an unsampled request's Effect span starts a trace of its own: the sampler keeps about half.
          expect(work).toHaveLength(requests.size)
          for (const span of work) {
            const request = requests.get(span.spanContext().traceId)
            expect(span.parentSpanContext?.spanId).toBe(request?.spanContext().spanId)
          }
          expect(seen).toHaveLength(replies.length)
          for (const [i, reply] of replies.entries()) {
            expect(reply.status).toBe(200)
            const traceId = server.logs().find((log) => log.annotations["requestId"] === reply.requestId)?.annotations["traceId"]
            expect(seen[i]?.traceId).toBe(traceId)
            expect(seen[i]?.sampled).toBe(requests.has(String(traceId)))
          }
          // None of the requests in the caller's unsampled trace was sampled; some of the others were.
          expect(replies.filter((_, i) => i % 2 === 1).some((reply) =>
            requests.has(String(server.logs().find((log) => log.annotations["requestId"] === reply.requestId)?.annotations["traceId"]))
          )).toBe(false)
          expect(requests.size).toBeGreaterThan(0)
        })
      )
    })

    it("without the unsampled stand-in (stint serve's setting), a request that is not sampled runs under no span, its ids still in its log line; a sampled one is unchanged", () => {
      // What the embedder's store saw of the current span, by request: none for a request that is not sampled.
      const seen: Array<Option.Option<Tracer.AnySpan>> = []
      const looking = aroundFindActiveEntry((call) =>
        Effect.zipRight(
          Effect.tap(Effect.option(Effect.currentParentSpan), (span) => Effect.sync(() => seen.push(span))),
          call
        )
      )
      return withEnv({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" })(() =>
        withServer(memory, traced({ store: looking }, false))(async (server) => {
          exporter.reset()
          const replies = []
          for (let i = 0; i < 40; i++) replies.push(await server.api("GET", "/api/v1/timer", { key: keys.member }))
          const requests = new Map(serverSpans().map((span) => [span.spanContext().traceId, span]))
          expect(seen).toHaveLength(replies.length)
          let unsampled = 0
          for (const [i, reply] of replies.entries()) {
            expect(reply.status).toBe(200)
            const line = server.logs().find((log) => log.annotations["requestId"] === reply.requestId)?.annotations
            expect(line?.["traceId"]).toMatch(/^[0-9a-f]{32}$/)
            expect(line?.["spanId"]).toMatch(/^[0-9a-f]{16}$/)
            const request = requests.get(String(line?.["traceId"]))
            const current = seen[i]
            if (request === undefined) {
              unsampled++
              // Fails when the stand-in is still installed: Effect would see the request's ids, not sampled.
              expect(current).toEqual(Option.none())
            } else {
              expect(request.spanContext().spanId).toBe(line?.["spanId"])
              expect(Option.map(current ?? Option.none(), (span) => span.spanId)).toEqual(Option.some(line?.["spanId"]))
              expect(childrenOf(request).map((span) => span.name)).toContain("Store.findActiveEntry")
            }
          }
          // 40 fair coins: both kinds are there, short of a chance of 2 in 10^12.
          expect(unsampled).toBeGreaterThan(0)
          expect(requests.size).toBeGreaterThan(0)
        })
      )
    })

    /** A `GET /api/v1/timer` answered 200, as the pipeline reports it to `completed`. */
    const timerAnswered: Observer.Completed = {
      requestId: "r",
      method: "GET",
      route: "/api/v1/timer",
      status: 200,
      code: undefined,
      durationMs: 1,
      keyId: null
    }

    it("decided in the request's own fiber (no begin), a request that is not sampled is Effect's parent span, with its ids, until it ends", () =>
      withEnv({ OTEL_TRACES_SAMPLER: "always_off" })(() =>
        Effect.runPromise(
          Effect.gen(function*() {
            const hooks = Observability.hooks({ metrics: false, tracing: true })
            const arrived = { method: "GET", url: "/api/v1/timer", header: () => undefined }
            const parent = Effect.orDie(Effect.currentParentSpan)
            const [current, inner] = yield* hooks.request!(arrived, Effect.all([parent, Effect.withSpan(parent, "embedder.work")]))
            const fields = yield* hooks.completed!(timerAnswered, arrived)
            expect(fields["traceId"]).toMatch(/^[0-9a-f]{32}$/)
            expect(current).toMatchObject({ traceId: fields["traceId"], spanId: fields["spanId"], sampled: false })
            expect(inner).toMatchObject({ traceId: fields["traceId"], sampled: false })
            expect(Option.isNone(yield* Effect.option(Effect.currentParentSpan))).toBe(true)
            expect(exporter.getFinishedSpans()).toEqual([])
          }).pipe(Effect.provide(Tracing.layer(new SimpleSpanProcessor(exporter))))
        )
      ))

    it("decided in the request's own fiber (no begin), without the stand-in a request that is not sampled changes no span, and keeps its ids", () =>
      withEnv({ OTEL_TRACES_SAMPLER: "always_off" })(() =>
        Effect.runPromise(
          Effect.gen(function*() {
            const hooks = Observability.hooks({ metrics: false, tracing: true, unsampledParent: false })
            const arrived = { method: "GET", url: "/api/v1/timer", header: () => undefined }
            const outer = Tracer.externalSpan({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7" })
            const current = yield* Effect.withParentSpan(hooks.request!(arrived, Effect.currentParentSpan), outer)
            const fields = yield* hooks.completed!(timerAnswered, arrived)
            // The request, a child of the current span, kept its trace; no span of its own was installed.
            expect(current).toBe(outer)
            expect(fields["traceId"]).toBe(outer.traceId)
            expect(fields["spanId"]).toMatch(/^[0-9a-f]{16}$/)
            expect(fields["spanId"]).not.toBe(outer.spanId)
            expect(exporter.getFinishedSpans()).toEqual([])
          }).pipe(Effect.provide(Tracing.layer(new SimpleSpanProcessor(exporter))))
        )
      ))

    it("parentbased_traceidratio 0: a caller's sampled trace is still followed, an unsampled one is not", () =>
      withEnv({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" })(() =>
        withServer(memory, traced())(async (server) => {
          exporter.reset()
          const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
          await server.api("GET", "/api/v1/timer", { key: keys.member })
          await server.api("GET", "/api/v1/timer", {
            key: keys.member,
            headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-00` }
          })
          expect(exporter.getFinishedSpans()).toEqual([])
          await server.api("GET", "/api/v1/timer", {
            key: keys.member,
            headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` }
          })
          const span = only(serverSpans())
          expect(span.spanContext().traceId).toBe(traceId)
          expect(childrenOf(span)).toHaveLength(2)
        })
      ))
  })

  it("under a tracer of the embedder's own: its spans, the caller's context as Effect reads it (B3 too), ids in the log", () => {
    type Recorded = { attributes: Map<string, unknown>; ended: boolean }
    const recorded: Array<Recorded & Tracer.Span> = []
    let next = 0
    const own = Tracer.make({
      span: (name, parent, context, links, startTime, kind) => {
        const spanId = (++next).toString(16).padStart(16, "0")
        const span: Recorded & Tracer.Span = {
          _tag: "Span",
          name,
          spanId,
          traceId: Option.match(parent, { onNone: () => "0af7651916cd43dd8448eb211c80319c", onSome: (p) => p.traceId }),
          parent,
          context,
          status: { _tag: "Started", startTime },
          attributes: new Map(),
          links,
          sampled: true,
          kind,
          attribute: (key, value) => void span.attributes.set(key, value),
          event: () => {},
          addLinks: () => {},
          ended: false,
          end: () => {
            span.ended = true
          }
        }
        recorded.push(span)
        return span
      },
      context: (f) => f()
    })
    return withServer(memory, { services: Layer.setTracer(own), observer: Observability.hooks({ metrics: false, tracing: true }) })(
      async (server) => {
        const reply = await server.api("GET", "/api/v1/timer", {
          key: keys.member,
          headers: { b3: "80f198ee56343ba864fe8b2a57d3eff7-e457b5a2e4d86bd1-1" }
        })
        expect(reply.status).toBe(200)
        const span = recorded.find((candidate) => candidate.attributes.get("stint.request_id") === reply.requestId)
        expect(span?.kind).toBe("server")
        expect(span?.ended).toBe(true)
        expect(span?.attributes.get("http.route")).toBe("/api/v1/timer")
        expect(span?.attributes.get("http.response.status_code")).toBe(200)
        expect(Option.getOrUndefined(span?.parent ?? Option.none()))
          .toMatchObject({ traceId: "80f198ee56343ba864fe8b2a57d3eff7", spanId: "e457b5a2e4d86bd1" })
        const line = server.logs().find((log) => log.annotations["requestId"] === reply.requestId)
        expect(line?.annotations).toMatchObject({ traceId: "80f198ee56343ba864fe8b2a57d3eff7", spanId: span?.spanId })
      }
    )
  })

  it("is off unless provided: no trace id on the log line", () =>
    withServer(memory)(async (server) => {
      const reply = await server.api("GET", "/api/v1/timer", { key: keys.member })
      const line = server.logs().find((log) => log.annotations["requestId"] === reply.requestId)
      expect(line?.annotations).toBeDefined()
      expect(line?.annotations["traceId"]).toBeUndefined()
    }))

  it("switched off, there are no hooks to call at all; each part switches on its own hook", () => {
    expect(Observability.hooks({ metrics: false, tracing: false })).toEqual({})
    expect(Object.keys(Observability.hooks({ metrics: true, tracing: false })).sort()).toEqual(["aborted", "completed"])
    expect(Object.keys(Observability.hooks({ metrics: false, tracing: true })).sort()).toEqual(["aborted", "begin", "completed", "request"])
  })
})

describe("the OTLP protocol", () => {
  it("is protobuf unless the standard variables ask for JSON; the traces' own variable comes first", () => {
    expect(Tracing.protocolOf({})).toBe("http/protobuf")
    expect(Tracing.protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toBe("http/json")
    expect(Tracing.protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: " HTTP/JSON " })).toBe("http/json")
    expect(Tracing.protocolOf({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" })).toBe("http/json")
    expect(Tracing.protocolOf({
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf"
    })).toBe("http/protobuf")
    expect(Tracing.protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "" }))
      .toBe("http/protobuf")
    // A protocol Stint does not speak (`stint serve` warns): the default.
    expect(Tracing.protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toBe("http/protobuf")
  })
})
