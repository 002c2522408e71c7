/**
 * The first schema of the SQLite store: every table of the core's rows, with the indexes that make keyset pagination
 * an index range scan and the partial unique index that allows one active entry per user and workspace.
 *
 * Conventions: STRICT tables; ids are lowercase UUIDs as TEXT; times are INTEGER epoch milliseconds; booleans are
 * INTEGER 0 or 1; API keys are stored only as their SHA-256 digest (lowercase hex).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

const statements: ReadonlyArray<string> = [
  `CREATE TABLE workspaces (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL
  ) STRICT`,

  `CREATE TABLE users (
    id TEXT PRIMARY KEY NOT NULL,
    name TEXT NOT NULL,
    email TEXT NOT NULL
  ) STRICT`,

  `CREATE TABLE memberships (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    pay_rate_cents INTEGER NOT NULL CHECK (pay_rate_cents >= 0),
    PRIMARY KEY (workspace_id, user_id)
  ) STRICT`,

  `CREATE TABLE clients (
    id TEXT PRIMARY KEY NOT NULL,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    name TEXT NOT NULL,
    color TEXT NOT NULL,
    archived INTEGER NOT NULL CHECK (archived IN (0, 1)),
    UNIQUE (id, workspace_id)
  ) STRICT`,
  `CREATE INDEX clients_by_workspace ON clients (workspace_id)`,

  // A project lives in its client's workspace: the composite key makes any other workspace impossible.
  `CREATE TABLE projects (
    id TEXT PRIMARY KEY NOT NULL,
    workspace_id TEXT NOT NULL,
    client_id TEXT NOT NULL,
    name TEXT NOT NULL,
    color TEXT NOT NULL,
    archived INTEGER NOT NULL CHECK (archived IN (0, 1)),
    UNIQUE (id, workspace_id),
    FOREIGN KEY (client_id, workspace_id) REFERENCES clients (id, workspace_id)
  ) STRICT`,
  `CREATE INDEX projects_by_client ON projects (client_id, workspace_id)`,

  `CREATE TABLE assignments (
    project_id TEXT NOT NULL REFERENCES projects (id),
    user_id TEXT NOT NULL REFERENCES users (id),
    pay_rate_cents INTEGER NOT NULL CHECK (pay_rate_cents >= 0),
    PRIMARY KEY (project_id, user_id)
  ) STRICT`,

  // `scopes` is a JSON array of scope names, in the order given. Never the plaintext key: only its digest.
  `CREATE TABLE api_keys (
    id TEXT PRIMARY KEY NOT NULL,
    digest TEXT NOT NULL UNIQUE CHECK (length(digest) = 64),
    user_id TEXT NOT NULL REFERENCES users (id),
    workspace_id TEXT NOT NULL REFERENCES workspaces (id),
    scopes TEXT NOT NULL CHECK (json_valid(scopes)),
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  ) STRICT`,
  `CREATE INDEX api_keys_by_owner ON api_keys (workspace_id, user_id)`,

  // `ended_at` is null exactly while the entry is active. The workspace is the project's (composite key).
  `CREATE TABLE time_entries (
    id TEXT PRIMARY KEY NOT NULL,
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users (id),
    project_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('active', 'completed', 'voided')),
    billable INTEGER NOT NULL CHECK (billable IN (0, 1)),
    note TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    pay_rate_cents INTEGER NOT NULL CHECK (pay_rate_cents >= 0),
    CHECK ((status = 'active') = (ended_at IS NULL)),
    FOREIGN KEY (project_id, workspace_id) REFERENCES projects (id, workspace_id)
  ) STRICT`,
  // Keyset pagination of a user's history, newest first, with and without the project filter.
  `CREATE INDEX time_entries_history
    ON time_entries (workspace_id, user_id, started_at DESC, id DESC)`,
  `CREATE INDEX time_entries_project_history
    ON time_entries (workspace_id, user_id, project_id, started_at DESC, id DESC)`,
  // At most one active entry per user and workspace, whatever the concurrency.
  `CREATE UNIQUE INDEX time_entries_one_active
    ON time_entries (workspace_id, user_id) WHERE status = 'active'`,

  // Stored responses of idempotent timer mutations; `response_status` and `response_body` are both null or both set.
  `CREATE TABLE idempotency_records (
    workspace_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    response_status INTEGER,
    response_body TEXT,
    CHECK ((response_status IS NULL) = (response_body IS NULL)),
    PRIMARY KEY (workspace_id, user_id, key)
  ) STRICT`,
  `CREATE INDEX idempotency_records_by_age ON idempotency_records (created_at)`,

  // Accepted requests per API key, for the sliding-window rate limit.
  `CREATE TABLE rate_limit_hits (
    key_id TEXT NOT NULL,
    at INTEGER NOT NULL
  ) STRICT`,
  `CREATE INDEX rate_limit_hits_by_key ON rate_limit_hits (key_id, at)`,

  // Store-wide settings shared by every process on the file (the cursor secret).
  `CREATE TABLE settings (
    name TEXT PRIMARY KEY NOT NULL,
    value BLOB NOT NULL
  ) STRICT`
]

/**
 * Creates the tables and indexes.
 *
 * @since 0.1.0
 */
const migration: Effect.Effect<void, unknown, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})

export default migration
