/**
 * A team's Hono app with Stint's Web fetch handler mounted under `/time` beside the team's own routes: the
 * Stint-specific part is the handler, one route forwarding the raw `Request`, and `dispose()` at shutdown.
 */
import { Handler } from "@stint/http"
import { SqliteStore } from "@stint/sqlite"
import { Hono } from "hono"

/** The app, and the Stint handler whose `dispose()` closes the store at shutdown. */
export interface App {
  readonly app: Hono
  readonly stint: Handler.StintHandler
}

/** The team's app over the SQLite file `database`; `log: false` keeps Stint's request log line quiet. */
export const make = (options: { readonly database: string; readonly log?: boolean }): App => {
  const app = new Hono()
  // Stint: the whole API below /time, over a SQLite file. The raw Request goes in untouched (path, query, body).
  const stint = Handler.make(SqliteStore.layer({ filename: options.database }), { prefix: "/time", log: options.log })
  app.all("/time/*", (c) => stint.fetch(c.req.raw))

  // The team's own routes.
  app.get("/hello", (c) => c.json({ hello: "from the team's own route" }))
  return { app, stint }
}
