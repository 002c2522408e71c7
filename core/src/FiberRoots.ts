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
import { globalValue } from "effect/GlobalValue"

/** What the register needs of a fiber. */
interface Observable {
  readonly addObserver: (observer: (exit: unknown) => void) => void
}

/** Effect's register of root fibers, as far as this module relies on it. */
interface Register {
  roots: Iterable<Observable>
  add: (runtimeFlags: unknown, child: Observable) => void
}

interface Node<A> {
  readonly value: A
  previous: Node<A> | undefined
  next: Node<A> | undefined
}

/**
 * A doubly linked list of values in insertion order. `delete` by value (a scan) serves fibers registered before
 * `install`, whose observers delete them from `roots` as from a `Set`.
 */
class List<A> implements Iterable<A> {
  private first: Node<A> | undefined = undefined
  private last: Node<A> | undefined = undefined
  size = 0

  add(value: A): Node<A> {
    const node: Node<A> = { value, previous: this.last, next: undefined }
    if (this.last === undefined) this.first = node
    else this.last.next = node
    this.last = node
    this.size++
    return node
  }

  remove(node: Node<A>): void {
    if (node.previous === undefined && this.first !== node) return
    if (node.previous === undefined) this.first = node.next
    else node.previous.next = node.next
    if (node.next === undefined) this.last = node.previous
    else node.next.previous = node.previous
    node.previous = undefined
    node.next = undefined
    this.size--
  }

  delete(value: A): boolean {
    for (let node = this.first; node !== undefined; node = node.next) {
      if (node.value === value) {
        this.remove(node)
        return true
      }
    }
    return false
  }

  *[Symbol.iterator](): Iterator<A> {
    // The next node is read before yielding: a fiber may end (and leave) while its caller looks at it.
    for (let node = this.first; node !== undefined;) {
      const next: Node<A> | undefined = node.next
      yield node.value
      node = next
    }
  }
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
  typeof value.add === "function" && (value.roots instanceof Set || value.roots instanceof List)

/**
 * Whether effect's root fibers are kept in the list (`install` was called, and effect's register is what it knows).
 *
 * @since 0.1.0
 */
export const installed = (): boolean => {
  const register = registered()
  return isRegister(register) && register.roots instanceof List
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
  if (register.roots instanceof List) return true
  const list = new List<Observable>()
  for (const fiber of register.roots) list.add(fiber)
  register.roots = list
  register.add = (_runtimeFlags, child) => {
    const node = list.add(child)
    child.addObserver(() => list.remove(node))
  }
  return true
}
