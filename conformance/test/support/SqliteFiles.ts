/**
 * Fresh SQLite files for the kit's stacks, removed when the stack closes, and a backdoor that reads them with
 * better-sqlite3 rather than through the adapter.
 */
import type { Stack } from "@stint/conformance"
import type { Store } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import Database from "better-sqlite3"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The file a stack's store lives in. */
export class SqliteFile extends Context.Tag("test/SqliteFile")<SqliteFile, { readonly filename: string }>() {}

/** A store on a new SQLite file in a temporary folder, created when the layer is built and removed with it. */
export const freshFile: Layer.Layer<Store.Store | SqliteFile, unknown> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "stint-kit-"))),
      (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
    )
    const filename = join(dir, "stint.db")
    return Layer.merge(SqliteStore.layer({ filename }), Layer.succeed(SqliteFile, { filename }))
  })
)

/** Reads the stack's file directly, and writes entries into it past the adapter. */
export const backdoor = (context: Context.Context<Store.Store | SqliteFile>): Stack.Backdoor => {
  const { filename } = Context.get(context, SqliteFile)
  const read = <A>(f: (db: Database.Database) => A) =>
    Effect.sync(() => {
      const db = new Database(filename, { readonly: true, fileMustExist: true })
      try {
        return f(db)
      } finally {
        db.close()
      }
    })
  return {
    activeEntryIds: (workspaceId, userId) =>
      read((db) =>
        db.prepare("SELECT id FROM time_entries WHERE workspace_id = ? AND user_id = ? AND status = 'active'")
          .all(workspaceId, userId)
          .map((row) => (row as { id: string }).id)
      ),
    entryCount: (workspaceId, userId) =>
      read((db) =>
        (db.prepare("SELECT count(*) AS n FROM time_entries WHERE workspace_id = ? AND user_id = ?").get(workspaceId, userId) as {
          n: number
        }).n
      ),
    insertEntry: (row) =>
      Effect.sync(() => {
        // A connection of its own, as another program's would be; waits for the adapter's write lock like one.
        const db = new Database(filename, { fileMustExist: true, timeout: 5_000 })
        try {
          db.prepare(`INSERT INTO time_entries (id, workspace_id, user_id, project_id, status, billable, note, started_at,
            ended_at, pay_rate_cents) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
            .run(row.id, row.workspaceId, row.userId, row.projectId, row.status, row.billable ? 1 : 0, row.note,
              row.startedAt, row.endedAt, row.payRateCents)
          return "stored" as const
        } catch (error) {
          if ((error as { readonly code?: unknown }).code === "SQLITE_CONSTRAINT_UNIQUE") return "refused" as const
          throw error
        } finally {
          db.close()
        }
      })
  }
}
