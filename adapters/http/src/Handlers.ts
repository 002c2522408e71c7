/**
 * The API routes, derived from the `HttpApi` definition: each endpoint's method, path template, success status and
 * schema, whether it reads a body, and the core operation it calls with the raw request.
 *
 * @since 0.1.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import type { Errors, Request, Store } from "@stint/core"
import { Operations } from "@stint/core"
import * as Effect from "effect/Effect"
import { Api, type OperationName } from "./Api.js"

/**
 * What an operation answered: a value to encode with the endpoint's success schema, or the exact JSON of a timer
 * mutation (a replay sends the stored bytes).
 *
 * @since 0.1.0
 */
export type Reply =
  | { readonly _tag: "Value"; readonly value: unknown }
  | { readonly _tag: "Raw"; readonly json: string; readonly replayed: boolean }

/**
 * A core operation over the raw request.
 *
 * @since 0.1.0
 */
export type Handler = (request: Request.ApiRequest) => Effect.Effect<Reply, Errors.ApiError, Store.Store>

const value = <A, E extends Errors.ApiError>(
  operation: (request: Request.ApiRequest) => Effect.Effect<A, E, Store.Store>
): Handler =>
(request) => Effect.map(operation(request), (value): Reply => ({ _tag: "Value", value }))

const mutation = <E extends Errors.ApiError>(
  operation: (request: Request.ApiRequest) => Effect.Effect<Operations.TimerMutation, E, Store.Store>
): Handler =>
(request) =>
  Effect.map(operation(request), ({ json, replayed }): Reply => ({ _tag: "Raw", json, replayed }))

/**
 * The core operation behind each endpoint of the definition (one per endpoint, checked by the compiler).
 *
 * @since 0.1.0
 */
export const handlers = {
  listClients: value(Operations.listClients),
  listProjects: value(Operations.listProjects),
  createProject: value(Operations.createProject),
  getActiveTimer: value(Operations.getActiveTimer),
  startTimer: mutation(Operations.startTimer),
  stopTimer: mutation(Operations.stopTimer),
  listTimeEntries: value(Operations.listTimeEntries)
} as const satisfies Record<OperationName, Handler>

/**
 * One API route.
 *
 * @since 0.1.0
 */
export interface ApiRoute {
  readonly name: OperationName
  readonly method: string
  /** The path template, e.g. `/api/v1/timers/:timerId/stop`. */
  readonly template: string
  /** Whether the endpoint declares a request body (createProject, startTimer); other bodies are ignored. */
  readonly readsBody: boolean
  readonly successStatus: number
  readonly handler: Handler
}

const isOperationName = (name: string): name is OperationName => Object.hasOwn(handlers, name)

/**
 * Every endpoint of `Api`, by reflection.
 *
 * @since 0.1.0
 */
export const routes: ReadonlyArray<ApiRoute> = (() => {
  const found: Array<ApiRoute> = []
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, payloads, successes }) => {
      const name = endpoint.name
      const success = [...successes.entries()][0]
      if (!isOperationName(name) || success === undefined) {
        throw new Error(`The endpoint ${name} has no handler or no success response.`)
      }
      const [successStatus] = success
      found.push({
        name,
        method: endpoint.method,
        template: endpoint.path,
        readsBody: payloads.size > 0,
        successStatus,
        handler: handlers[name]
      })
    }
  })
  return found
})()
