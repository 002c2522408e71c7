/**
 * The operators' record commands: workspaces, users, memberships, clients, projects, assignments and entries. Each
 * goes through the core's admin operations (the fixture loader's rules) and prints the result as JSON.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Admin, Schemas } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { check, color, database, given, name, payRate, printJson, uuid, withAdminStore } from "../internal/cliOptions.js"
import { usageOnly } from "../internal/cliUsage.js"

const newId = (what: string) =>
  uuid("id", `The new ${what}'s id (UUID; default: a fresh UUIDv7).`).pipe(Options.optional)

const group = <Name extends string>(name: Name, description: string) =>
  Command.make(name, {}, () => usageOnly(name)).pipe(Command.withDescription(description))

/**
 * `stint workspaces create --name NAME [--id UUID]`.
 *
 * @since 0.1.0
 */
export const workspaces = group("workspaces", "Manage workspaces.").pipe(Command.withSubcommands([
  Command.make("create", { name: name("name", "The workspace's name."), id: newId("workspace"), database }, (o) =>
    Admin.createWorkspace({ name: o.name, ...given("id", o.id) }).pipe(Effect.flatMap(printJson), withAdminStore(o.database)))
    .pipe(Command.withDescription("Create a workspace."))
]))

/**
 * `stint users create --name NAME --email EMAIL [--id UUID]`.
 *
 * @since 0.1.0
 */
export const users = group("users", "Manage users.").pipe(Command.withSubcommands([
  Command.make("create", {
    name: name("name", "The user's name."),
    email: name("email", "The user's email address."),
    id: newId("user"),
    database
  }, (o) =>
    Admin.createUser({ name: o.name, email: o.email, ...given("id", o.id) }).pipe(
      Effect.flatMap(printJson),
      withAdminStore(o.database)
    )).pipe(Command.withDescription("Create a user."))
]))

const scope = {
  workspace: uuid("workspace", "The workspace (UUID)."),
  user: uuid("user", "The user (UUID).")
}

/** A role as the command line gives it: one of `Schemas.Role`'s literals. */
const RoleText = Schema.String.pipe(
  Schema.filter((text): text is Schemas.Role => (Schemas.Role.literals as ReadonlyArray<string>).includes(text))
)

/**
 * `stint memberships add|remove --workspace ID --user ID`.
 *
 * @since 0.1.0
 */
export const memberships = group("memberships", "Add users to workspaces and remove them.").pipe(Command.withSubcommands([
  Command.make("add", {
    ...scope,
    // Not `Options.choice`, whose refusal does not name the flag.
    role: Options.text("role").pipe(
      Options.withPseudoName("owner|admin|member"),
      Options.withDescription("owner, admin or member."),
      check("role", RoleText, "owner, admin or member")
    ),
    payRate: payRate("The member's default pay rate in cents per hour (default 0)."),
    database
  }, (o) =>
    Admin.addMembership({ workspaceId: o.workspace, userId: o.user, role: o.role, ...given("payRateCents", o.payRate) })
      .pipe(Effect.flatMap(printJson), withAdminStore(o.database))).pipe(
      Command.withDescription("Make a user a member of a workspace.")
    ),
  Command.make("remove", { ...scope, database }, (o) =>
    Admin.removeMembership({ workspaceId: o.workspace, userId: o.user }).pipe(
      Effect.flatMap(printJson),
      withAdminStore(o.database)
    )).pipe(
      Command.withDescription(
        "Remove a membership; the user's keys for that workspace are revoked (refused at once, and not revived if the " +
          "membership is added again). Prints the number of keys revoked."
      )
    )
]))

const archiving = (entity: "client" | "project") => {
  const id = uuid("id", `The ${entity} (UUID).`)
  const set = (archived: boolean) => (o: { readonly id: string; readonly database: string }) =>
    Admin.setArchived(entity, o.id, archived).pipe(Effect.flatMap(printJson), withAdminStore(o.database))
  return [
    Command.make("archive", { id, database }, set(true)).pipe(Command.withDescription(`Archive a ${entity}.`)),
    Command.make("unarchive", { id, database }, set(false)).pipe(Command.withDescription(`Restore an archived ${entity}.`))
  ] as const
}

/**
 * `stint clients create|archive|unarchive`.
 *
 * @since 0.1.0
 */
export const clients = group("clients", "Create, archive and restore clients.").pipe(Command.withSubcommands([
  Command.make("create", {
    workspace: uuid("workspace", "The client's workspace (UUID)."),
    name: name("name", "The client's name."),
    color,
    id: newId("client"),
    database
  }, (o) =>
    Admin.createClient({ workspaceId: o.workspace, name: o.name, ...given("color", o.color), ...given("id", o.id) })
      .pipe(Effect.flatMap(printJson), withAdminStore(o.database))).pipe(Command.withDescription("Create a client.")),
  ...archiving("client")
]))

/**
 * `stint projects create|archive|unarchive`.
 *
 * @since 0.1.0
 */
export const projects = group("projects", "Create, archive and restore projects.").pipe(Command.withSubcommands([
  Command.make("create", {
    client: uuid("client", "The project's client (UUID)."),
    name: name("name", "The project's name."),
    color,
    id: newId("project"),
    database
  }, (o) =>
    Admin.createProject({ clientId: o.client, name: o.name, ...given("color", o.color), ...given("id", o.id) })
      .pipe(Effect.flatMap(printJson), withAdminStore(o.database))).pipe(
      Command.withDescription("Create a project (nobody is assigned; see `assignments add`).")
    ),
  ...archiving("project")
]))

/**
 * `stint assignments add --project ID --user ID [--pay-rate-cents N]`.
 *
 * @since 0.1.0
 */
export const assignments = group("assignments", "Assign users to projects.").pipe(Command.withSubcommands([
  Command.make("add", {
    project: uuid("project", "The project (UUID)."),
    user: uuid("user", "The user (UUID)."),
    payRate: payRate("The pay rate in cents per hour (default: the membership's default rate)."),
    database
  }, (o) =>
    Admin.assign({ projectId: o.project, userId: o.user, ...given("payRateCents", o.payRate) }).pipe(
      Effect.flatMap(printJson),
      withAdminStore(o.database)
    )).pipe(Command.withDescription("Assign a user to a project."))
]))

const entryId = uuid("id", "The time entry (UUID).")

/**
 * `stint entries void|move-start`.
 *
 * @since 0.1.0
 */
export const entries = group("entries", "Void time entries and move their start.").pipe(Command.withSubcommands([
  Command.make("void", { id: entryId, database }, (o) =>
    Admin.voidEntry(o.id).pipe(Effect.flatMap(printJson), withAdminStore(o.database))).pipe(
      Command.withDescription("Void a time entry; an active entry ends now. Voiding twice is refused.")
    ),
  Command.make("move-start", {
    id: entryId,
    startedAt: Options.text("started-at").pipe(
      Options.withPseudoName("TIMESTAMP"),
      Options.withDescription("The new start, an RFC 3339 timestamp (e.g. 2026-01-02T09:00:00Z).")
    ),
    database
  }, (o) =>
    Admin.moveEntryStart(o.id, o.startedAt).pipe(Effect.flatMap(printJson), withAdminStore(o.database))).pipe(
      Command.withDescription("Move a time entry's start.")
    )
]))
