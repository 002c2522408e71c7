/**
 * Laws of the storage port itself, checked on the `Store` a stack exposes (`Stack.store`): a read a store makes along
 * with authentication (`Store.ReadAlong`), or inside it (`authenticateInTimerTransaction`), answers exactly what the
 * ordinary read (`findActiveEntry`, `listEntries`, a `withTimerTransaction` read) answers in the same state, and
 * authenticating that way finds the same key and counts the request exactly as `authenticate` alone does (each of the
 * three ways is run first, last or between, under a limit with room or one with room for exactly one more request, so
 * that a request counted twice, or not at all, shows). The operations catch a wrong answer only where one of their
 * checks happens to look; here keys of many kinds, filters, positions, limits and timer queries are compared.
 *
 * @since 0.1.0
 */
import type { RateLimit, Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as fc from "effect/FastCheck"
import * as Option from "effect/Option"
import { createHash, randomUUID } from "node:crypto"
import { expect } from "vitest"
import { as, expectSuccess, json } from "../internal/Check.js"
import type { Harness } from "../internal/Harness.js"
import { property } from "../internal/Property.js"
import type { Stack, StoreService } from "../Stack.js"
import * as World from "../World.js"

const HOUR = 3_600_000

/** Keys of the world that authenticate, those refused (expired, revoked, of a removed member), and one no store knows. */
const accepting = ["member", "memberSecond", "readOnly", "memberElsewhere", "owner", "admin", "ownerOld"] as const
const refused = ["revoked", "expired", "removed"] as const
type KeyKind = typeof accepting[number] | typeof refused[number] | "unknown"

const WINDOW_MILLIS = 60_000

/** Room for every request, or (`edge`) room for exactly one more request of the key than it has made. */
const policyFor = (edge: boolean, counted: number): RateLimit.Policy => ({
  limit: edge ? counted + 1 : 1_000_000,
  windowMillis: WINDOW_MILLIS
})

/** The three ways of authenticating, in the order a probe runs them. */
type Way = "alone" | "along" | "inside"
const orders: ReadonlyArray<ReadonlyArray<Way>> = [
  ["alone", "along", "inside"],
  ["alone", "inside", "along"],
  ["along", "alone", "inside"],
  ["along", "inside", "alone"],
  ["inside", "alone", "along"],
  ["inside", "along", "alone"]
]

type ProjectName = "website" | "app" | "support"

interface TimerQueryChoice {
  readonly idempotencyKey: "used" | "owner's" | "fresh" | undefined
  readonly entryId: "own" | "owner's" | "unknown" | undefined
  readonly projectId: ProjectName | "foreign" | "unknown" | undefined
}

interface Probe {
  readonly key: KeyKind
  /** Room for exactly one more request of the key: the first of the three ways is accepted, the others refused. */
  readonly edge: boolean
  readonly order: number
  readonly along:
    | { readonly _tag: "ActiveEntry" }
    | {
      readonly _tag: "EntriesPage"
      readonly projectId: ProjectName | "unknown" | null
      /** An index into the seeded entries, or a position of no entry. */
      readonly after: number | { readonly hoursAgo: number; readonly id: string } | null
      readonly limit: number
    }
  /** What the body of `authenticateInTimerTransaction` reads, and what it is told it will read (`expected`). */
  readonly timer: TimerQueryChoice
  readonly expected: TimerQueryChoice | "the same"
}

const project = fc.constantFrom<ProjectName>("website", "app", "support")

/** Mostly the member's own key (whose scope has the entries), every other kind now and then. */
const keyKind: fc.Arbitrary<KeyKind> = fc.oneof(
  { arbitrary: fc.constant("member" as const), weight: 4 },
  { arbitrary: fc.constantFrom<KeyKind>(...accepting, ...refused, "unknown"), weight: 8 }
)

const timerQuery: fc.Arbitrary<TimerQueryChoice> = fc.record({
  idempotencyKey: fc.constantFrom("used" as const, "used" as const, "owner's" as const, "fresh" as const, undefined),
  entryId: fc.constantFrom("own" as const, "owner's" as const, "unknown" as const, undefined),
  projectId: fc.constantFrom<TimerQueryChoice["projectId"]>("website", "app", "support", "foreign", "unknown", undefined)
})

const probe: fc.Arbitrary<Probe> = fc.record({
  key: keyKind,
  edge: fc.integer({ min: 0, max: 2 }).map((n) => n === 0),
  order: fc.nat(orders.length - 1),
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
  timer: timerQuery,
  expected: fc.oneof({ arbitrary: fc.constant("the same" as const), weight: 3 }, timerQuery)
})

const history = fc.record({
  // Few distinct start times: many ties, which only the id orders.
  entries: fc.array(
    fc.record({ hoursAgo: fc.integer({ min: 1, max: 6 }), project, voided: fc.boolean() }),
    { maxLength: 14 }
  ),
  /** The member's timer, started through the operations (with an idempotency record), or none. */
  running: fc.option(project, { nil: undefined }),
  /** Whether the owner (another user of the workspace) has a timer too, also started through the operations. */
  ownerRunning: fc.boolean(),
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

/** @since 0.1.0 */
export const register = (h: Harness, options: { readonly runs: number }): void => {
  h.check(
    "a read made along with authentication, or inside it, answers what the ordinary read answers, and the request is counted exactly as by authenticate alone",
    (stack) =>
      Effect.gen(function*() {
        const store = stack.store
        if (store === undefined) return yield* Effect.dieMessage("the stack declares `store` but exposes none")
        yield* property(history, options.runs, (value) => lawsHold(stack, store, value))
      }),
    300_000
  )
  h.check(
    "a timer transaction whose body fails after writing stores nothing, entered alone or with authentication",
    (stack) =>
      stack.store === undefined
        ? Effect.dieMessage("the stack declares `store` but exposes none")
        : failedBodyStoresNothing(stack, stack.store)
  )
}

/**
 * A timer transaction stores its writes only when its body succeeds: a body that writes (a new active entry and its
 * idempotency record) and then fails leaves nothing behind, entered with `withTimerTransaction` or with
 * `authenticateInTimerTransaction`. (The core writes last, so its requests never show this: only the port does.)
 */
const failedBodyStoresNothing = (stack: Stack, store: StoreService): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const world = yield* World.seed(stack)
    const now = yield* stack.clock.now
    const scope = { workspaceId: world.workspace, userId: world.users.member }
    const idempotencyKey = World.newId()
    const query: Store.TimerQuery = { idempotencyKey, projectId: world.projects.website }
    const writeThenFail = (tx: Store.TimerTransaction): Effect.Effect<never, unknown> =>
      Effect.zipRight(
        tx.write({
          insert: {
            id: World.newId(),
            workspaceId: scope.workspaceId,
            userId: scope.userId,
            projectId: world.projects.website,
            status: "active",
            billable: true,
            note: null,
            startedAt: now,
            endedAt: null,
            payRateCents: 1
          },
          idempotency: { key: idempotencyKey, fingerprint: "f", createdAt: now, response: { status: 201, body: "{}" } }
        }),
        Effect.fail("the body failed after writing")
      )
    const nothingStored = (way: string) =>
      Effect.gen(function*() {
        const snapshot = yield* store.withTimerTransaction(scope, (tx) => tx.read(query))
        expect(plainSnapshot(snapshot).running, `${way}: no active entry`).toBeNull()
        expect(plainSnapshot(snapshot).idempotency, `${way}: no idempotency record`).toBeNull()
        expect(Option.isNone(yield* store.findActiveEntry(scope)), `${way}: findActiveEntry finds none`).toBe(true)
      })
    expect(yield* Effect.flip(store.withTimerTransaction(scope, writeThenFail))).toBe("the body failed after writing")
    yield* nothingStored("withTimerTransaction")
    const combined = store.authenticateInTimerTransaction
    if (combined === undefined) return
    const failed = yield* Effect.flip(combined(
      { digest: digestOf(world.keys.member), now, policy: policyFor(false, 0) },
      query,
      (found, tx): Effect.Effect<never, unknown> =>
        Option.isSome(found) && found.value.accepted ? writeThenFail(tx) : Effect.fail("refused")
    ))
    expect(failed).toBe("the body failed after writing")
    yield* nothingStored("authenticateInTimerTransaction")
  })

const lawsHold = (
  stack: Stack,
  store: StoreService,
  { entries, ownerRunning, probes, running }: typeof history extends fc.Arbitrary<infer A> ? A : never
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
    // The requests each key has had counted in the window (all at `now`: the clock does not move here).
    const counted = new Map<KeyKind, number>()
    const start = (key: "member" | "owner", projectId: string, idempotencyKey: string) =>
      Effect.gen(function*() {
        expectSuccess(
          yield* stack.call("startTimer", as(world.keys[key], { idempotencyKey, body: json({ projectId }) })),
          "startTimer"
        )
        counted.set(key, (counted.get(key) ?? 0) + 1)
      })
    // Timers started through the operations, each leaving an idempotency record: the member's, and another user's
    // (a read that ignores the user would find the one for the other).
    const idempotencyKeys = { "used": World.newId(), "owner's": World.newId() }
    if (running !== undefined) yield* start("member", projectIds[running], idempotencyKeys.used)
    if (ownerRunning) yield* start("owner", world.projects.website, idempotencyKeys["owner's"])
    const timerQuery = (choice: TimerQueryChoice): Store.TimerQuery => ({
      idempotencyKey: choice.idempotencyKey === undefined
        ? undefined
        : choice.idempotencyKey === "fresh"
        ? World.newId()
        : idempotencyKeys[choice.idempotencyKey],
      entryId: choice.entryId === undefined
        ? undefined
        : choice.entryId === "own"
        ? own[0]?.id ?? World.newId()
        : choice.entryId === "owner's"
        ? others[1]!.id
        : World.newId(),
      projectId: choice.projectId === undefined ? undefined : projectIds[choice.projectId]
    })
    for (const p of probes) {
      const digest = digestOf(p.key === "unknown" ? World.newKey() : world.keys[p.key])
      const authenticates = (accepting as ReadonlyArray<KeyKind>).includes(p.key)
      const policy = policyFor(p.edge, counted.get(p.key) ?? 0)
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
      const query = timerQuery(p.timer)
      const expected = p.expected === "the same" ? { ...query } : timerQuery(p.expected)
      const described = `${JSON.stringify(p)} → ${JSON.stringify(along)}; timer query ${JSON.stringify(query)}, expected ${
        JSON.stringify(expected)
      }`
      const combined = store.authenticateInTimerTransaction !== undefined
      const ways = orders[p.order]!.filter((way) => way !== "inside" || combined)
      const found: Partial<Record<Way, Option.Option<Store.Authenticated>>> = {}
      let inside: Option.Option<ReturnType<typeof plainSnapshot>> = Option.none()
      for (const [index, way] of ways.entries()) {
        if (way === "alone") {
          found.alone = yield* store.authenticate(digest, now, policy)
        } else if (way === "along") {
          found.along = yield* store.authenticate(digest, now, policy, along)
        } else {
          const answer = yield* store.authenticateInTimerTransaction!(
            { digest, now, policy },
            expected,
            (key, tx) =>
              Effect.map(
                // The body must not use `tx` for a refused key.
                Option.isSome(key) && key.value.accepted
                  ? Effect.asSome(Effect.map(tx.read(query), plainSnapshot))
                  : Effect.succeedNone,
                (snapshot) => ({ key, snapshot })
              )
          )
          found.inside = answer.key
          inside = answer.snapshot
        }
        const answer = found[way]!
        // Found exactly when the key exists; accepted exactly when it authenticates and its window has room: always
        // under the roomy limit, only for the first of the three at the edge.
        expect(Option.isSome(answer), `${way}: found exactly a stored key: ${described}`).toBe(p.key !== "unknown")
        const accepted = authenticates && (!p.edge || index === 0)
        expect(Option.getOrNull(answer)?.accepted, `${way}: accepted and counted exactly once: ${described}`)
          .toBe(p.key === "unknown" ? undefined : accepted)
        if (accepted) counted.set(p.key, (counted.get(p.key) ?? 0) + 1)
      }
      const alone = found.alone!
      if (Option.isNone(alone)) continue
      const scope = { workspaceId: alone.value.key.workspaceId, userId: alone.value.key.userId }
      for (const way of ["along", "inside"] as const) {
        const other = found[way]
        if (other !== undefined) {
          expect(Option.getOrNull(other)?.key, `${way}: the same key as alone: ${described}`).toEqual(alone.value.key)
        }
      }
      const read = Option.getOrUndefined(found.along!)
      if (read?.activeEntry !== undefined) {
        expect(Option.getOrNull(read.activeEntry), `the active entry read along: ${described}`)
          .toEqual(Option.getOrNull(yield* store.findActiveEntry(scope)))
      }
      if (read?.entries !== undefined && along._tag === "EntriesPage") {
        expect(read.entries, `the page read along: ${described}`).toEqual(yield* store.listEntries(scope, along.query))
      }
      if (Option.isSome(inside)) {
        const ordinary = yield* store.withTimerTransaction(scope, (tx) => Effect.map(tx.read(query), plainSnapshot))
        expect(inside.value, `the timer read inside the authentication: ${described}`).toEqual(ordinary)
      }
    }
  })

const positionOf = (row: { readonly id: string; readonly startedAt: string }) => ({
  startedAt: Date.parse(row.startedAt),
  id: row.id
})
