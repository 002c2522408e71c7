/**
 * Fresh SQLite files for the kit's stacks, removed when the stack closes, and a backdoor that reads them with
 * better-sqlite3 rather than through the adapter.
 */
import { SqliteStore } from "@stint/sqlite"
import Database from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Stack } from "@stint/conformance"

/** A layer over a new SQLite file in a temporary folder; the folder is removed with the layer. */
export const freshFile = (): { readonly filename: string; readonly layer: ReturnType<typeof SqliteStore.layer> } => {
  const dir = mkdtempSync(join(tmpdir(), "stint-kit-"))
  const filename = join(dir, "stint.db")
  const cleanup = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))))
  return { filename, layer: Layer.merge(SqliteStore.layer({ filename }), cleanup) }
}

/** Reads the file directly. */
export const backdoor = (filename: string): Stack.Backdoor => {
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
      )
  }
}
