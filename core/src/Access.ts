/**
 * Who sees what: the visibility of clients and projects by role, "ready for tracking", who may create projects, and
 * the one list order every adapter must produce.
 *
 * @since 0.1.0
 */
import type { ClientRecord, ProjectRecord, TrackingTarget } from "./Records.js"
import type { Role, Scope } from "./Schemas.js"

/** @since 0.1.0 */
export const isManager = (role: Role): boolean => role === "owner" || role === "admin"

/**
 * `canCreateProjects`: the role is owner or admin and the key has `projects:write`.
 *
 * @since 0.1.0
 */
export const canCreateProjects = (role: Role, scopes: ReadonlyArray<Scope>): boolean =>
  isManager(role) && scopes.includes("projects:write")

/**
 * Lists of clients and projects: by name compared case-insensitively (`toLowerCase()`, then plain string order), then
 * by id. The same on every adapter, whatever the database's collation.
 *
 * @since 0.1.0
 */
export const byName = (a: { readonly name: string; readonly id: string }, b: { readonly name: string; readonly id: string }): number => {
  const an = a.name.toLowerCase(), bn = b.name.toLowerCase()
  if (an !== bn) return an < bn ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * The clients a role sees: owners and admins every active client; members those with an assigned unarchived project.
 *
 * @since 0.1.0
 */
export const visibleClients = (role: Role, clients: ReadonlyArray<ClientRecord>): ReadonlyArray<ClientRecord> =>
  clients.filter((client) => isManager(role) || client.hasAssignedProject).sort(byName)

/**
 * Ready for tracking: the project and its client are not archived and the user is assigned to the project.
 *
 * @since 0.1.0
 */
export const isTrackable = (target: TrackingTarget): boolean =>
  !target.archived && !target.clientArchived && target.assignedRateCents !== null

/**
 * listProjects: the user's assigned projects of the client that are unarchived, under an unarchived client.
 *
 * @since 0.1.0
 */
export const listableProjects = (projects: ReadonlyArray<ProjectRecord>): ReadonlyArray<ProjectRecord> =>
  projects.filter((project) => !project.archived && !project.clientArchived).sort(byName)
