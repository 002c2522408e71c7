#!/usr/bin/env node
/**
 * Runs the Express app: `node dist/main.js [--database sqlite:FILE] [--port N]` (defaults `./stint.db`, 8790). SIGINT and
 * SIGTERM stop taking connections, let the requests in flight finish (the app's own and Stint's) and close the store.
 */
import { Database } from "@stint/http"
import { relative } from "node:path"
import { parseArgs } from "node:util"
import * as App from "./App.js"

// This script as the usage names it: its path from the working directory, or its full path when it lies elsewhere.
const script = process.argv[1] ?? "dist/main.js"
const fromHere = relative(process.cwd(), script)
const usage = `usage: node ${fromHere.startsWith("..") ? script : fromHere} [--database sqlite:FILE] [--port N]   (defaults ./stint.db, 8790)`
const { values } = (() => {
  try {
    return parseArgs({ options: { database: { type: "string" }, port: { type: "string", default: "8790" }, help: { type: "boolean", short: "h" } } })
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`)
    return process.exit(2)
  }
})()
if (values.help === true) {
  console.log(usage)
  process.exit(0)
}
const port = Number(values.port)
if (!/^\d{1,5}$/.test(values.port) || port > 65535) {
  console.error(`--port takes a port number from 0 to 65535, not ${JSON.stringify(values.port)}\n${usage}`)
  process.exit(2)
}
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
const server = app.listen(port, "127.0.0.1", (error) => {
  // Express 5 hands a failed listen (the port in use, say) to this callback.
  if (error !== undefined) {
    console.error(`cannot listen: ${error.message}`)
    void stint.dispose().finally(() => process.exit(1)) // closes the store it opened
    return
  }
  const address = server.address()
  const bound = typeof address === "object" && address !== null ? address.port : port
  console.error(`listening on http://127.0.0.1:${bound} (Stint under /time)`)
})
const shutdown = () => {
  // No new connections; exit once every request in flight, the app's own and Stint's, has been answered and the store
  // is closed (Stint answers 503 NOT_READY to requests that still arrive on open connections meanwhile).
  const closed = new Promise((resolve) => server.close(resolve))
  setTimeout(() => server.closeAllConnections(), 30_000).unref()
  void Promise.all([closed, stint.dispose()]).then(() => process.exit(0))
}
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
