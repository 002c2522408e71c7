#!/usr/bin/env node
/**
 * Runs the Express app: `node dist/main.js [--database FILE] [--port N]` (defaults `./stint.db`, 8790). SIGINT and
 * SIGTERM stop taking connections, let Stint's in-flight requests finish and close the store.
 */
import { parseArgs } from "node:util"
import * as App from "./App.js"

const { values } = parseArgs({ options: { database: { type: "string" }, port: { type: "string" } } })
const { app, stint } = App.make({ database: values.database ?? "./stint.db" })
await stint.ready()
const server = app.listen(Number(values.port ?? 8790), "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : values.port
  console.error(`listening on http://127.0.0.1:${port} (Stint under /time)`)
})
const shutdown = () => {
  server.close()
  void stint.dispose().then(() => process.exit(0))
}
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
