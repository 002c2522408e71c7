/**
 * `Store.ping` on a SQLite file. Ready means more than "the file answers": the connection stays open on the file it
 * opened even when that file is deleted, or replaced by another (a backup moved into place), and would go on serving
 * and writing data no one else sees. So the path must still name the file this store opened, and every migration this
 * build knows must be applied to it (a table dropped by hand is found too).
 */
import type { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import { statSync } from "node:fs"
import type { Connection } from "./connection.js"
import { storeError } from "./database.js"
import { LATEST, MIGRATIONS_TABLE } from "./migrations.js"

const identity = (filename: string) => {
  const { dev, ino } = statSync(filename, { bigint: true })
  return `${dev}:${ino}`
}

/** The readiness check of the file `filename` open on `connection`; reads the file's identity now. */
export const readiness = (
  connection: Connection,
  filename: string
): Effect.Effect<Effect.Effect<void, StoreError>, StoreError> =>
  Effect.map(
    Effect.try({ try: () => identity(filename), catch: storeError(`reading ${filename}`) }),
    (opened) =>
      connection.run("checking readiness", () => {
        if (identity(filename) !== opened) {
          throw new Error(`${filename} is not the file this server opened: it was replaced`)
        }
        const row = connection.prepare(`SELECT coalesce(max(migration_id), 0) AS latest FROM ${MIGRATIONS_TABLE}`)
          .get() as { readonly latest: number }
        if (row.latest < LATEST) throw new Error(`its schema is at migration ${row.latest}, this build needs ${LATEST}`)
      })
  )
