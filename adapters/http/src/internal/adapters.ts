/**
 * The storage adapters' packages, each loaded when an address of its kind is first used. `@stint/http` has both as
 * optional dependencies: a deployment on PostgreSQL may leave out `@stint/sqlite` (and the native build of
 * better-sqlite3 it brings), one on SQLite `@stint/postgres`, and importing `@stint/http` loads neither.
 */
import { Errors } from "@stint/core"
import * as Effect from "effect/Effect"

/** Whether `cause` is Node's failure to find the package `name` itself (not a module that package imports). */
export const isNotInstalled = (cause: unknown, name: string): boolean =>
  typeof cause === "object" && cause !== null && "code" in cause &&
  (cause.code === "ERR_MODULE_NOT_FOUND" || cause.code === "MODULE_NOT_FOUND") &&
  "message" in cause && typeof cause.message === "string" && cause.message.includes(`'${name}'`)

/** The package `name` (the adapter for `kind`), imported by `importer`; a package not installed says which to add. */
export const load = <A>(name: string, kind: string, importer: () => Promise<A>): Effect.Effect<A, Errors.StoreError> =>
  Effect.tryPromise({
    try: importer,
    catch: (cause) =>
      new Errors.StoreError({
        message: isNotInstalled(cause, name)
          ? `${kind} support is not installed: add the ${name} package (npm install ${name})`
          : `loading ${name} failed`,
        cause
      })
  })

/** `@stint/sqlite`. */
export const sqlite = load("@stint/sqlite", "SQLite", () => import("@stint/sqlite"))

/** `@stint/postgres`. */
export const postgres = load("@stint/postgres", "PostgreSQL", () => import("@stint/postgres"))
