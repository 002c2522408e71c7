/**
 * The reference model of the spec: plain maps of what exists and a few functions deciding each answer. It is written
 * from the spec and the decisions page, independently of the core, and kept much simpler than any store: no ports, no
 * cursors (it compares whole walks), no concurrency.
 *
 * @since 0.1.0
 */

const DAY = 86_400_000

/** @since 0.1.0 */
export interface ModelKey {
  readonly name: string
  readonly id: string
  readonly key: string
  readonly userId: string
  readonly workspaceId: string
  readonly scopes: ReadonlyArray<string>
  readonly createdAt: number
  revokedAt: number | null
}

/** @since 0.1.0 */
export interface ModelEntry {
  readonly id: string
  readonly workspaceId: string
  readonly userId: string
  readonly projectId: string
  status: "active" | "completed" | "voided"
  readonly billable: boolean
  readonly note: string | null
  startedAt: number
  endedAt: number | null
  readonly payRateCents: number
}

/** @since 0.1.0 */
export interface ModelClient {
  readonly id: string
  readonly workspaceId: string
  readonly name: string
  readonly color: string
  archived: boolean
}

/** @since 0.1.0 */
export interface ModelProject {
  readonly id: string
  readonly workspaceId: string
  readonly clientId: string
  readonly name: string
  readonly color: string
  archived: boolean
}

/**
 * Everything the model knows. Commands read and change it.
 *
 * @since 0.1.0
 */
export interface Model {
  now: number
  readonly memberships: Map<string, { readonly role: string; readonly payRateCents: number }>
  readonly clients: Map<string, ModelClient>
  readonly projects: Map<string, ModelProject>
  readonly assignments: Map<string, number>
  readonly keys: Array<ModelKey>
  readonly entries: Map<string, ModelEntry>
  readonly idempotency: Map<string, { readonly fingerprint: string; readonly createdAt: number; readonly text: string }>
  readonly hits: Map<string, Array<number>>
  /** Ids the system handed out, to check that new ones are new. */
  readonly seenIds: Set<string>
  readonly users: ReadonlyArray<string>
  readonly workspaces: ReadonlyArray<string>
}

/** @since 0.1.0 */
export const pair = (a: string, b: string): string => `${a}/${b}`

/** @since 0.1.0 */
export const iso = (millis: number): string => new Date(millis).toISOString()

