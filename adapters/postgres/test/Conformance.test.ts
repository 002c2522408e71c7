/**
 * The published conformance kit against the PostgreSQL store, through the same call a third party writes; the kit's
 * backdoor reads the tables with plain SQL.
 */
import { CoreStack, Suite } from "@stint/conformance"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { storeLayer, TestDatabase } from "./support.js"

Suite.suite(
  "postgres (core)",
  CoreStack.make(storeLayer(), {
    backdoor: (context) => {
      const db = Context.get(context, TestDatabase)
      return {
        activeEntryIds: (workspaceId, userId) =>
          Effect.map(
            db.sql<{ id: string }>(
              "SELECT id FROM time_entries WHERE workspace_id = $1 AND user_id = $2 AND status = 'active'",
              [workspaceId, userId]
            ),
            (rows) => rows.map((row) => row.id)
          ),
        entryCount: (workspaceId, userId) =>
          Effect.map(
            db.sql<{ count: number }>(
              "SELECT count(*)::int AS count FROM time_entries WHERE workspace_id = $1 AND user_id = $2",
              [workspaceId, userId]
            ),
            (rows) => rows[0]?.count ?? 0
          )
      }
    }
  })
)
