/**
 * Laws of the storage port itself, checked on the `Store` a stack exposes (`Stack.store`): a read a store makes along
 * with authentication (`Store.ReadAlong`), or inside it (`authenticateInTimerTransaction`), answers exactly what the
 * ordinary read (`findActiveEntry`, `listEntries`, a `withTimerTransaction` read) answers in the same state, and
 * authenticating that way answers exactly as `authenticate` alone. The operations catch a wrong answer only where one
 * of their checks happens to look; here every kind of key, filter, position, limit and timer query is compared.
 *
 * @since 0.2.0
 */
import type { RateLimit, Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Option from "effect/Option"
import { createHash, randomUUID } from "node:crypto"
import { expect } from "vitest"
import { as, expectSuccess, json } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import type { Stack, StoreService } from "../Stack.js"
import * as World from "../World.js"

const HOUR = 3_600_000

/** Keys of every kind the world has, and one no store knows. */
const keyKinds = ["member", "memberSecond", "readOnly", "revoked", "expired", "removed", "memberElsewhere"] as const
type KeyKind = typeof keyKinds[number] | "unknown"

/** Room for every probe, or a limit of one that the probe's first authentication has already used up. */
const generous: RateLimit.Policy = { limit: 1_000_000, windowMillis: 60_000 }
const tight: RateLimit.Policy = { limit: 1, windowMillis: 60_000 }

type ProjectName = "website" | "app" | "support"

interface Probe {
  readonly key: KeyKind
  readonly tight: boolean
  readonly along:
    | { readonly _tag: "ActiveEntry" }
    | {
      readonly _tag: "EntriesPage"
      readonly projectId: ProjectName | "unknown" | null
      /** An index into the seeded entries, or a position of no entry. */
      readonly after: number | { readonly hoursAgo: number; readonly id: string } | null
      readonly limit: number
    }
  readonly timer: {
    readonly idempotencyKey: "used" | "fresh" | undefined
    readonly entryId: "own" | "owner's" | "unknown" | undefined
    readonly projectId: ProjectName | "foreign" | "unknown" | undefined
  }
}

const project = fc.constantFrom<ProjectName>("website", "app", "support")

/** Mostly the member's own key (whose scope has the entries), every other kind now and then. */
const keyKind: fc.Arbitrary<KeyKind> = fc.oneof(
  { arbitrary: fc.constant("member" as const), weight: 4 },
  { arbitrary: fc.constantFrom<KeyKind>(...keyKinds, "unknown"), weight: 7 }
)

const probe: fc.Arbitrary<Probe> = fc.record({
  key: keyKind,
  tight: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  along: fc.oneof(
    fc.constant({ _tag: "ActiveEntry" as const }),
    {
      arbitrary: fc.record({
        _tag: fc.constant("EntriesPage" as const),
        projectId: fc.oneof(fc.constant(null), project, fc.constant("unknown" as const)),
        // Mostly the position of a seeded entry (as a cursor gives it), sometimes none, sometimes between entries.
        after: fc.oneof(
          fc.constant(null),
          { arbitrary: fc.nat(30), weight: 3 },
          fc.record({ hoursAgo: fc.integer({ min: 0, max: 7 }), id: fc.uuid().map((id) => id.toLowerCase()) })
        ),
        limit: fc.integer({ min: 1, max: 6 })
      }),
      weight: 2
    }
  ),
  timer: fc.record({
    idempotencyKey: fc.constantFrom("used" as const, "used" as const, "fresh" as const, undefined),
    entryId: fc.constantFrom("own" as const, "owner's" as const, "unknown" as const, undefined),
    projectId: fc.constantFrom<Probe["timer"]["projectId"]>("website", "app", "support", "foreign", "unknown", undefined)
  })
})

const history = fc.record({
  // Few distinct start times: many ties, which only the id orders.
  entries: fc.array(
    fc.record({ hoursAgo: fc.integer({ min: 1, max: 6 }), project, voided: fc.boolean() }),
    { maxLength: 14 }
  ),
  /** A timer started through the operations (with an idempotency record), or none. */
  running: fc.option(project, { nil: undefined }),
  probes: fc.array(probe, { minLength: 1, maxLength: 6 })
})

const digestOf = (key: string) => createHash("sha256").update(key).digest("hex")

/** A snapshot with its options as values or null, for comparison. */
const plainSnapshot = (snapshot: Store.TimerSnapshot) => ({
  idempotency: Option.getOrNull(snapshot.idempotency),
  running: Option.getOrNull(snapshot.running),
  entry: Option.getOrNull(snapshot.entry),
  project: Option.getOrNull(snapshot.project)
})

/** @since 0.2.0 */
export const register = (h: Harness, options: { readonly runs: number }): void => {
  h.check(
    "a read made along with authentication, or inside it, answers what the ordinary read answers, and authenticates as authenticate alone",
    (stack) =>
      Effect.gen(function*() {
        const store = stack.store
        if (store === undefined) return yield* Effect.dieMessage("the stack declares `store` but exposes none")
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(history, (value) => Effect.runPromise(lawsHold(stack, store, value))),
            { numRuns: options.runs, endOnFailure: true }
          )
        )
      }),
    300_000
  )
}

