/**
 * The runner's list of requests in flight against a `Set` as the model: any sequence of adds and removes (removes of
 * any entry, in any order, some twice) leaves the same requests, in the same count.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as InFlight from "../src/internal/inFlight.js"

describe("InFlight", () => {
  it("holds exactly the requests added and not yet removed, whatever the order", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(FastCheck.oneof(FastCheck.constant("add" as const), FastCheck.nat({ max: 40 })), { maxLength: 200 }),
        (steps) => {
          const list = InFlight.make()
          const model = new Set<() => void>()
          const entries: Array<InFlight.Entry> = []
          for (const step of steps) {
            if (step === "add") {
              const interrupt = () => {}
              entries.push(list.add(interrupt))
              model.add(interrupt)
            } else {
              const entry = entries[step % Math.max(1, entries.length)]
              if (entry === undefined) continue
              list.remove(entry)
              model.delete(entry.interrupt)
            }
            expect(list.size()).toBe(model.size)
            expect(new Set(list.all())).toEqual(model)
          }
        }
      ),
      { numRuns: 300 }
    )
  })

  it("lets a removed entry forget its neighbours", () => {
    const list = InFlight.make()
    const a = list.add(() => {})
    const b = list.add(() => {})
    const c = list.add(() => {})
    list.remove(b)
    expect([b.previous, b.next]).toEqual([undefined, undefined])
    expect(list.all()).toEqual([c.interrupt, a.interrupt])
    list.remove(c)
    list.remove(a)
    expect(list.size()).toBe(0)
    expect(list.all()).toEqual([])
  })
})
