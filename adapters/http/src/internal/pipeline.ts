/**
 * The request pipeline every transport shares: a request (`Incoming`) in, the response (`Outgoing`) and its log line
 * out, run as one fiber on a runtime built once. `stint serve`, the embedders' handlers and `Server.app` differ only
 * in how they read requests and write responses.
 */
import { Authentication, FiberRoots, type Store } from "@stint/core"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import { randomUUID } from "node:crypto"
import type * as Observer from "../Observer.js"
import { type Incoming, type Outcome, safely } from "./dispatch.js"
import * as InFlight from "./inFlight.js"
import * as LogFields from "./logFields.js"
import type * as LogWriter from "./logWriter.js"

export type { Incoming } from "./dispatch.js"

/** A response, ready for any transport. Header names are lower-case, in the order they are sent. */
export interface Outgoing {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** An answered request: the response, and what its log line says. */
export interface Answered {
  readonly response: Outgoing
  readonly level: LogLevel.LogLevel
  readonly annotations: Readonly<Record<string, unknown>>
  readonly cause: Cause.Cause<unknown>
}

const NO_FIELDS: Readonly<Record<string, string>> = {}

/** The response of an outcome: its body and the headers every answer carries. */
export const toResponse = (outcome: Outcome, requestId: string): Outgoing => {
  const length = String(Buffer.byteLength(outcome.body))
  return {
    status: outcome.status,
    // Most outcomes have no headers of their own: a literal then, not a spread.
    // `nosniff`: a browser must not read an answer (an error quoting a path, say) as anything but its content type.
    // `no-store`: answers hold one user's data (and a timer's `serverNow`); no cache on the way may keep them.
    headers: outcome.headers === undefined
      ? {
        "x-request-id": requestId,
        "content-type": outcome.contentType,
        "content-length": length,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff"
      }
      : {
        "cache-control": "no-store",
        ...outcome.headers,
        "x-request-id": requestId,
        "content-type": outcome.contentType,
        "content-length": length,
        "x-content-type-options": "nosniff"
      },
    body: outcome.body
  }
}

/**
 * Handles one request in the current fiber under its request id: the dispatch, the observer's `completed` hook (inside
 * its `request` wrapper, so a span sees the whole request). Fails only when interrupted (the client went away).
 */
export const handle = (
  incoming: Incoming,
  requestId: string,
  observer: Observer.Observer | undefined
): Effect.Effect<Answered, never, Store.Store> => {
  const started = performance.now()
  const answered = Effect.flatMap(safely(incoming, requestId), (outcome) =>
    Effect.flatMap(FiberRef.get(Authentication.authenticatedKeyId), (keyId): Effect.Effect<Answered> => {
      const record: Observer.Completed = {
        requestId,
        method: incoming.method,
        route: outcome.route,
        status: outcome.status,
        code: outcome.code,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        keyId: Option.getOrNull(keyId)
      }
      const done = (extra: Readonly<Record<string, string>>): Answered => {
        const annotations: Record<string, unknown> = {
          requestId,
          method: record.method,
          route: record.route,
          status: record.status,
          durationMs: record.durationMs,
          keyId: record.keyId
        }
        // Added in place rather than spread: the log line's fields in the same order, fewer objects per request.
        if (record.code !== undefined) annotations["code"] = record.code
        if (extra instanceof LogFields.LogFields) extra[LogFields.addTo](annotations)
        else for (const name in extra) annotations[name] = extra[name]
        return {
          response: toResponse(outcome, requestId),
          level: outcome.status >= 500 ? LogLevel.Error : LogLevel.Info,
          annotations,
          cause: outcome.cause ?? Cause.empty
        }
      }
      const completed = observer?.completed
      if (completed === undefined) return Effect.succeed(done(NO_FIELDS))
      const fields = completed(record, incoming)
      // Most hooks answer at once (`Effect.succeed` is an `Exit`): nothing more to run then.
      if (Exit.isExit(fields)) {
        const exit = fields as Exit.Exit<Readonly<Record<string, string>>, never>
        if (Exit.isSuccess(exit)) return Effect.succeed(done(exit.value))
      }
      // A broken observer must not take the response with it.
      return Effect.map(Effect.orElseSucceed(fields, () => NO_FIELDS), done)
    }))
  return observer?.request === undefined ? answered : observer.request(incoming, answered)
}

/** A request answered without running anything (outside the mount prefix, shutting down, no store): no fiber. */
export const answerNow = (incoming: Incoming, requestId: string, outcome: Outcome): Answered => ({
  response: toResponse(outcome, requestId),
  level: outcome.status >= 500 ? LogLevel.Error : LogLevel.Info,
  annotations: {
    requestId,
    method: incoming.method,
    route: outcome.route,
    status: outcome.status,
    durationMs: 0,
    keyId: null,
    ...(outcome.code === undefined ? {} : { code: outcome.code })
  },
  cause: outcome.cause ?? Cause.empty
})

/** A log line exactly as `Logger.json` writes it. */
export const logLine = (
  message: string,
  level: LogLevel.LogLevel,
  annotations: Readonly<Record<string, unknown>>,
  cause: Cause.Cause<unknown>,
  fiberId: string
): string =>
  JSON.stringify({
    message,
    logLevel: level.label,
    timestamp: new Date().toISOString(),
    cause: Cause.isEmpty(cause) ? undefined : Cause.pretty(cause, { renderErrorCause: true }),
    annotations,
    spans: {},
    fiberId
  })

/** The path of a request target, for the aborted-request line: a query string may hold what should not be logged. */
const pathOf = (url: string): string => url.split("?")[0] ?? ""

/** The observer's fields for the line of an abandoned request; none when it has none or throws. */
const abortedFields = (
  observer: Observer.Observer | undefined,
  incoming: Incoming
): Readonly<Record<string, string>> => {
  if (observer?.aborted === undefined) return NO_FIELDS
  try {
    return observer.aborted(incoming)
  } catch {
    return NO_FIELDS
  }
}

/** Runs requests: `run(incoming, respond)` answers through `respond` and answers a function that aborts the request. */
export interface Runner {
  readonly run: (incoming: Incoming, respond: (response: Outgoing) => void) => (() => void)
  /** Answers at once with the outcome `make` gives for the request id (no fiber), logged like any other. */
  readonly answer: (
    incoming: Incoming,
    make: (requestId: string) => Outcome,
    respond: (response: Outgoing) => void
  ) => void
  /** Whether lines of this level are logged (the runtime's minimum log level). */
  readonly logs: (level: LogLevel.LogLevel) => boolean
  /** Completes once no request is being handled. */
  readonly whenIdle: () => Promise<void>
  /** How many requests are being handled. */
  readonly inFlight: () => number
  /** Interrupts every request being handled. */
  readonly interruptAll: () => void
}

/**
 * A runner over `runtime`: one fiber per request, its log line through `log` (only at the runtime's minimum log level
 * or above, as `Effect.log` would), never failing. A request whose fiber is interrupted (its client went away) gets
 * no response and an info line `request aborted by the client`. Effect's root fibers are kept in a list from then on
 * (`FiberRoots.install`): a request's fiber is a root, and effect's own `Set` of them would keep finished requests
 * alive into V8's old generation.
 */
export const runner = (
  runtime: Runtime.Runtime<Store.Store>,
  options: { readonly log: LogWriter.LineWriter; readonly observer?: Observer.Observer | undefined }
): Runner => {
  FiberRoots.install()
  const fork = Runtime.runFork(runtime)
  const begin = options.observer?.begin
  /** Starts a request's fiber in the context `begin` answers (the runtime's when it answers none, or throws). */
  const startBegun = (
    begin: NonNullable<Observer.Observer["begin"]>,
    incoming: Incoming,
    effect: Effect.Effect<Answered, never, Store.Store>
  ) => {
    let context: Context.Context<Store.Store> | undefined
    try {
      context = begin(incoming, runtime)
    } catch {
      context = undefined
    }
    return context === undefined
      ? fork(effect)
      : Runtime.runFork(Runtime.make({ context, fiberRefs: runtime.fiberRefs, runtimeFlags: runtime.runtimeFlags }), effect)
  }
  const minimum = FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel)
  const logs = (level: LogLevel.LogLevel) => LogLevel.greaterThanEqual(level, minimum)
  const running = InFlight.make()
  let idle: Array<() => void> = []
  const finished = (entry: InFlight.Entry) => {
    running.remove(entry)
    if (running.size() > 0 || idle.length === 0) return
    const waiting = idle
    idle = []
    for (const resolve of waiting) resolve()
  }
  const run = (incoming: Incoming, respond: (response: Outgoing) => void) => {
    const requestId = randomUUID()
    const fiber = begin === undefined
      ? fork(handle(incoming, requestId, options.observer))
      : startBegun(begin, incoming, handle(incoming, requestId, options.observer))
    const entry = running.add(() => fiber.unsafeInterruptAsFork(FiberId.none))
    fiber.addObserver((exit) => {
      finished(entry)
      // What `FiberId.threadName` answers for a runtime fiber id, without the set of ids it builds first.
      const fiberId = `#${fiber.id().id}`
      if (Exit.isSuccess(exit)) {
        const answered = exit.value
        respond(answered.response)
        if (logs(answered.level)) {
          options.log.write(logLine("request", answered.level, answered.annotations, answered.cause, fiberId))
        }
      } else {
        // The observer hears of it whether or not the line is written (a counter of abandoned requests, say).
        const extra = abortedFields(options.observer, incoming)
        if (logs(LogLevel.Info)) {
          const annotations: Record<string, unknown> = { requestId, method: incoming.method, path: pathOf(incoming.url) }
          for (const name in extra) annotations[name] = extra[name]
          options.log.write(logLine("request aborted by the client", LogLevel.Info, annotations, Cause.empty, fiberId))
        }
      }
    })
    return entry.interrupt
  }
  return {
    run,
    answer: (incoming, make, respond) => {
      const requestId = randomUUID()
      const answered = answerNow(incoming, requestId, make(requestId))
      respond(answered.response)
      if (logs(answered.level)) {
        options.log.write(logLine("request", answered.level, answered.annotations, answered.cause, "#0"))
      }
    },
    logs,
    whenIdle: () => running.size() === 0 ? Promise.resolve() : new Promise<void>((resolve) => idle.push(resolve)),
    inFlight: running.size,
    interruptAll: () => {
      for (const interrupt of running.all()) interrupt()
    }
  }
}
