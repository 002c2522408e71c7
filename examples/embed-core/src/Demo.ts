/**
 * The demo data of the embedded server: one workspace with an owner, a client, a project the owner is assigned to,
 * and an API key (generated when the fixture is loaded, printed once).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export const ids = {
  workspace: "0190b5a0-0000-7000-8000-00000000000a",
  user: "0190b5a0-0000-7000-8000-00000000000b",
  client: "0190b5a0-0000-7000-8000-00000000000c",
  project: "0190b5a0-0000-7000-8000-00000000000d"
} as const

/**
 * The fixture, in the `cli-and-fixtures.md` format.
 *
 * @since 0.1.0
 */
export const fixture = {
  workspaces: [{ id: ids.workspace, name: "Demo" }],
  users: [{ id: ids.user, name: "Ada", email: "ada@example.com" }],
  memberships: [{ workspaceId: ids.workspace, userId: ids.user, role: "owner", payRateCents: 5000 }],
  clients: [{ id: ids.client, workspaceId: ids.workspace, name: "Globex" }],
  projects: [{ id: ids.project, clientId: ids.client, name: "Website" }],
  assignments: [{ projectId: ids.project, userId: ids.user, payRateCents: 7500 }],
  apiKeys: [{ userId: ids.user, workspaceId: ids.workspace }]
}
