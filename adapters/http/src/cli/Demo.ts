/**
 * The demo data of `stint serve --demo`: on a database without any workspace, one workspace with its owner, a client
 * and a project assigned to the owner, and a fresh API key shown once with a ready-to-paste `curl` line.
 *
 * @since 0.1.0
 */
import { Admin, type Errors, Fixture, Ids, type Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * What the demo created; `key` is the plaintext, shown once.
 *
 * @since 0.1.0
 */
export interface Demo {
  readonly workspaceId: string
  readonly userId: string
  readonly clientId: string
  readonly projectId: string
  readonly key: string
}

/**
 * The demo workspace's id: the same everywhere, so that two servers starting `--demo` on one empty database at the
 * same moment cannot both create one (the second finds the id taken and creates nothing).
 *
 * @since 0.1.0
 */
export const DEMO_WORKSPACE_ID = "0190a6b2-de70-7000-8000-000000000001"

/**
 * Creates the demo records in one transaction unless the store already holds a workspace.
 *
 * @since 0.1.0
 */
export const ensure: Effect.Effect<Option.Option<Demo>, Errors.AdminError, Store.Store> = Effect.gen(function*() {
  if (yield* Admin.hasWorkspaces) return Option.none()
  const workspaceId = DEMO_WORKSPACE_ID
  const [userId, clientId, projectId] = yield* Effect.all([Ids.next, Ids.next, Ids.next])
  const loaded = yield* Fixture.load({
    workspaces: [{ id: workspaceId, name: "Demo workspace" }],
    users: [{ id: userId, name: "Demo Owner", email: "owner@example.com" }],
    memberships: [{ workspaceId, userId, role: "owner", payRateCents: 5000 }],
    clients: [{ id: clientId, workspaceId, name: "Demo client" }],
    projects: [{ id: projectId, clientId, name: "Demo project" }],
    assignments: [{ projectId, userId }],
    apiKeys: [{ userId, workspaceId }]
  }).pipe(
    Effect.map(Option.some),
    // Another server created the demo workspace between our check and our write: nothing to do.
    Effect.catchIf(
      (error) =>
        error._tag === "RecordConflict" ||
        (error._tag === "AdminInputInvalid" && error.path === "$.workspaces[0].id"),
      () => Effect.succeed(Option.none())
    )
  )
  const key = Option.flatMap(loaded, (summary) => Option.fromNullable(summary.apiKeys[0]))
  return Option.map(key, (k) => ({ workspaceId, userId, clientId, projectId, key: k.key }))
})

/**
 * The host to put in a URL a client can call: a wildcard address becomes loopback, IPv6 gets brackets.
 *
 * @since 0.1.0
 */
export const reachableHost = (host: string): string => {
  const loopback = host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host
  return loopback.includes(":") ? `[${loopback}]` : loopback
}

/**
 * The lines printed once after the server is listening.
 *
 * @since 0.1.0
 */
export const announcement = (demo: Demo, baseUrl: string): ReadonlyArray<string> => [
  `demo: created a workspace (${demo.workspaceId}) with an owner, a client and a project`,
  `demo: API key (shown once, keep it): ${demo.key}`,
  `demo: try it:`,
  `curl -s -H 'Authorization: Bearer ${demo.key}' ${baseUrl}/api/v1/clients`
]

/**
 * The line printed when `--demo` found a workspace and created nothing.
 *
 * @since 0.1.0
 */
export const skipped = "demo: the database already holds a workspace, so no demo data was created; " +
  "`npx stint keys list` shows each key's user and workspace, `npx stint keys create --user ID --workspace ID` " +
  "makes a new key (add the server's --database when it is not the default)"
