/**
 * `Store.ping` on a SQLite file. Ready means more than "the file answers": the connection stays open on the file it
 * opened even when that file is deleted, or replaced by another (a backup moved into place), and would go on serving
 * and writing data no one else sees. So the path must still name the file this store opened (compared by device and
 * inode; an in-memory database has no path), and every migration this build knows must be recorded in it (later ones,
 * of a newer build, do not matter).
 */
import type { StoreError } from "@stint/core/Errors"
import * as Effect from "effect/Effect"
import { statSync } from "node:fs"
import { resolve } from "node:path"
import type { Connection } from "./connection.js"
import { storeError } from "./database.js"
import { LATEST, MIGRATIONS_TABLE } from "./migrations.js"

const identity = (path: string): string => {
  const { dev, ino } = statSync(path, { bigint: true })
  return `${dev}:${ino}`
}

/** better-sqlite3's names of a database that lives in memory (`""` is a private temporary one): no file to check. */
const inMemory = (filename: string): boolean => filename === ":memory:" || filename === ""

const APPLIED = `SELECT count(*) AS applied FROM ${MIGRATIONS_TABLE} WHERE migration_id BETWEEN 1 AND ${LATEST}`

/**
 * The readiness check of `filename`, just opened on `connection`: reads the file's identity now, by its absolute path
 * (a process that changes its directory later still checks the same file).
 */
export const readiness = (
  connection: Connection,
  filename: string
): Effect.Effect<Effect.Effect<void, StoreError>, StoreError> => {
  const path = inMemory(filename) ? undefined : resolve(filename)
  return Effect.map(
    Effect.try({ try: () => path === undefined ? undefined : identity(path), catch: storeError(`reading ${filename}`) }),
    (opened) =>
      connection.run("checking readiness", () => {
        if (path !== undefined && identity(path) !== opened) {
          throw new Error(`${path} is not the file this server opened: it was replaced`)
        }
        const { applied } = connection.prepare(APPLIED).get() as { readonly applied: number }
        if (applied < LATEST) throw new Error(`its schema has ${applied} of the ${LATEST} migrations this build needs`)
      })
  )
}