const lawsHold = (
  stack: Stack,
  store: StoreService,
  { entries, probes, running }: typeof history extends fc.Arbitrary<infer A> ? A : never
): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const world = yield* World.seed(stack)
    const now = yield* stack.clock.now
    const projectIds: Record<ProjectName | "foreign" | "unknown", string> = {
      ...world.projects,
      unknown: randomUUID()
    }
    const entry = (userId: string, workspaceId: string, projectId: string, hoursAgo: number, voided: boolean) => ({
      id: World.newId(),
      userId,
      workspaceId,
      projectId,
      status: voided ? "voided" : "completed",
      startedAt: new Date(now - hoursAgo * HOUR).toISOString(),
      endedAt: new Date(now - hoursAgo * HOUR + 1000).toISOString()
    })
    const own = entries.map((e) => entry(world.users.member, world.workspace, projectIds[e.project], e.hoursAgo, e.voided))
    // Entries of the member's other workspace and of another user: a read of the wrong scope shows.
    const others = [
      entry(world.users.member, world.otherWorkspace, world.projects.foreign, 2, false),
      entry(world.users.owner, world.workspace, world.projects.website, 3, false)
    ]
    yield* Effect.orDie(stack.seed({ timeEntries: [...own, ...others] }))
    const usedKey = World.newId()
    if (running !== undefined) {
      expectSuccess(
        yield* stack.call(
          "startTimer",
          as(world.keys.member, { idempotencyKey: usedKey, body: json({ projectId: projectIds[running] }) })
        ),
        "startTimer"
      )
    }
    for (const p of probes) {
      const digest = digestOf(p.key === "unknown" ? World.newKey() : world.keys[p.key])
      const policy = p.tight ? tight : generous
      const along: Store.ReadAlong = p.along._tag === "ActiveEntry" ? p.along : {
        _tag: "EntriesPage",
        query: {
          projectId: p.along.projectId === null ? null : projectIds[p.along.projectId],
          after: p.along.after === null
            ? null
            : typeof p.along.after === "number"
            ? own.length === 0 ? null : positionOf(own[p.along.after % own.length]!)
            : { startedAt: now - p.along.after.hoursAgo * HOUR, id: p.along.after.id },
          limit: p.along.limit
        }
      }
      const described = `${JSON.stringify(p)} → ${JSON.stringify(along)}`
      const alone = yield* store.authenticate(digest, now, policy)
      const withRead = yield* store.authenticate(digest, now, policy, along)
      expect(Option.isSome(withRead), `found alike: ${described}`).toBe(Option.isSome(alone))
      if (Option.isNone(alone) || Option.isNone(withRead)) continue
      expect(withRead.value.key, `the same key: ${described}`).toEqual(alone.value.key)
      // Under the limit of one, the authentication just before used the window up (if the key authenticates).
      expect(withRead.value.accepted, `accepted alike: ${described}`).toBe(p.tight ? false : alone.value.accepted)
      const scope = { workspaceId: alone.value.key.workspaceId, userId: alone.value.key.userId }
      const { activeEntry, entries: page } = withRead.value
      if (activeEntry !== undefined) {
        expect(Option.getOrNull(activeEntry), `the active entry read along: ${described}`)
          .toEqual(Option.getOrNull(yield* store.findActiveEntry(scope)))
      }
      if (page !== undefined && along._tag === "EntriesPage") {
        expect(page, `the page read along: ${described}`).toEqual(yield* store.listEntries(scope, along.query))
      }
      const combined = store.authenticateInTimerTransaction
      if (combined === undefined) continue
      const query: Store.TimerQuery = {
        idempotencyKey: p.timer.idempotencyKey === undefined
          ? undefined
          : p.timer.idempotencyKey === "used"
          ? usedKey
          : World.newId(),
        entryId: p.timer.entryId === undefined
          ? undefined
          : p.timer.entryId === "own"
          ? own[0]?.id ?? World.newId()
          : p.timer.entryId === "owner's"
          ? others[1]!.id
          : World.newId(),
        projectId: p.timer.projectId === undefined ? undefined : projectIds[p.timer.projectId]
      }
      const inside = yield* combined(
        { digest, now, policy },
        query,
        (found, tx) =>
          Effect.map(
            // The body must not use `tx` for a refused key.
            Option.isSome(found) && found.value.accepted
              ? Effect.asSome(Effect.map(tx.read(query), plainSnapshot))
              : Effect.succeedNone,
            (snapshot) => ({ found, snapshot })
          )
      )
      const timerCase = `${described}; timer query ${JSON.stringify(query)}`
      expect(Option.getOrNull(inside.found)?.key, `the same key inside the transaction: ${timerCase}`)
        .toEqual(alone.value.key)
      // Two authentications before it: it is refused under the limit of one, and accepted as before otherwise.
      expect(Option.getOrNull(inside.found)?.accepted, `accepted alike inside the transaction: ${timerCase}`)
        .toBe(p.tight ? false : alone.value.accepted)
      if (Option.isSome(inside.snapshot)) {
        const ordinary = yield* store.withTimerTransaction(scope, (tx) => Effect.map(tx.read(query), plainSnapshot))
        expect(inside.snapshot.value, `the timer read inside the authentication: ${timerCase}`).toEqual(ordinary)
      }
    }
  })

const positionOf = (row: { readonly id: string; readonly startedAt: string }) => ({
  startedAt: Date.parse(row.startedAt),
  id: row.id
})
