/**
 * Stacks that speak HTTP. `inProcess` runs Stint's own Node server on a free port over a `Store` layer, on the kit's
 * manual clock, and drives it with requests derived from the `HttpApi` definition: how the kit checks the HTTP adapter
 * together with a storage adapter. `remote` drives servers someone else started (other processes, other hosts).
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpServer from "@effect/platform/HttpServer"
import { Admin, Fixture, Settings, Store } from "@stint/core"
import { Server } from "@stint/http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type * as Scope from "effect/Scope"
import * as HttpDriver from "./internal/HttpDriver.js"
import * as InProcess from "./internal/InProcess.js"
import type { AdminEvents, Backdoor, Capabilities, Definition, Stack } from "./Stack.js"

/**
 * Options of an in-process HTTP stack.
 *
 * @since 0.1.0
 */
export interface Options<R> {
  /** A reader of the store that does not go through the adapter's own reads. */
  readonly backdoor?: ((context: Context.Context<R>) => Backdoor) | undefined
}

/**
 * Stint's HTTP server over `layer` (a fresh, empty `Store`), in this process, on the kit's clock.
 *
 * @since 0.1.0
 */
export const inProcess = <R = never, E = never>(
  layer: Layer.Layer<Store.Store | R, E>,
  options: Options<Store.Store | R> = {}
): Definition => {
  const capabilities: Capabilities = { http: true, controlledClock: true, concurrent: true }
  const make = Effect.gen(function*() {
    const inProcess = yield* InProcess.make(layer)
    const services = Layer.mergeAll(
      Layer.succeed(Store.Store, inProcess.store),
      Layer.succeed(Settings.Settings, inProcess.settings),
      Layer.setClock(inProcess.manual.clock),
      // The server's one log line per request is the operator's; the kit's output stays readable without it.
      Logger.minimumLogLevel(LogLevel.None)
    )
    const server = yield* Layer.build(Layer.provide(Server.layer({ host: "127.0.0.1", port: 0 }), services))
    const address = Context.get(server, HttpServer.HttpServer).address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("the server is not on TCP")
    const baseUrl = `http://127.0.0.1:${address.port}`
    const stack: Stack = {
      call: (operation, request) =>
        HttpDriver.call(baseUrl, operation, request).pipe(Effect.provide(FetchHttpClient.layer)),
      seed: inProcess.seed,
      admin: inProcess.admin,
      clock: { now: inProcess.manual.now, advance: inProcess.manual.advance },
      backdoor: options.backdoor?.(inProcess.context)
    }
    return stack
  })
  return { capabilities, make }
}

/**
 * Options of a stack of servers the kit did not start.
 *
 * @since 0.1.0
 */
export interface RemoteOptions {
  /** Base URLs of the servers; requests are spread over them in turn. */
  readonly baseUrls: ReadonlyArray<string>
  /** Loads a fixture into the store the servers share (e.g. by running `stint seed`). */
  readonly seed: Stack["seed"]
  readonly admin: AdminEvents
  readonly backdoor?: Backdoor | undefined
}

/**
 * Servers someone else runs, sharing one store, on the real clock (so clock-dependent checks are not registered).
 *
 * @since 0.1.0
 */
export const remote = (make: Effect.Effect<RemoteOptions, unknown, Scope.Scope>): Definition => ({
  capabilities: { http: true, controlledClock: false, concurrent: true },
  make: Effect.map(make, (options): Stack => {
    let next = 0
    return {
      call: (operation, request) => {
        const baseUrl = options.baseUrls[next++ % options.baseUrls.length] ?? ""
        return HttpDriver.call(baseUrl, operation, request).pipe(Effect.provide(FetchHttpClient.layer))
      },
      seed: options.seed,
      admin: options.admin,
      clock: { now: Effect.sync(() => Date.now()), advance: () => Effect.dieMessage("the real clock cannot be moved") },
      backdoor: options.backdoor
    }
  })
})

/**
 * `seed` and `admin` of a remote stack, done through a `Store` on the servers' own database (typically a second store
 * of the test process on the same SQLite file or PostgreSQL database): fixtures by `Fixture.load`, admin events by the
 * core's `Admin`. `run` gives an effect that store.
 *
 * ```ts
 * const store = yield* PgStore.make({ url })
 * return { baseUrls, ...HttpStack.storeHooks((effect) => Effect.provideService(effect, Store.Store, store)) }
 * ```
 *
 * A store that is only a layer (`SqliteStore.layer`, say) is built in the stack's scope first:
 *
 * ```ts
 * const store = Context.get(yield* Layer.build(SqliteStore.layer({ filename })), Store.Store)
 * ```
 *
 * @since 0.1.0
 */
export const storeHooks = (
  run: <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Effect.Effect<A, unknown>
): Pick<RemoteOptions, "seed" | "admin"> => {
  const admin = <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Effect.orDie(Effect.asVoid(run(effect)))
  return {
    seed: (fixture) => run(Fixture.load(fixture)),
    admin: {
      setArchived: (entity, id, archived) => admin(Admin.setArchived(entity, id, archived)),
      removeMembership: (workspaceId, userId) => admin(Admin.removeMembership({ workspaceId, userId })),
      revokeKey: (keyId) => admin(Admin.revokeApiKey(keyId)),
      voidEntry: (entryId) => admin(Admin.voidEntry(entryId)),
      moveEntryStart: (entryId, startedAt) => admin(Admin.moveEntryStart(entryId, new Date(startedAt).toISOString()))
    }
  }
}
