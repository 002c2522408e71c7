/**
 * A stack that drives the core's operations directly over a `Store` layer, on the kit's manual clock: how an adapter
 * author checks a storage adapter without any transport.
 *
 * @since 0.1.0
 */
import { Operations, type Request, type Store } from "@stint/core"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as InProcess from "./internal/InProcess.js"
import { errorStatus, successStatus } from "./SpecTable.js"
import type { Backdoor, Capabilities, Definition, OperationName, Outcome, Stack } from "./Stack.js"

/**
 * Options of a core stack.
 *
 * @since 0.1.0
 */
export interface Options<R> {
  /** A reader of the store that does not go through the adapter's own reads. */
  readonly backdoor?: ((context: Context.Context<R>) => Backdoor) | undefined
  /** Declare `concurrent: false` for a store whose operations cannot overlap. Default true. */
  readonly concurrent?: boolean | undefined
  /** Declare `storageWrites: true` when the backdoor writes rows past the adapter (`Backdoor.insertEntry`). */
  readonly storageWrites?: boolean | undefined
}

type Failure = { readonly code: string; readonly message: string; readonly details?: unknown }

const handlers: {
  readonly [K in OperationName]: (request: Request.ApiRequest) => Effect.Effect<unknown, Failure, Store.Store>
} = {
  listClients: Operations.listClients,
  listProjects: Operations.listProjects,
  createProject: Operations.createProject,
  getActiveTimer: Operations.getActiveTimer,
  startTimer: Operations.startTimer,
  stopTimer: Operations.stopTimer,
  listTimeEntries: Operations.listTimeEntries
}

const isMutation = (operation: OperationName) => operation === "startTimer" || operation === "stopTimer"

const errorOutcome = (code: string, message: string, details: unknown): Outcome => {
  const body = { error: { code, message, details: details ?? {} }, requestId: "core" }
  return { status: errorStatus[code] ?? 500, body, text: JSON.stringify(body) }
}

/**
 * A stack over `layer`, which must provide a fresh, empty `Store`.
 *
 * @since 0.1.0
 */
export const make = <R = never, E = never>(
  layer: Layer.Layer<Store.Store | R, E>,
  options: Options<Store.Store | R> = {}
): Definition => {
  const capabilities: Capabilities = {
    http: false,
    controlledClock: true,
    concurrent: options.concurrent ?? true,
    storageWrites: options.storageWrites ?? false,
    store: true
  }
  const make = Effect.map(InProcess.make(layer), (inProcess): Stack => ({
    call: (operation, request) =>
      inProcess.run(handlers[operation](request)).pipe(
        Effect.map((result): Outcome => {
          if (isMutation(operation)) {
            const mutation = result as Operations.TimerMutation
            return { status: 200, body: JSON.parse(mutation.json), text: mutation.json, replayed: mutation.replayed }
          }
          const text = JSON.stringify(result)
          return { status: successStatus(operation), body: JSON.parse(text), text }
        }),
        Effect.catchAll((error) => Effect.succeed(errorOutcome(error.code, error.message, error.details))),
        Effect.catchAllDefect((defect) =>
          Effect.succeed(errorOutcome("INTERNAL_ERROR", Cause.pretty(Cause.die(defect)), {}))
        )
      ),
    seed: inProcess.seed,
    admin: inProcess.admin,
    clock: { now: inProcess.manual.now, advance: inProcess.manual.advance },
    backdoor: options.backdoor?.(inProcess.context),
    store: inProcess.direct
  }))
  return { capabilities, make }
}
