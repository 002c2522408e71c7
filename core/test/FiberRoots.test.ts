/**
 * Effect's root fibers in a linked list (`FiberRoots.install`): `Fiber.roots` lists exactly the root fibers running,
 * in the order they started, before and after the list takes over, whatever order they end in. What the list saves
 * (finished requests kept alive into V8's old generation) is a matter of the collector's timing, shown by the
 * benchmark (`bench/README.md`), not here.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FastCheck from "effect/FastCheck"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as FiberRoots from "../src/FiberRoots.js"
import { isList, List, type Node } from "../src/internal/rootList.js"

/** A root fiber that runs until `end` is called. */
const startRoot = () => {
  const gate = Deferred.unsafeMake<void>(FiberId.none)
  const fiber = Effect.runFork(Deferred.await(gate))
  return { fiber, end: () => Effect.runSync(Deferred.succeed(gate, undefined)) }
}

type Root = ReturnType<typeof startRoot>

/** Every root fiber of `ours` that `Fiber.roots` lists, in its order. */
const listed = (ours: ReadonlyArray<Root>) =>
  Effect.runSync(Fiber.roots).filter((fiber) => ours.some((root) => root.fiber === fiber))

/** Lets fibers that were told to end run to their end, and the property's next step start on a fresh stack. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0))

describe("FiberRoots", () => {
  it("lists the same root fibers, in order, before and after it takes over, whatever order they end in", async () => {
    const before = [startRoot(), startRoot(), startRoot()]
    expect(listed(before)).toEqual(before.map((root) => root.fiber))
    expect(FiberRoots.installed()).toBe(false)
    expect(FiberRoots.install()).toBe(true)
    expect(FiberRoots.installed()).toBe(true)
    // Again: nothing changes.
    expect(FiberRoots.install()).toBe(true)
    expect(listed(before)).toEqual(before.map((root) => root.fiber))
    // A fiber registered before the list took over leaves it too.
    before[1]!.end()
    await settle()
    expect(listed(before)).toEqual([before[0]!.fiber, before[2]!.fiber])

    await FastCheck.assert(
      FastCheck.asyncProperty(
        FastCheck.array(FastCheck.oneof(FastCheck.constant("start" as const), FastCheck.nat({ max: 30 })), {
          maxLength: 80
        }),
        async (steps) => {
          const running: Array<Root> = []
          const all: Array<Root> = []
          for (const step of steps) {
            if (step === "start") {
              const root = startRoot()
              running.push(root)
              all.push(root)
            } else if (running.length > 0) {
              const [root] = running.splice(step % running.length, 1)
              root!.end()
              await settle()
            }
            expect(listed(all)).toEqual(running.map((root) => root.fiber))
          }
          for (const root of running) root.end()
          await settle()
          expect(listed(all)).toEqual([])
        }
      ),
      { numRuns: 100 }
    )
    before[0]!.end()
    before[2]!.end()
    await settle()
    expect(listed(before)).toEqual([])
  })

  it("keeps its values in insertion order through any adds, removes (some twice) and deletes by value", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(
          FastCheck.oneof(
            FastCheck.constant({ op: "add" as const, at: 0 }),
            FastCheck.record({ op: FastCheck.constant("remove" as const), at: FastCheck.nat({ max: 40 }) }),
            FastCheck.record({ op: FastCheck.constant("delete" as const), at: FastCheck.nat({ max: 40 }) })
          ),
          { maxLength: 200 }
        ),
        (steps) => {
          const list = new List<object>()
          const model: Array<object> = []
          const nodes: Array<Node<object>> = []
          for (const { op, at } of steps) {
            if (op === "add") {
              const value = {}
              nodes.push(list.add(value))
              model.push(value)
            } else {
              // Any node ever added: one already out is removed (or deleted) again.
              const node = nodes[at % Math.max(1, nodes.length)]
              if (node === undefined) continue
              const index = model.indexOf(node.value)
              if (op === "remove") list.remove(node)
              else expect(list.delete(node.value)).toBe(index >= 0)
              if (index >= 0) model.splice(index, 1)
            }
            expect([...list]).toEqual(model)
            expect(list.size).toBe(model.length)
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("lets a node that leaves forget its neighbours", () => {
    const list = new List<string>()
    list.add("a")
    const b = list.add("b")
    list.add("c")
    list.remove(b)
    expect([b.previous, b.next]).toEqual([undefined, undefined])
    expect([...list]).toEqual(["a", "c"])
  })

  it("recognises a list of another copy of the module by its global brand", () => {
    const foreign = { [Symbol.for("@stint/core/FiberRoots/List")]: true }
    expect(isList(new List())).toBe(true)
    expect(isList(foreign)).toBe(true)
    expect(isList(new Set())).toBe(false)
  })
})
