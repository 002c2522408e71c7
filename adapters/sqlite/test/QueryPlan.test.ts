import { describe, expect, it } from "@effect/vitest"
import { SqliteStore } from "@stint/sqlite"
import * as Effect from "effect/Effect"
import { listEntriesQuery } from "../src/internal/entries.js"
import { backdoor, tempFile } from "./support.js"

const scope = { workspaceId: "00000000-0000-7000-8000-000000000001", userId: "00000000-0000-7000-8000-00000000000a" }

describe("the listEntries query plan", () => {
  for (const projectId of [null, "00000000-0000-7000-8000-0000000000d1"]) {
    for (const after of [null, { startedAt: 1_700_000_000_000, id: "00000000-0000-7000-8000-000000000099" }]) {
      it.effect(`is an index range scan (project: ${projectId !== null}, cursor: ${after !== null})`, () =>
        Effect.gen(function*() {
          const filename = tempFile()
          yield* SqliteStore.migrate({ filename })
          const query = listEntriesQuery(scope, { projectId, after, limit: 21 })
          const plan = backdoor(filename, (db) =>
            (db.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.params) as Array<{ detail: string }>)
              .map((row) => row.detail))
          const index = projectId === null ? "time_entries_history" : "time_entries_project_history"
          const range = [
            "workspace_id=? AND user_id=?",
            ...(projectId === null ? [] : ["project_id=?"]),
            ...(after === null ? [] : ["(started_at,id)<(?,?)"])
          ].join(" AND ")
          expect(plan[0]).toBe(`SEARCH e USING INDEX ${index} (${range})`)
          expect(plan.slice(1)).toEqual([
            "SEARCH p USING INDEX sqlite_autoindex_projects_1 (id=?)",
            "SEARCH c USING INDEX sqlite_autoindex_clients_1 (id=?)"
          ])
          expect(plan.join("\n")).not.toMatch(/TEMP B-TREE|SCAN/)
        }))
    }
  }
})
