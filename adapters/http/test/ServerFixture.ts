/**
 * The data every HTTP test starts from (loaded with the core's `Fixture.load`): two workspaces, every role, clients
 * and projects in each state, keys in each state, and a member's history.
 */

/** A UUIDv7-shaped id, lowercase, numbered. */
const id = (n: number): string => `01900000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`

export const ids = {
  acme: id(1),
  other: id(2),
  olivia: id(10), // owner of Acme
  adam: id(11), // admin of Acme
  mia: id(12), // member of Acme
  rex: id(13), // was a member of Acme: has a key, no membership
  oscar: id(14), // owner of Other
  globex: id(20), // Acme, active, projects assigned to Mia
  initech: id(21), // Acme, active, only a project assigned to Adam
  umbrella: id(22), // Acme, archived
  hooli: id(23), // Acme, active, no projects at all
  otherClient: id(24), // Other workspace
  website: id(30), // Globex, assigned to Olivia (6000) and Mia (7500), color #0A0B0C
  archivedProject: id(31), // Globex, archived, assigned to Mia
  backend: id(32), // Initech, assigned to Adam
  legacy: id(33), // Umbrella (archived client), assigned to Mia
  apps: id(34), // Globex, not assigned to Mia, assigned to Olivia
  mobile: id(35), // Globex, assigned to Mia without a rate (membership default 5000), default color
  otherProject: id(36), // Other workspace, assigned to Oscar
  completed: id(40), // Mia's completed entry on Website, 90 minutes, billable, 7499 cents an hour
  voided: id(41), // Mia's voided entry
  oliviaEntry: id(42), // Olivia's completed entry
  unbillable: id(43) // Mia's completed, not billable
} as const

export const keys = {
  owner: "stint_ownerKey0000000000000001",
  admin: "stint_adminKey0000000000000001",
  member: "stint_memberKey000000000000001",
  removed: "stint_removedKey00000000000001",
  revoked: "stint_revokedKey00000000000001",
  expired: "stint_expiredKey00000000000001",
  /** Olivia's key from before `projects:write` existed. */
  legacy: "stint_legacyKey000000000000001",
  /** A verified key with no scope at all. */
  noScope: "stint_noScopeKey00000000000001",
  other: "stint_otherKey0000000000000001",
  /** Mia's second key, for tests that exhaust a rate limit. */
  member2: "stint_memberKey000000000000002"
} as const

const DAY = 24 * 60 * 60 * 1000
const ago = (days: number): string => new Date(Date.now() - days * DAY).toISOString()

const history = Array.from({ length: 24 }, (_, i) => ({
  id: id(100 + i),
  userId: ids.mia,
  workspaceId: ids.acme,
  projectId: i % 3 === 0 ? ids.archivedProject : ids.website,
  status: "completed" as const,
  billable: true,
  note: `entry ${i}`,
  startedAt: `2026-03-${String(1 + i).padStart(2, "0")}T09:00:00Z`,
  endedAt: `2026-03-${String(1 + i).padStart(2, "0")}T10:00:00Z`
}))

