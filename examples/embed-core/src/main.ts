/**
 * Runs the embedded server by hand: `node examples/embed-core/dist/main.js [--sqlite FILE] [--port N]`. On the
 * in-memory store (the default) it first loads the demo data and prints its API key.
 *
 * @since 0.1.0
 */
import { Fixture, MemoryStore } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import { relative } from "node:path"
import { parseArgs } from "node:util"
import * as Demo from "./Demo.js"
import * as Server from "./Server.js"

// This script as the usage names it: its path from the working directory, or its full path when it lies elsewhere.
const script = process.argv[1] ?? "dist/main.js"
const fromHere = relative(process.cwd(), script)
const usage = `usage: node ${fromHere.startsWith("..") ? script : fromHere} [--sqlite FILE] [--port N]   (defaults: the in-memory demo store, 8788)`
const { values } = (() => {
  try {
    return parseArgs({ options: { sqlite: { type: "string" }, port: { type: "string", default: "8788" }, help: { type: "boolean", short: "h" } } })
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`)
    return process.exit(2)
  }
})()
if (values.help === true) {
  console.log(usage)
  process.exit(0)
}
if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) {
  console.error(`--port takes a port number from 0 to 65535, not ${JSON.stringify(values.port)}\n${usage}`)
  process.exit(2)
}
// A SQLite file by its path, or as `stint --database` names one (`sqlite:./embedded.db`, also `sqlite://…`).
const filename = values.sqlite?.replace(/^sqlite:(\/\/)?/i, "")
if (filename === "") {
  console.error("--sqlite sqlite: needs a file path, e.g. sqlite:./embedded.db")
  process.exit(2)
}
// The one line that picks the storage: any layer that provides the core's Store port.
const store = filename === undefined ? MemoryStore.layerMemory : SqliteStore.layer({ filename })
const server = await Server.start({ store, port: Number(values.port) }).catch((error: unknown) => {
  console.error(`cannot start: ${error instanceof Error ? error.message : String(error)}`)
  return process.exit(1)
})

if (values.sqlite === undefined) {
  const summary = await server.run(Fixture.load(Demo.fixture))
  const key = summary.apiKeys[0]?.key
  console.log(`demo API key (shown once): ${key}`)
  console.log(`try: curl -H "Authorization: Bearer ${key}" ${server.url}/api/v1/clients`)
}
console.log(`listening on ${server.url}`)

const stop = () => void server.close().then(() => process.exit(0))
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
