/**
 * Effect's register of root fibers, kept in a linked list instead of its `Set`, for servers that run one root fiber
 * per request (`Runtime.runFork`, `Effect.runPromise`, `ManagedRuntime.runPromise` from a request callback).
 *
 * Effect adds every root fiber to one process-wide `Set` (what `Fiber.roots` lists) and deletes it when the fiber
 * ends. That `Set` lives as long as the process, in V8's old generation, and an entry added and deleted per request
 * has its table rehashed every few dozen requests. What that does, measured below: the fibers it held survive the
 * scavenges and are promoted, each with its stack, its `FiberRefs` and its result (most likely because a table left
 * behind in the old generation keeps pointing at them until the next full collection). Nearly every request's fiber
 * then ends up in the old generation, which fills and is collected about once a second under load, with pauses of
 * several milliseconds that land in the slowest requests. Measured:
 * - alone (`node --expose-gc`), a `Set` promoted first, then 300,000 adds and deletes of short-lived objects of about
 *   1 KB, 32 at a time: the old generation grew by 15 to 25 MB, and by 0.1 MB for the same objects without the `Set`;
 * - `stint serve` on PostgreSQL under `GET /timer` load (`npm run bench`, 3 rounds, 32 connections): 20 full
 *   collections against 6 with the register left empty, p99 14.4 ms against 10.6 (the baseline's 11.1 and 9.5); with
 *   the list below, 6 again, p99 12.9 ms against the baseline's 13.0.
 *
 * `install` replaces the register's `Set` with a doubly linked list holding the same fibers in the same order, so
 * `Fiber.roots` answers as before. A fiber leaving the list forgets its neighbours, and nothing else points at it.
 * It changes effect's global state for the whole process (every root fiber of every runtime registers in the list),
 * once; `@stint/http`'s request runner calls it. It relies on one internal of effect 3.x, the register's global value
 * (`Symbol.for("effect/FiberScope/Global")`, with a `roots` set and an `add` method, created when effect's runtime
 * loads): when that is not there, it changes nothing and answers `false`.
 *
 * @since 0.1.0
 */
// Loads effect's runtime, which creates the register (an import of `GlobalValue` alone does not).
import "effect/Runtime"
import { globalValue } from "effect/GlobalValue"
import { isList, List } from "./internal/rootList.js"

/** What the register needs of a fiber. */
interface Observable {
  readonly addObserver: (observer: (exit: unknown) => void) => void
}

/** Effect's register of root fibers, as far as this module relies on it. */
interface Register {
  roots: Iterable<Observable>
  add: (runtimeFlags: unknown, child: Observable) => void
}

const REGISTER = Symbol.for("effect/FiberScope/Global")

/**
 * Effect's register, read without creating it: asked for a global value it does not hold, `globalValue` stores what
 * its second argument returns, which would leave effect a register of the wrong kind. Here that argument throws, and
 * nothing is stored.
 */
const registered = (): unknown => {
  try {
    return globalValue(REGISTER, () => {
      throw new Error("no register")
    })
  } catch {
    return undefined
  }
}

const isRegister = (value: unknown): value is Register =>
  typeof value === "object" && value !== null && "roots" in value && "add" in value &&
  typeof value.add === "function" && (value.roots instanceof Set || isList(value.roots))

/**
 * Whether effect's root fibers are kept in the list (`install` was called, and effect's register is what it knows).
 *
 * @since 0.1.0
 */
export const installed = (): boolean => {
  const register = registered()
  return isRegister(register) && isList(register.roots)
}

/**
 * Keeps effect's root fibers in a linked list from now on (the fibers registered so far move over). `true` once the
 * list is in place (again on later calls), `false` when effect's register is not what this module knows.
 *
 * @since 0.1.0
 */
export const install = (): boolean => {
  const register = registered()
  if (!isRegister(register)) return false
  if (isList(register.roots)) return true
  const list = new List<Observable>()
  for (const fiber of register.roots) list.add(fiber)
  register.roots = list
  register.add = (_runtimeFlags, child) => {
    const node = list.add(child)
    child.addObserver(() => list.remove(node))
  }
  return true
}
