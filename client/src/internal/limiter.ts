/**
 * The client-side rate limit as an Effect: calls beyond the window wait in line (interruptibly) instead of failing,
 * and every request holds its place until `windowMillis` after its answer.
 */
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Window from "./window.js"

export interface Limiter {
  /** Runs `effect` once the window has room, holding a place until `windowMillis` after it ends. */
  readonly withPlace: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** How long to wait after a 429 before trying again. */
  readonly waitAfterRateLimited: Effect.Effect<number>
}

interface State {
  readonly window: Window.Window
  /** Completed (and replaced) each time a request is answered. */
  readonly answered: Deferred.Deferred<void>
}

export const make = (limit: number, windowMillis: number): Effect.Effect<Limiter> =>
  Effect.gen(function*() {
    const state = yield* Ref.make<State>({ window: Window.empty, answered: yield* Deferred.make<void>() })

    // Runs uninterruptibly except while waiting, so that a place taken is always given back.
    const take = (restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        while (true) {
          const now = yield* Clock.currentTimeMillis
          // The decision and the signal to wait for are read in one step: no answer can slip between them.
          const [decision, answered] = yield* Ref.modify(
            state,
            (s): [readonly [Window.Decision, Deferred.Deferred<void>], State] => {
              const d = Window.take(s.window, now, limit)
              return [[d, s.answered], { ...s, window: d.window }]
            }
          )
          if (decision._tag === "Taken") return
          yield* restore(decision._tag === "WaitUntil" ? Effect.sleep(decision.at - now) : Deferred.await(answered))
        }
      })

    const giveBack = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const next = yield* Deferred.make<void>()
      const previous = yield* Ref.modify(state, (s): [Deferred.Deferred<void>, State] => [
        s.answered,
        { window: Window.answered(s.window, now, windowMillis), answered: next }
      ])
      yield* Deferred.succeed(previous, undefined)
    })

    return {
      withPlace: (effect) =>
        Effect.uninterruptibleMask((restore) =>
          Effect.zipRight(take(restore), Effect.ensuring(restore(effect), giveBack))
        ),
      waitAfterRateLimited: Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.map(Ref.get(state), (s) => Window.waitAfterRateLimited(s.window, now, windowMillis)))
    }
  })
