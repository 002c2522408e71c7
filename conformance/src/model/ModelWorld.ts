/**
 * The world every model-based run starts from (fresh ids each run, so runs sharing a stack never meet), and the model
 * built from that same fixture.
 *
 * @since 0.1.0
 */
import type * as M from "../Model.js"
import type { Model, ModelKey } from "../Model.js"
import { pair } from "../Model.js"
import { newId, newKey } from "../World.js"

const DAY = 86_400_000
const ALL = ["clients:read", "projects:read", "projects:write", "timers:read", "timers:write"]

/**
 * A fresh world at `now`: two workspaces, an owner and two members, four clients, six projects, keys of each user,
 * a read-only key and a key that expires two hours into the run.
 *
 * @since 0.1.0
 */
export const make = (now: number): { readonly fixture: unknown; readonly model: Model } => {
  const [a, b] = [newId(), newId()]
  const [owner, member, other] = [newId(), newId(), newId()]
  const clients = [
    { id: newId(), workspaceId: a, name: "Globex", color: "#123abc", archived: false },
    { id: newId(), workspaceId: a, name: "acme", color: "#ff5c35", archived: false },
    { id: newId(), workspaceId: a, name: "Zed", color: "#ABCDEF", archived: false },
    { id: newId(), workspaceId: b, name: "Far", color: "#000000", archived: false }
  ]
  const [c0, c1, c2, c3] = clients.map((c) => c.id) as [string, string, string, string]
  const projects = [
    { id: newId(), workspaceId: a, clientId: c0, name: "Website", color: "#0A0B0C", archived: false },
    { id: newId(), workspaceId: a, clientId: c0, name: "app", color: "#ff5c35", archived: false },
    { id: newId(), workspaceId: a, clientId: c1, name: "Support", color: "#00ff00", archived: false },
    { id: newId(), workspaceId: a, clientId: c2, name: "Zeta", color: "#ff5c35", archived: false },
    { id: newId(), workspaceId: a, clientId: c0, name: "website", color: "#ff5c35", archived: true },
    { id: newId(), workspaceId: b, clientId: c3, name: "Away", color: "#ff5c35", archived: false }
  ]
  const [p0, p1, p2, p3, p4, p5] = projects.map((p) => p.id) as [string, string, string, string, string, string]
  const memberships = [
    { workspaceId: a, userId: owner, role: "owner", payRateCents: 5000 },
    { workspaceId: a, userId: member, role: "member", payRateCents: 3000 },
    { workspaceId: a, userId: other, role: "admin", payRateCents: 0 },
    { workspaceId: b, userId: member, role: "member", payRateCents: 1000 }
  ]
  const assignments: Array<{ projectId: string; userId: string; payRateCents: number }> = [
    { projectId: p0, userId: member, payRateCents: 7500 },
    { projectId: p1, userId: member, payRateCents: 3000 },
    { projectId: p2, userId: member, payRateCents: 2147483647 },
    { projectId: p4, userId: member, payRateCents: 10 },
    { projectId: p5, userId: member, payRateCents: 999 },
    { projectId: p0, userId: owner, payRateCents: 9000 },
    { projectId: p3, userId: owner, payRateCents: 5000 },
    { projectId: p2, userId: other, payRateCents: 1 }
  ]
  const key = (name: string, userId: string, workspaceId: string, scopes = ALL, createdAt = now - DAY): ModelKey => ({
    name,
    id: newId(),
    key: newKey(),
    userId,
    workspaceId,
    scopes,
    createdAt,
    revokedAt: null
  })
  const keys = [
    key("owner", owner, a),
    key("member", member, a),
    key("admin", other, a),
    key("memberB", member, b),
    key("readOnly", member, a, ["clients:read", "timers:read"]),
    key("aging", member, a, ALL, now - 365 * DAY + 2 * 3_600_000)
  ]
  // A history for the member: ties on startedAt (ids decide), a voided entry, an unbillable one, durations that
  // round differently (half cents, fractions of seconds), on archived and unarchived projects.
  const base = now - 30 * DAY
  const history: Array<M.ModelEntry> = [
    [p0, base, base + 1_799_500, "completed", true],
    [p0, base, base + 59_999, "completed", true],
    [p2, base, base + 1_000, "completed", true],
    [p1, base - 1, base + 5_400_000, "completed", false],
    [p4, base + 10, base + 3_600_001, "voided", true],
    [p2, base + 20, base + 123_456, "completed", true],
    // 201 cents for half an hour: exactly 100.5 cents.
    [p0, base + 30, base + 1_800_030, "completed", true, 201]
  ].map(([projectId, startedAt, endedAt, status, billable, rate]) => ({
    id: newId(),
    workspaceId: a,
    userId: member,
    projectId: projectId as string,
    status: status as M.ModelEntry["status"],
    billable: billable as boolean,
    note: null,
    startedAt: startedAt as number,
    endedAt: endedAt as number,
    payRateCents: (rate as number | undefined) ??
      assignments.find((x) => x.projectId === projectId && x.userId === member)?.payRateCents ?? 0
  }))
  const fixture = {
    workspaces: [{ id: a, name: "A" }, { id: b, name: "B" }],
    users: [owner, member, other].map((id, i) => ({ id, name: `User ${i}`, email: `u${i}@example.com` })),
    memberships,
    clients: clients.map(({ archived, color, id, name, workspaceId }) => ({ id, workspaceId, name, color, archived })),
    projects: projects.map(({ archived, clientId, color, id, name }) => ({ id, clientId, name, color, archived })),
    assignments,
    apiKeys: keys.map((k) => ({
      id: k.id,
      key: k.key,
      userId: k.userId,
      workspaceId: k.workspaceId,
      scopes: k.scopes,
      createdAt: new Date(k.createdAt).toISOString()
    })),
    timeEntries: history.map((e) => ({
      id: e.id,
      userId: e.userId,
      workspaceId: e.workspaceId,
      projectId: e.projectId,
      status: e.status,
      billable: e.billable,
      note: e.note,
      startedAt: new Date(e.startedAt).toISOString(),
      endedAt: new Date(e.endedAt ?? 0).toISOString(),
      payRateCents: e.payRateCents
    }))
  }
  const model: Model = {
    now,
    memberships: new Map(memberships.map((m) => [pair(m.workspaceId, m.userId), { role: m.role, payRateCents: m.payRateCents }])),
    clients: new Map(clients.map((c) => [c.id, { ...c }])),
    projects: new Map(projects.map((p) => [p.id, { ...p }])),
    assignments: new Map(assignments.map((x) => [pair(x.projectId, x.userId), x.payRateCents])),
    keys,
    entries: new Map(history.map((e) => [e.id, e])),
    idempotency: new Map(),
    hits: new Map(),
    seenIds: new Set([...clients, ...projects, ...history].map((x) => x.id)),
    users: [owner, member, other],
    workspaces: [a, b]
  }
  return { fixture, model }
}
