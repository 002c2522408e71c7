/**
 * Clients and projects as the public operations read and create them. Lists come in storage order (the core sorts);
 * the flags are computed in SQL exactly as the memory store computes them.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { StoreError } from "@stint/core/Errors"
import type { ClientRecord, ProjectRecord, UserScope } from "@stint/core/Records"
import type { NewProject } from "@stint/core/Store"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { immediate, orStoreError } from "./database.js"
import { ClientRecordRow, decodeRows, IdRow, ProjectRecordRow } from "./rows.js"

const decodeClients = decodeRows(ClientRecordRow, "clients")
const decodeProjects = decodeRows(ProjectRecordRow, "projects")
const decodeIds = decodeRows(IdRow, "ids")

/** `Store.listClients`: the workspace's unarchived clients, flagged when the user has an assigned live project. */
export const listClients = (sql: SqlClient.SqlClient) =>
(scope: UserScope): Effect.Effect<ReadonlyArray<ClientRecord>, StoreError> =>
  sql.unsafe(
    `SELECT c.id, c.name, c.color, EXISTS (
        SELECT 1 FROM projects p
        JOIN assignments a ON a.project_id = p.id AND a.user_id = ?
        WHERE p.client_id = c.id AND p.archived = 0
      ) AS has_assigned_project
      FROM clients c
      WHERE c.workspace_id = ? AND c.archived = 0
      ORDER BY c.rowid`,
    [scope.userId, scope.workspaceId]
  ).pipe(orStoreError("listing clients"), Effect.flatMap(decodeClients))

/**
 * `Store.listProjects`: the projects of a client of the scope's workspace that the user is assigned to, archived
 * ones included, each with its client's archive flag.
 */
export const listProjects = (sql: SqlClient.SqlClient) =>
(scope: UserScope, clientId: string): Effect.Effect<ReadonlyArray<ProjectRecord>, StoreError> =>
  sql.unsafe(
    `SELECT p.id, p.workspace_id, p.client_id, p.name, p.color, p.archived, c.archived AS client_archived
      FROM clients c
      JOIN projects p ON p.client_id = c.id
      JOIN assignments a ON a.project_id = p.id AND a.user_id = ?
      WHERE c.id = ? AND c.workspace_id = ?
      ORDER BY p.rowid`,
    [scope.userId, clientId, scope.workspaceId]
  ).pipe(orStoreError("listing projects"), Effect.flatMap(decodeProjects))

/**
 * `Store.createProject`: in one write transaction, inserts the project only if its client is unarchived in the
 * workspace, then assigns the creator.
 */
export const createProject = (sql: SqlClient.SqlClient) =>
(project: NewProject): Effect.Effect<Option.Option<ProjectRecord>, StoreError> =>
  immediate(sql)(Effect.gen(function*() {
    const inserted = yield* sql.unsafe(
      `INSERT INTO projects (id, workspace_id, client_id, name, color, archived)
        SELECT ?, workspace_id, id, ?, ?, 0 FROM clients WHERE id = ? AND workspace_id = ? AND archived = 0
        RETURNING id`,
      [project.id, project.name, project.color, project.clientId, project.workspaceId]
    ).pipe(orStoreError("creating a project"), Effect.flatMap(decodeIds))
    if (inserted.length === 0) return Option.none()
    yield* sql.unsafe(`INSERT INTO assignments (project_id, user_id, pay_rate_cents) VALUES (?, ?, ?)`, [
      project.id,
      project.creatorUserId,
      project.creatorRateCents
    ]).pipe(orStoreError("assigning a project's creator"))
    const created: ProjectRecord = {
      id: project.id,
      clientId: project.clientId,
      name: project.name,
      color: project.color,
      archived: false,
      clientArchived: false
    }
    // The memory store returns the stored row, workspace included; so does this store.
    return Option.some({ ...created, workspaceId: project.workspaceId })
  }))