export const fixture = {
  workspaces: [{ id: ids.acme, name: "Acme" }, { id: ids.other, name: "Other" }],
  users: [
    { id: ids.olivia, name: "Olivia", email: "olivia@example.com" },
    { id: ids.adam, name: "Adam", email: "adam@example.com" },
    { id: ids.mia, name: "Mia", email: "mia@example.com" },
    { id: ids.rex, name: "Rex", email: "rex@example.com" },
    { id: ids.oscar, name: "Oscar", email: "oscar@example.com" }
  ],
  memberships: [
    { workspaceId: ids.acme, userId: ids.olivia, role: "owner", payRateCents: 6000 },
    { workspaceId: ids.acme, userId: ids.adam, role: "admin" },
    { workspaceId: ids.acme, userId: ids.mia, role: "member", payRateCents: 5000 },
    { workspaceId: ids.other, userId: ids.oscar, role: "owner" }
  ],
  clients: [
    { id: ids.globex, workspaceId: ids.acme, name: "globex", color: "#123abc" },
    { id: ids.initech, workspaceId: ids.acme, name: "Initech" },
    { id: ids.umbrella, workspaceId: ids.acme, name: "Umbrella", archived: true },
    { id: ids.hooli, workspaceId: ids.acme, name: "Hooli" },
    { id: ids.otherClient, workspaceId: ids.other, name: "Elsewhere" }
  ],
  projects: [
    { id: ids.website, clientId: ids.globex, name: "Website", color: "#0A0B0C" },
    { id: ids.archivedProject, clientId: ids.globex, name: "Old site", archived: true },
    { id: ids.backend, clientId: ids.initech, name: "Backend" },
    { id: ids.legacy, clientId: ids.umbrella, name: "Legacy" },
    { id: ids.apps, clientId: ids.globex, name: "apps" },
    { id: ids.mobile, clientId: ids.globex, name: "Mobile", color: null },
    { id: ids.otherProject, clientId: ids.otherClient, name: "Elsewhere project" }
  ],
  assignments: [
    { projectId: ids.website, userId: ids.olivia },
    { projectId: ids.website, userId: ids.mia, payRateCents: 7500 },
    { projectId: ids.archivedProject, userId: ids.mia },
    { projectId: ids.backend, userId: ids.adam },
    { projectId: ids.legacy, userId: ids.mia },
    { projectId: ids.apps, userId: ids.olivia },
    { projectId: ids.mobile, userId: ids.mia },
    { projectId: ids.otherProject, userId: ids.oscar }
  ],
  apiKeys: [
    { key: keys.owner, userId: ids.olivia, workspaceId: ids.acme },
    { key: keys.admin, userId: ids.adam, workspaceId: ids.acme },
    { key: keys.member, userId: ids.mia, workspaceId: ids.acme, createdAt: ago(364) },
    { key: keys.member2, userId: ids.mia, workspaceId: ids.acme },
    { key: keys.removed, userId: ids.rex, workspaceId: ids.acme },
    { key: keys.revoked, userId: ids.olivia, workspaceId: ids.acme, revoked: true },
    { key: keys.expired, userId: ids.olivia, workspaceId: ids.acme, createdAt: ago(366) },
    {
      key: keys.legacy,
      userId: ids.olivia,
      workspaceId: ids.acme,
      scopes: ["clients:read", "projects:read", "timers:read", "timers:write"]
    },
    { key: keys.noScope, userId: ids.olivia, workspaceId: ids.acme, scopes: [] },
    { key: keys.other, userId: ids.oscar, workspaceId: ids.other }
  ],
  timeEntries: [
    {
      id: ids.completed,
      userId: ids.mia,
      workspaceId: ids.acme,
      projectId: ids.website,
      status: "completed",
      billable: true,
      note: null,
      startedAt: "2026-04-02T09:00:00Z",
      endedAt: "2026-04-02T10:30:00+00:00",
      // 7499 × 5400 / 3600 = 11248.5 cents: half-up to $112.49.
      payRateCents: 7499
    },
    {
      id: ids.voided,
      userId: ids.mia,
      workspaceId: ids.acme,
      projectId: ids.website,
      status: "voided",
      startedAt: "2026-04-01T09:00:00Z",
      endedAt: "2026-04-01T09:10:00Z"
    },
    {
      id: ids.unbillable,
      userId: ids.mia,
      workspaceId: ids.acme,
      projectId: ids.mobile,
      status: "completed",
      billable: false,
      startedAt: "2026-04-03T09:00:00.5Z",
      endedAt: "2026-04-03T09:00:59.9Z"
    },
    {
      id: ids.oliviaEntry,
      userId: ids.olivia,
      workspaceId: ids.acme,
      projectId: ids.website,
      status: "completed",
      startedAt: "2026-04-02T09:00:00Z",
      endedAt: "2026-04-02T10:00:00Z"
    },
    ...history
  ]
}

/** Mia's entries, newest first, as listTimeEntries orders them. */
export const miaEntryIds: ReadonlyArray<string> = [
  ids.unbillable,
  ids.completed,
  ids.voided,
  ...history.map((e) => e.id).reverse()
]
