/**
 * A small world for the example checks: two workspaces, users of every role, clients and projects in every state,
 * assignments with and without explicit rates, and keys of every kind (full, old without `projects:write`, read-only,
 * expired, revoked, of a removed member, of another workspace). Every call makes fresh ids, so examples sharing one
 * stack never see each other.
 *
 * @since 0.1.0
 */
import { randomBytes, randomUUID } from "node:crypto"
import * as Effect from "effect/Effect"
import type { Stack } from "./Stack.js"

/** @since 0.1.0 */
export const newId = (): string => randomUUID()

/** @since 0.1.0 */
export const newKey = (): string => `stint_${randomBytes(32).toString("base64url")}`

/** @since 0.1.0 */
export const bearer = (key: string): string => `Bearer ${key}`

const DAY = 24 * 60 * 60 * 1000

/**
 * The ids and plaintext keys of a seeded world.
 *
 * @since 0.1.0
 */
export interface World {
  readonly workspace: string
  readonly otherWorkspace: string
  readonly users: { readonly owner: string; readonly admin: string; readonly member: string; readonly removed: string }
  readonly clients: {
    /** "Globex": the member's website and app projects, an archived project and one not assigned to the member. */
    readonly globex: string
    /** "acme corp": lower-case name, the member's support project. */
    readonly acme: string
    /** "Zeta": archived, with an unarchived project assigned to the member. */
    readonly archived: string
    /** "Beta": active with no projects. */
    readonly empty: string
    /** A client of the other workspace. */
    readonly foreign: string
  }
  readonly projects: {
    /** Globex / "Website", color `#0A0B0C`; member at 7500, owner at 9000. */
    readonly website: string
    /** Globex / "app"; member without an explicit rate (membership default 3000). */
    readonly app: string
    /** Globex / "Legacy", archived, assigned to the member. */
    readonly archived: string
    /** Globex / "Internal", not assigned to the member. */
    readonly unassigned: string
    /** acme corp / "Support"; member at 4500. */
    readonly support: string
    /** Zeta (archived client) / "Old"; assigned to the member. */
    readonly onArchivedClient: string
    /** Other workspace / "Elsewhere"; the member is assigned there too. */
    readonly foreign: string
  }
  readonly keys: {
    readonly owner: string
    readonly admin: string
    readonly member: string
    /** The member's second key (another device), as able as `member`. */
    readonly memberSecond: string
    /** The owner's key from before `projects:write` existed. */
    readonly ownerOld: string
    /** The member's key with only `clients:read`. */
    readonly readOnly: string
    readonly expired: string
    /** Created exactly 365 days minus one millisecond ago: still valid for one more millisecond. */
    readonly nearlyExpired: string
    readonly revoked: string
    /** The removed user's key: they are no longer a member. */
    readonly removed: string
    /** The member's key for the other workspace. */
    readonly memberElsewhere: string
  }
  readonly keyIds: { readonly [K in keyof World["keys"]]: string }
}

/**
 * The fixture of a fresh world at `now`, and its handles.
 *
 * @since 0.1.0
 */
