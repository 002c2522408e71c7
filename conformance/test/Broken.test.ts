/**
 * The kit proves it catches bugs: each deliberately broken adapter must fail it, in the checks that guard the rule it
 * breaks, while the unbroken store passes the same checks.
 */
import { CoreStack, Suite } from "@stint/conformance"
import { MemoryStore } from "@stint/core"
import { describe, expect, it } from "vitest"
import * as Stacks from "./broken/Stacks.js"
import * as Stores from "./broken/Stores.js"
import { backdoor } from "./support/MemoryBackdoor.js"

const options = { runs: 12 } as const

const failures = async (definition: Parameters<typeof Suite.run>[0], only: ReadonlyArray<Suite.Group>) =>
  (await Suite.run(definition, { ...options, only })).filter((result) => !result.passed).map((r) => `${r.group}: ${r.name}`)

const cases: ReadonlyArray<readonly [string, Parameters<typeof Suite.run>[0], ReadonlyArray<Suite.Group>, ReadonlyArray<string>]> = [
  ["an off-by-one page boundary", CoreStack.make(Stores.offByOnePage, { backdoor }), ["examples", "laws"], [
    "examples: walks every entry exactly once, newest first with ties broken by id, for any page size",
    "laws: pagination walks every entry once, in order, for any limit and any interleaving of new entries"
  ]],
  ["ties not broken by id", CoreStack.make(Stores.tiesByStartOnly, { backdoor }), ["examples", "laws"], [
    "examples: walks every entry exactly once, newest first with ties broken by id, for any page size",
    "laws: pagination walks every entry once, in order, for any limit and any interleaving of new entries"
  ]],
  ["a non-atomic start", CoreStack.make(Stores.nonAtomicStart, { backdoor }), ["races"], [
    "races: concurrent starts and stops for one user never make two active entries and execute each key once"
  ]],
  ["a store with no lock at all", CoreStack.make(Stores.noLock, { backdoor }), ["races"], [
    "races: concurrent starts and stops for one user never make two active entries and execute each key once"
  ]],
  ["an idempotency record stored outside the transaction", CoreStack.make(Stores.idempotencyOutsideTransaction, { backdoor }), ["races"], [
    "races: requests under one idempotency key in flight at once execute once: the same input replays, other input conflicts"
  ]],
  ["a fixed-minute rate window", CoreStack.make(Stores.fixedMinuteWindow, { backdoor }), ["timed"], [
    "timed: is a sliding 60-second window, not a fixed minute, and does not count refusals"
  ]],
  ["earnings rounded with floats", Stacks.floatEarnings(CoreStack.make(MemoryStore.layerMemory)), ["examples", "model"], [
    "examples: writes every field of an entry: UTC times, durations, exact earnings, nulls while active or voided"
  ]],
  ["earnings past 2^53 rounded half to even", Stacks.halfEvenPast2To53(CoreStack.make(MemoryStore.layerMemory)), ["examples"], [
    "examples: computes earnings past 2^53 exactly and rounds their half cent up (the largest rate, the longest durations)"
  ]],
  ["an active entry read along with authentication from a stale view", CoreStack.make(Stores.alongMissesActive, { backdoor }), ["examples", "store"], [
    "examples: starts a timer with every field of the Timer resource",
    "store: a read made along with authentication, or inside it, answers what the ordinary read answers, and the request is counted exactly as by authenticate alone"
  ]],
  ["a page read along with authentication that ignores the cursor", CoreStack.make(Stores.alongIgnoresCursor, { backdoor }), ["examples", "laws", "store"], [
    "examples: walks every entry exactly once, newest first with ties broken by id, for any page size",
    "laws: pagination walks every entry once, in order, for any limit and any interleaving of new entries",
    "store: a read made along with authentication, or inside it, answers what the ordinary read answers, and the request is counted exactly as by authenticate alone"
  ]],
  ["authentication inside the timer transaction with the read made before the lock", CoreStack.make(Stores.combinedReadsBeforeLock, { backdoor }), ["races"], [
    "races: concurrent starts and stops for one user never make two active entries and execute each key once"
  ]],
  ["a timer read inside authentication that misses the idempotency record", CoreStack.make(Stores.combinedMissesIdempotency, { backdoor }), ["store"], [
    "store: a read made along with authentication, or inside it, answers what the ordinary read answers, and the request is counted exactly as by authenticate alone"
  ]],
  ["a request authenticated with a read along that is not counted", CoreStack.make(Stores.alongUncounted, { backdoor }), ["store"], [
    "store: a read made along with authentication, or inside it, answers what the ordinary read answers, and the request is counted exactly as by authenticate alone"
  ]],
  ["authentication inside the timer transaction that answers every read with the expected one", CoreStack.make(Stores.combinedAnswersEveryRead, { backdoor }), ["store"], [
    "store: a read made along with authentication, or inside it, answers what the ordinary read answers, and the request is counted exactly as by authenticate alone"
  ]],
  ["a bulk load committed batch by batch", CoreStack.make(Stores.bulkCommittedPerBatch, { backdoor }), ["examples"], [
    "examples: loads a fixture of several batches of entries all or nothing"
  ]],
  ["idempotency records forgotten a second early", CoreStack.make(Stores.forgetsEarly, { backdoor }), ["timed"], [
    "timed: remembers a key for 24 hours, also across other writes, then executes it again"
  ]],
  ["an expired key's record stored again without its new fingerprint", CoreStack.make(Stores.keepsOldFingerprint, { backdoor }), ["timed"], [
    "timed: a key used again after its 24 hours with other input runs that input, and is then that input's key"
  ]],
  ["a timer transaction's writes kept when its body fails", CoreStack.make(Stores.keepsFailedWrites, { backdoor }), ["store"], [
    "store: a timer transaction whose body fails after writing stores nothing, entered alone or with authentication"
  ]],
  ["a cursor accepted after its filter changed", Stacks.cursorIgnoresFilter(CoreStack.make(MemoryStore.layerMemory)), ["examples", "laws"], [
    "examples: refuses a cursor under any other key, filter or limit, and any altered cursor, with INVALID_CURSOR",
    "laws: a cursor issued under one binding is refused under every other"
  ]]
]

describe("the kit catches broken adapters", () => {
  for (const [name, definition, only, expected] of cases) {
    it(`fails ${name}`, async () => {
      const failed = await failures(definition, only)
      expect(failed).toEqual(expect.arrayContaining([...expected]))
    }, 300_000)
  }

  it("passes the unbroken store on the same checks (the failures above come from the breakage)", async () => {
    const failed = await failures(CoreStack.make(MemoryStore.layerMemory, { backdoor }), ["examples", "timed", "races", "laws", "model", "store"])
    expect(failed).toEqual([])
  }, 300_000)

  it("passes a store that authenticates inside the timer transaction correctly", async () => {
    const failed = await failures(CoreStack.make(Stores.combinedCorrect, { backdoor }), ["examples", "timed", "races", "laws", "model", "store"])
    expect(failed).toEqual([])
  }, 300_000)

  it("passes a store that reads along with authentication correctly (the failures of the broken readers come from the breakage)", async () => {
    const failed = await failures(CoreStack.make(Stores.alongCorrect, { backdoor }), ["examples", "timed", "races", "laws", "model", "store"])
    expect(failed).toEqual([])
  }, 300_000)
})
