#!/usr/bin/env node
/**
 * Runs the Hono app on `@hono/node-server`: `node dist/main.js [--database sqlite:FILE] [--port N]` (defaults
 * `./stint.db`, 8791). SIGINT and SIGTERM stop taking connections, let the requests in flight finish (the app's own
 * and Stint's) and close the store.
 */
import { serve } from "@hono/node-server"
import { Database } from "@stint/http"
import { parseArgs } from "node:util"
import * as App from "./App.js"

const { values } = parseArgs({ options: { database: { type: "string" }, port: { type: "string" } } })
// A SQLite file, as `stint --database` names one (`sqlite:./stint.db`) or by its path alone.
const database = Database.sqliteFile(values.database ?? "./stint.db")
if (database._tag === "Left") {
  console.error(database.left.message)
  process.exit(2)
}
const { app, stint } = App.make({ database: database.right })
await stint.ready().catch((error: unknown) => {
  console.error(`cannot open the database: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
const server = serve({ fetch: app.fetch, port: Number(values.port ?? 8791), hostname: "127.0.0.1" }, (info) => {
  console.error(`listening on http://127.0.0.1:${info.port} (Stint under /time)`)
})
const shutdown = () => {
  // No new connections; exit once every request in flight, the app's own and Stint's, has been answered and the store
  // is closed (Stint answers 503 NOT_READY to requests that still arrive on open connections meanwhile).
  const closed = new Promise((resolve) => server.close(resolve))
  setTimeout(() => "closeAllConnections" in server && server.closeAllConnections(), 30_000).unref()
  void Promise.all([closed, stint.dispose()]).then(() => process.exit(0))
}
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