/** Canonical JSON: sorted keys. Written here again on purpose: the model shares no code with the core. */
export const canonical = (value: unknown): string =>
  value === null || typeof value !== "object"
    ? JSON.stringify(value)
    : Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`

/** The outcome the model expects: an error code, or a success to check. */
export type Expected =
  | { readonly _tag: "Error"; readonly code: string }
  | { readonly _tag: "Ok" }

const error = (code: string): Expected => ({ _tag: "Error", code })

/**
 * Checks 2 to 4 of the order for the key named `keyName` and counts the request when it is accepted by the limit.
 *
 * @since 0.1.0
 */
export const authorize = (model: Model, key: ModelKey | undefined, scope: string): Expected => {
  if (key === undefined) return error("INVALID_API_KEY")
  if (key.revokedAt !== null) return error("INVALID_API_KEY")
  if (model.now >= key.createdAt + 365 * DAY) return error("INVALID_API_KEY")
  if (!model.memberships.has(pair(key.workspaceId, key.userId))) return error("INVALID_API_KEY")
  const recent = (model.hits.get(key.id) ?? []).filter((at) => at > model.now - 60_000)
  if (recent.length >= 120) {
    model.hits.set(key.id, recent)
    return error("API_KEY_RATE_LIMITED")
  }
  model.hits.set(key.id, [...recent, model.now])
  if (!key.scopes.includes(scope)) return error("INSUFFICIENT_SCOPE")
  return { _tag: "Ok" }
}

const byName = (a: { name: string; id: string }, b: { name: string; id: string }) => {
  const an = a.name.toLowerCase(), bn = b.name.toLowerCase()
  return an < bn ? -1 : an > bn ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** @since 0.1.0 */
export const role = (model: Model, key: ModelKey): string =>
  model.memberships.get(pair(key.workspaceId, key.userId))?.role ?? "none"

const isManager = (r: string) => r === "owner" || r === "admin"

/** listClients' body. @since 0.1.0 */
export const clientsOf = (model: Model, key: ModelKey) => {
  const manager = isManager(role(model, key))
  const clients = [...model.clients.values()].filter((c) =>
    c.workspaceId === key.workspaceId && !c.archived &&
    (manager || [...model.projects.values()].some((p) =>
      p.clientId === c.id && !p.archived && model.assignments.has(pair(p.id, key.userId))
    ))
  )
  return {
    clients: clients.sort(byName).map((c) => ({ id: c.id, name: c.name, color: c.color })),
    canCreateProjects: manager && key.scopes.includes("projects:write")
  }
}

/** listProjects' body. @since 0.1.0 */
export const projectsOf = (model: Model, key: ModelKey, clientId: string) => {
  const client = model.clients.get(clientId)
  const projects = client === undefined || client.archived || client.workspaceId !== key.workspaceId
    ? []
    : [...model.projects.values()].filter((p) =>
      p.clientId === clientId && !p.archived && model.assignments.has(pair(p.id, key.userId))
    )
  return { projects: projects.sort(byName).map((p) => ({ id: p.id, clientId: p.clientId, name: p.name, color: p.color })) }
}

/** Whether a project is ready for tracking by the key's user. @since 0.1.0 */
export const trackable = (model: Model, key: ModelKey, projectId: string): boolean => {
  const project = model.projects.get(projectId)
  const client = project === undefined ? undefined : model.clients.get(project.clientId)
  return project !== undefined && client !== undefined && project.workspaceId === key.workspaceId &&
    !project.archived && !client.archived && model.assignments.has(pair(project.id, key.userId))
}

/** The key user's active entry in the key's workspace. @since 0.1.0 */
export const activeOf = (model: Model, key: { readonly workspaceId: string; readonly userId: string }) =>
  [...model.entries.values()].find((e) =>
    e.workspaceId === key.workspaceId && e.userId === key.userId && e.status === "active"
  )

const seconds = (from: number, to: number) => Math.min(2147483647, Math.max(0, Math.floor((to - from) / 1000)))

const dollars = (rate: number, secs: number) => {
  const cents = (2n * BigInt(rate) * BigInt(secs) + 3600n) / 7200n
  return `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`
}

const names = (model: Model, entry: ModelEntry) => {
  const project = model.projects.get(entry.projectId)
  const client = project === undefined ? undefined : model.clients.get(project.clientId)
  return {
    clientId: client?.id,
    clientName: client?.name,
    projectId: entry.projectId,
    projectName: project?.name,
    color: project?.color
  }
}

/** The Timer resource of an active entry now. @since 0.1.0 */
export const timerOf = (model: Model, entry: ModelEntry) => ({
  id: entry.id,
  ...names(model, entry),
  billable: entry.billable,
  note: entry.note,
  startedAt: iso(entry.startedAt),
  serverNow: iso(model.now),
  elapsedSeconds: seconds(entry.startedAt, model.now),
  payRateCents: entry.payRateCents,
  currency: "USD"
})

/** The Time entry resource. @since 0.1.0 */
export const entryOf = (model: Model, entry: ModelEntry) => {
  const ended = entry.status === "active" ? null : entry.endedAt
  const duration = ended === null ? null : seconds(entry.startedAt, ended)
  return {
    id: entry.id,
    ...names(model, entry),
    status: entry.status,
    billable: entry.billable,
    note: entry.note,
    startedAt: iso(entry.startedAt),
    endedAt: ended === null ? null : iso(ended),
    durationSeconds: duration,
    payRateCents: entry.payRateCents,
    earnings: entry.status !== "completed" || duration === null
      ? null
      : entry.billable ? dollars(entry.payRateCents, duration) : "0.00",
    currency: "USD"
  }
}

/** The key user's history in the key's workspace, newest first. @since 0.1.0 */
export const historyOf = (model: Model, key: ModelKey, projectId: string | null) =>
  [...model.entries.values()]
    .filter((e) => e.workspaceId === key.workspaceId && e.userId === key.userId)
    .filter((e) => projectId === null || e.projectId === projectId)
    .sort((a, b) => b.startedAt - a.startedAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))

/** The idempotency record usable at now, if any. @since 0.1.0 */
export const storedResponse = (model: Model, key: ModelKey, idempotencyKey: string) => {
  const record = model.idempotency.get(`${pair(key.workspaceId, key.userId)}/${idempotencyKey.trim()}`)
  return record !== undefined && model.now < record.createdAt + DAY ? record : undefined
}

/** Remembers a successful timer mutation's response. @since 0.1.0 */
export const remember = (model: Model, key: ModelKey, idempotencyKey: string, fingerprint: string, text: string) => {
  model.idempotency.set(`${pair(key.workspaceId, key.userId)}/${idempotencyKey.trim()}`, {
    fingerprint,
    createdAt: model.now,
    text
  })
}
