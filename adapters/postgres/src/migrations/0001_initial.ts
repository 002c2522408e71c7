/**
 * The first schema: tenants, catalog, keys, time entries, idempotency records, rate-limit windows and settings.
 * Times are `bigint` epoch milliseconds (exactly the core's numbers); ids are `uuid`. Strings are stored as sent,
 * except that U+0000, lone surrogates and U+FFFF are escaped (see `internal/Text.ts`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

const schema = `
CREATE TABLE workspaces (
  id uuid PRIMARY KEY,
  name text NOT NULL
);

CREATE TABLE users (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  email text NOT NULL
);

CREATE TABLE memberships (
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  user_id uuid NOT NULL REFERENCES users (id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  pay_rate_cents integer NOT NULL,
  -- The order memberships were stored in (admin lookups list them in that order, like the memory store).
  seq bigint GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (workspace_id, user_id)
);
-- The admin side reads every membership of a user (their default rates).
CREATE INDEX memberships_by_user ON memberships (user_id);

CREATE TABLE clients (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  name text NOT NULL,
  color text NOT NULL,
  archived boolean NOT NULL,
  -- Lists a workspace's clients, and lets projects refer to (workspace, client).
  UNIQUE (workspace_id, id)
);

CREATE TABLE projects (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  client_id uuid NOT NULL,
  name text NOT NULL,
  color text NOT NULL,
  archived boolean NOT NULL,
  UNIQUE (workspace_id, id),
  -- A project lives in its client's workspace.
  FOREIGN KEY (workspace_id, client_id) REFERENCES clients (workspace_id, id)
);
CREATE INDEX projects_by_client ON projects (client_id);

CREATE TABLE assignments (
  project_id uuid NOT NULL REFERENCES projects (id),
  user_id uuid NOT NULL REFERENCES users (id),
  pay_rate_cents integer NOT NULL,
  PRIMARY KEY (project_id, user_id)
);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY,
  -- SHA-256 of the plaintext key, lowercase hex. The plaintext is never stored.
  digest text NOT NULL UNIQUE,
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  user_id uuid NOT NULL REFERENCES users (id),
  scopes text[] NOT NULL,
  created_at bigint NOT NULL,
  revoked_at bigint,
  -- The order keys were stored in, for listing (and admin lookups).
  seq bigint GENERATED ALWAYS AS IDENTITY
);

CREATE TABLE time_entries (
  id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL REFERENCES workspaces (id),
  user_id uuid NOT NULL REFERENCES users (id),
  project_id uuid NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'completed', 'voided')),
  billable boolean NOT NULL,
  note text,
  started_at bigint NOT NULL,
  ended_at bigint,
  pay_rate_cents integer NOT NULL,
  CHECK ((status = 'active') = (ended_at IS NULL)),
  -- An entry lives in its project's workspace.
  FOREIGN KEY (workspace_id, project_id) REFERENCES projects (workspace_id, id)
);
-- At most one active entry per user and workspace, whatever the number of instances.
CREATE UNIQUE INDEX time_entries_one_active ON time_entries (workspace_id, user_id) WHERE status = 'active';
-- Keyset pages of a user's history, and of one project's part of it.
CREATE INDEX time_entries_history ON time_entries (workspace_id, user_id, started_at DESC, id DESC);
CREATE INDEX time_entries_project_history
  ON time_entries (workspace_id, user_id, project_id, started_at DESC, id DESC);

CREATE TABLE idempotency_records (
  workspace_id uuid NOT NULL,
  user_id uuid NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  created_at bigint NOT NULL,
  -- Null while a request is in flight (never stored by Stint's own adapters, which hold a lock instead).
  response_status integer,
  response_body text,
  PRIMARY KEY (workspace_id, user_id, idempotency_key)
);
-- Finds expired records to delete, a batch at a time, during writes.
CREATE INDEX idempotency_records_by_age ON idempotency_records (created_at);

CREATE TABLE rate_limit_windows (
  -- The API key's id (text: the port counts any key id it is given).
  key_id text PRIMARY KEY,
  -- The times of the key's accepted requests still inside the window (at most the policy's limit).
  accepted_at bigint[] NOT NULL
);

CREATE TABLE settings (
  name text PRIMARY KEY,
  value bytea NOT NULL
);
`

export default Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(schema))
