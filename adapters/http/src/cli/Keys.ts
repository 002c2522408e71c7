/**
 * `stint keys …`: create an API key (all five scopes, plaintext shown once), list keys, revoke a key.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Admin, type Records, Schemas } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { database, printJson, printLine, uuid, withAdminStore } from "../internal/cliOptions.js"
import { usageOnly } from "../internal/cliUsage.js"

const iso = (millis: number) => new Date(millis).toISOString()

/** How a stored key is shown: never its digest, never its plaintext. */
const keyInfo = (key: Records.ApiKeyInfo) => ({
  id: key.id,
  userId: key.userId,
  workspaceId: key.workspaceId,
  scopes: key.scopes,
  createdAt: iso(key.createdAt),
  revokedAt: key.revokedAt === null ? null : iso(key.revokedAt)
})

/**
 * `stint keys create --user ID --workspace ID [--json]`: prints the plaintext key (or, with `--json`, the key with its
 * id) once.
 *
 * @since 0.1.0
 */
export const create = Command.make("create", {
  user: uuid("user", "The key's user (UUID)."),
  workspace: uuid("workspace", "The workspace the key is bound to (UUID)."),
  json: Options.boolean("json").pipe(
    Options.withDescription("Print {id, key, userId, workspaceId, scopes} as JSON instead of the bare key.")
  ),
  database
}, ({ database, json, user, workspace }) =>
  Effect.gen(function*() {
    const key = yield* Admin.createApiKey({ userId: user, workspaceId: workspace, scopes: Schemas.SCOPES })
    yield* json ? printJson({ ...key, scopes: Schemas.SCOPES }) : printLine(key.key)
  }).pipe(withAdminStore(database))).pipe(
    Command.withDescription(
      "Create an API key with all five scopes for a user in a workspace and print its plaintext, the only time it " +
        "is shown. The key is refused (401) for as long as the user is not a member of the workspace."
    )
  )

/**
 * `stint keys list [--user ID] [--workspace ID]`: prints the keys as JSON (ids, scopes, dates; never a secret).
 *
 * @since 0.1.0
 */
export const list = Command.make("list", {
  user: uuid("user", "Only this user's keys.").pipe(Options.optional),
  workspace: uuid("workspace", "Only keys of this workspace.").pipe(Options.optional),
  database
}, ({ database, user, workspace }) =>
  Effect.gen(function*() {
    const keys = yield* Admin.listApiKeys({
      ...Option.match(user, { onNone: () => ({}), onSome: (userId) => ({ userId }) }),
      ...Option.match(workspace, { onNone: () => ({}), onSome: (workspaceId) => ({ workspaceId }) })
    })
    yield* printJson({ apiKeys: keys.map(keyInfo) })
  }).pipe(withAdminStore(database))).pipe(Command.withDescription("List API keys as JSON (never their secrets)."))

/**
 * `stint keys revoke --key-id ID`: the key is refused from this instant on.
 *
 * @since 0.1.0
 */
export const revoke = Command.make("revoke", {
  keyId: uuid("key-id", "The key's id (from `keys create --json`, `keys list` or the seed summary)."),
  database
}, ({ database, keyId }) =>
  Admin.revokeApiKey(keyId).pipe(Effect.flatMap(printJson), withAdminStore(database))).pipe(
    Command.withDescription("Revoke an API key; it is refused from this instant on.")
  )

/**
 * `stint keys`: the key commands.
 *
 * @since 0.1.0
 */
export const command = Command.make("keys", {}, () => usageOnly("keys")).pipe(
  Command.withDescription("Create, list and revoke API keys."),
  Command.withSubcommands([create, list, revoke])
)