export const make = (now: number): { readonly fixture: unknown; readonly world: World } => {
  const ws = newId(), other = newId()
  const owner = newId(), admin = newId(), member = newId(), removed = newId()
  const globex = newId(), acme = newId(), archivedClient = newId(), empty = newId(), foreignClient = newId()
  const website = newId(), app = newId(), legacy = newId(), internal = newId(), support = newId(), old = newId()
  const elsewhere = newId()
  const keys = {
    owner: newKey(),
    admin: newKey(),
    member: newKey(),
    memberSecond: newKey(),
    ownerOld: newKey(),
    readOnly: newKey(),
    expired: newKey(),
    nearlyExpired: newKey(),
    revoked: newKey(),
    removed: newKey(),
    memberElsewhere: newKey()
  }
  const keyIds = Object.fromEntries(Object.keys(keys).map((name) => [name, newId()])) as World["keyIds"]
  const iso = (millis: number) => new Date(millis).toISOString()
  const key = (name: keyof World["keys"], userId: string, workspaceId: string, extra: object = {}) => ({
    id: keyIds[name],
    key: keys[name],
    userId,
    workspaceId,
    createdAt: iso(now - DAY),
    ...extra
  })
  const fixture = {
    workspaces: [{ id: ws, name: "Acme" }, { id: other, name: "Other" }],
    users: [
      { id: owner, name: "Olive", email: "olive@example.com" },
      { id: admin, name: "Adam", email: "adam@example.com" },
      { id: member, name: "Mia", email: "mia@example.com" },
      { id: removed, name: "Rex", email: "rex@example.com" }
    ],
    memberships: [
      { workspaceId: ws, userId: owner, role: "owner", payRateCents: 5000 },
      { workspaceId: ws, userId: admin, role: "admin", payRateCents: 4000 },
      { workspaceId: ws, userId: member, role: "member", payRateCents: 3000 },
      { workspaceId: other, userId: member, role: "member", payRateCents: 1000 },
      // Rex left Acme (his Acme key, `removed`, must be refused) but is still a member of Other: a store that finds a
      // key's membership by user alone would let that key in.
      { workspaceId: other, userId: removed, role: "owner", payRateCents: 2000 }
    ],
    clients: [
      { id: globex, workspaceId: ws, name: "Globex", color: "#123abc" },
      { id: acme, workspaceId: ws, name: "acme corp" },
      { id: archivedClient, workspaceId: ws, name: "Zeta", archived: true },
      { id: empty, workspaceId: ws, name: "Beta", color: "#FFFFFF" },
      { id: foreignClient, workspaceId: other, name: "Foreign" }
    ],
    projects: [
      { id: website, clientId: globex, name: "Website", color: "#0A0B0C" },
      { id: app, clientId: globex, name: "app", color: null },
      { id: legacy, clientId: globex, name: "Legacy", archived: true },
      { id: internal, clientId: globex, name: "Internal" },
      { id: support, clientId: acme, name: "Support", color: "#00ff00" },
      { id: old, clientId: archivedClient, name: "Old" },
      { id: elsewhere, clientId: foreignClient, name: "Elsewhere" }
    ],
    assignments: [
      { projectId: website, userId: member, payRateCents: 7500 },
      { projectId: app, userId: member },
      { projectId: legacy, userId: member, payRateCents: 100 },
      { projectId: support, userId: member, payRateCents: 4500 },
      { projectId: old, userId: member, payRateCents: 200 },
      { projectId: elsewhere, userId: member, payRateCents: 999 },
      { projectId: website, userId: owner, payRateCents: 9000 },
      { projectId: internal, userId: owner }
    ],
    apiKeys: [
      key("owner", owner, ws),
      key("admin", admin, ws),
      key("member", member, ws),
      key("memberSecond", member, ws),
      key("ownerOld", owner, ws, { scopes: ["clients:read", "projects:read", "timers:read", "timers:write"] }),
      key("readOnly", member, ws, { scopes: ["clients:read"] }),
      key("expired", member, ws, { createdAt: iso(now - 365 * DAY) }),
      key("nearlyExpired", member, ws, { createdAt: iso(now - 365 * DAY + 1) }),
      key("revoked", member, ws, { revoked: true }),
      key("removed", removed, ws),
      key("memberElsewhere", member, other)
    ]
  }
  const world: World = {
    workspace: ws,
    otherWorkspace: other,
    users: { owner, admin, member, removed },
    clients: { globex, acme, archived: archivedClient, empty, foreign: foreignClient },
    projects: { website, app, archived: legacy, unassigned: internal, support, onArchivedClient: old, foreign: elsewhere },
    keys,
    keyIds
  }
  return { fixture, world }
}

/**
 * Seeds a fresh world into the stack at the stack's current time.
 *
 * @since 0.1.0
 */
export const seed = (stack: Stack): Effect.Effect<World> =>
  Effect.gen(function*() {
    const { fixture, world } = make(yield* stack.clock.now)
    yield* Effect.orDie(stack.seed(fixture))
    return world
  })
