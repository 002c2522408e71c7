/**
 * The list `FiberRoots` keeps effect's root fibers in: a doubly linked list of values in insertion order, in which a
 * node that leaves forgets its neighbours (nothing that stays points at it). Branded with a global symbol, so that
 * another copy of this module in the process recognises it.
 */

/** A value's place in a `List`. */
export interface Node<A> {
  readonly value: A
  previous: Node<A> | undefined
  next: Node<A> | undefined
}

const BRAND = Symbol.for("@stint/core/FiberRoots/List")

/** Whether `value` is a `List` (of any copy of this module). */
export const isList = (value: unknown): boolean => typeof value === "object" && value !== null && BRAND in value

/**
 * The list. `delete` by value (a scan) serves fibers registered before `FiberRoots.install`, whose observers delete
 * them from the register's `roots` as from a `Set`.
 */
export class List<A> implements Iterable<A> {
  readonly [BRAND] = true
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

  /** Takes `node` out; a node already out (removed before) is left alone. */
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

  /** The values in insertion order. Effect reads them at once (`Array.from`), so nothing leaves while they are read. */
  *[Symbol.iterator](): Iterator<A> {
    for (let node = this.first; node !== undefined; node = node.next) yield node.value
  }
}
