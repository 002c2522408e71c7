/**
 * The data the client's tests start from (`stint seed` format): one workspace, one client with two projects, and
 * users who each own their own key, so that every test works with a user no other test touches. The first users have
 * a history of completed entries, one an hour.
 */

/** A UUIDv7-shaped id, lowercase, numbered. */
const id = (n: number): string => `01920000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`

export const ids = {
  workspace: id(1),
  client: id(2),
  website: id(3),
  backend: id(4),
  user: (n: number) => id(100 + n),
  /** A member (not owner or admin) of the workspace. */
  member: id(99),
  /** User `user`'s entry `n`. */
  entry: (user: number, n: number) => id(100_000 + user * 1000 + n)
} as const

/** The member's key. */
export const memberKey = "stint_clientTestMemberKey"
/** A key of user 0 with the `timers:read` scope only. */
export const readOnlyKey = "stint_clientTestReadOnlyKey"

/** The plaintext key of user `n`. */
export const keyOf = (n: number): string => `stint_clientTestUser${String(n).padStart(3, "0")}Key`

/** When entry `n` started: one an hour from 2026-01-01, so entry 0 is the oldest. */
export const startOf = (n: number): string => new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString()

/**
 * A fixture with `users` users (the first an owner, the others admins), the first `historyUsers` of them with
 * `history` completed entries each.
 */
export const fixture = (users: number, history = 0, historyUsers = 1) => {
  const people = Array.from({ length: users }, (_, n) => n)
  return {
    workspaces: [{ id: ids.workspace, name: "Acme" }],
    users: [
      ...people.map((n) => ({ id: ids.user(n), name: `User ${n}`, email: `user${n}@example.com` })),
      { id: ids.member, name: "Member", email: "member@example.com" }
    ],
    memberships: [
      ...people.map((n) => ({
        workspaceId: ids.workspace,
        userId: ids.user(n),
        role: n === 0 ? "owner" : "admin",
        payRateCents: 6000
      })),
      { workspaceId: ids.workspace, userId: ids.member, role: "member" }
    ],
    clients: [{ id: ids.client, workspaceId: ids.workspace, name: "Globex", color: "#123abc" }],
    projects: [
      { id: ids.website, clientId: ids.client, name: "Website", color: null },
      { id: ids.backend, clientId: ids.client, name: "Backend", color: "#0a0b0c" }
    ],
    assignments: people.flatMap((n) => [
      { projectId: ids.website, userId: ids.user(n) },
      { projectId: ids.backend, userId: ids.user(n) }
    ]),
    apiKeys: [
      ...people.map((n) => ({ key: keyOf(n), userId: ids.user(n), workspaceId: ids.workspace })),
      { key: memberKey, userId: ids.member, workspaceId: ids.workspace },
      { key: readOnlyKey, userId: ids.user(0), workspaceId: ids.workspace, scopes: ["timers:read"] }
    ],
    timeEntries: people.slice(0, historyUsers).flatMap((user) =>
      Array.from({ length: history }, (_, n) => ({
        id: ids.entry(user, n),
        userId: ids.user(user),
        workspaceId: ids.workspace,
        projectId: n % 2 === 0 ? ids.website : ids.backend,
        status: "completed",
        billable: true,
        note: null,
        startedAt: startOf(n),
        endedAt: new Date(Date.parse(startOf(n)) + 1_800_000).toISOString()
      }))
    )
  }
}
