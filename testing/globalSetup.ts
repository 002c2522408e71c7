/**
 * Vitest global setup: the PostgreSQL server that Postgres tests create their databases on. It is
 * `STINT_TEST_DATABASE_URL` when set; otherwise a throwaway embedded server started once for the whole run and
 * stopped after it. A server that cannot be had is reported to the tests (which then fail), never skipped, and never
 * fails the tests that do not need PostgreSQL.
 */
import type { TestProject } from "vitest/node"
import * as EmbeddedPostgres from "./EmbeddedPostgres.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** The server's superuser address, or why there is none. */
    readonly stintPostgres: { readonly url: string } | { readonly error: string }
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const given = process.env["STINT_TEST_DATABASE_URL"]
  if (given !== undefined && given.length > 0) {
    project.provide("stintPostgres", { url: given })
    return undefined
  }
  try {
    const server = await EmbeddedPostgres.start()
    project.provide("stintPostgres", { url: server.url })
    return () => server.stop()
  } catch (error) {
    project.provide("stintPostgres", { error: error instanceof Error ? error.message : String(error) })
    return undefined
  }
}
