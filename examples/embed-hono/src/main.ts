#!/usr/bin/env node
/**
 * Runs the Hono app on `@hono/node-server`: `node dist/main.js [--database FILE] [--port N]` (defaults `./stint.db`,
 * 8791). SIGINT and SIGTERM stop taking connections, let Stint's in-flight requests finish and close the store.
 */
import { serve } from "@hono/node-server"
import { parseArgs } from "node:util"
import * as App from "./App.js"

const { values } = parseArgs({ options: { database: { type: "string" }, port: { type: "string" } } })
const { app, stint } = App.make({ database: values.database ?? "./stint.db" })
await stint.ready()
const server = serve({ fetch: app.fetch, port: Number(values.port ?? 8791), hostname: "127.0.0.1" }, (info) => {
  console.error(`listening on http://127.0.0.1:${info.port} (Stint under /time)`)
})
const shutdown = () => {
  server.close()
  void stint.dispose().then(() => process.exit(0))
}
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
