/**
 * What the in-process stacks share: a `Store` built from a layer (widened, see `Widen.ts`; reading along on every
 * other request, see `Alternate.ts`), the kit's manual clock, the spec's default settings, and the fixture loader and
 * admin events run directly on that store.
 */
import { Admin, Fixture, Settings, Store } from "@stint/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as ManualClock from "../ManualClock.js"
import type { AdminEvents, Stack } from "../Stack.js"
import * as Alternate from "./Alternate.js"
import * as Widen from "./Widen.js"

/** The store, clock and settings of an in-process stack, and how to run core effects on them. */
export interface InProcess<R> {
  readonly context: Context.Context<R>
  readonly store: Store.Store["Type"]
  /** The same store, widened but asked exactly what it is asked (no alternation): for the store laws. */
  readonly direct: Store.Store["Type"]
  readonly manual: ManualClock.ManualClock
  readonly settings: Settings.SettingsShape
  readonly run: <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Effect.Effect<A, E>
  readonly seed: Stack["seed"]
  readonly admin: AdminEvents
}

/** Builds the store of `layer` for the enclosing scope. */
export const make = <R, E>(
  layer: Layer.Layer<Store.Store | R, E>
): Effect.Effect<InProcess<Store.Store | R>, E, Scope.Scope> =>
  Effect.gen(function*() {
    const context = yield* Layer.build(layer)
    // Pauses between each timer transaction's read and write, so that a missing lock cannot hide; reads along with
    // authentication, and authenticates inside timer transactions, on every other request only, so that both ways
    // are checked.
    const direct = Widen.widen(Context.get(context, Store.Store))
    const store = Alternate.readAlong(direct)
    const manual = ManualClock.make()
    // The spec's policies: the kit's checks and its model assume them.
    const settings = Settings.defaults
    const run = <A, E2>(effect: Effect.Effect<A, E2, Store.Store>) =>
      effect.pipe(
        Effect.provideService(Store.Store, store),
        Effect.provideService(Settings.Settings, settings),
        Effect.withClock(manual.clock)
      )
    const event = <A, E2>(effect: Effect.Effect<A, E2, Store.Store>) => Effect.orDie(Effect.asVoid(run(effect)))
    return {
      context,
      store,
      direct,
      manual,
      settings,
      run,
      seed: (fixture) => run(Fixture.load(fixture)),
      admin: {
        setArchived: (entity, id, archived) => event(Admin.setArchived(entity, id, archived)),
        removeMembership: (workspaceId, userId) => event(Admin.removeMembership({ workspaceId, userId })),
        revokeKey: (keyId) => event(Admin.revokeApiKey(keyId)),
        voidEntry: (entryId) => event(Admin.voidEntry(entryId)),
        moveEntryStart: (entryId, startedAt) => event(Admin.moveEntryStart(entryId, new Date(startedAt).toISOString()))
      }
    }
  })
