/**
 * The connection's lock (`internal/connection.ts`): at most one holder, every waiter served, and no interruption (of
 * a holder, of a waiter, of a waiter just woken) leaves it held or leaves a waiter stranded.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { makeLock } from "../src/internal/connection.js"

describe("the connection lock", () => {
  it.live("lets one fiber in at a time and serves every waiter, whatever the holders do while holding", () =>
    Effect.gen(function*() {
      const lock = makeLock()
      let inside = 0
      let most = 0
      let done = 0
      yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => i), (i) =>
        lock.with(Effect.gen(function*() {
          inside++
          most = Math.max(most, inside)
          // Suspend while holding: others must wait, not slip in.
          yield* i % 3 === 0 ? Effect.sleep(1) : Effect.yieldNow()
          inside--
          done++
        })), { concurrency: "unbounded", discard: true })
      expect(most).toBe(1)
      expect(done).toBe(50)
      expect(lock.held()).toBe(false)
    }))

  it.live("is released when its holder fails, dies or is interrupted", () =>
    Effect.gen(function*() {
      const lock = makeLock()
      yield* Effect.either(lock.with(Effect.fail("no")))
      expect(lock.held()).toBe(false)
      yield* Effect.exit(lock.with(Effect.die("boom")))
      expect(lock.held()).toBe(false)
      const holding = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(lock.with(Effect.zipRight(Deferred.succeed(holding, undefined), Effect.never)))
      yield* Deferred.await(holding)
      expect(lock.held()).toBe(true)
      yield* Fiber.interrupt(holder)
      expect(lock.held()).toBe(false)
    }))

  it.live("a waiter interrupted while waiting, or right as it is woken, strands nobody", () =>
    Effect.gen(function*() {
      const lock = makeLock()
      const holding = yield* Deferred.make<void>()
      const letGo = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(lock.with(Effect.zipRight(Deferred.succeed(holding, undefined), Deferred.await(letGo))))
      yield* Deferred.await(holding)
      const served: Array<string> = []
      const waiter = (name: string) => Effect.fork(lock.with(Effect.sync(() => served.push(name))))
      const early = yield* waiter("early")
      const woken = yield* waiter("woken")
      const last = yield* waiter("last")
      yield* Effect.yieldNow()
      // One waiter gives up while waiting; another is interrupted in the same step as the holder lets go.
      yield* Fiber.interrupt(early)
      yield* Deferred.succeed(letGo, undefined)
      yield* Fiber.interruptFork(woken)
      yield* Fiber.join(holder)
      yield* Fiber.join(last)
      yield* Fiber.await(woken)
      expect(served).toContain("last")
      expect(served).not.toContain("early")
      expect(lock.held()).toBe(false)
      // And the lock is still usable.
      yield* lock.with(Effect.sync(() => served.push("after")))
      expect(served).toContain("after")
    }))
})
