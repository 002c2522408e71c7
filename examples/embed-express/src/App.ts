/**
 * A team's Express 5 app with Stint's API mounted under `/time` beside the team's own routes: the Stint-specific
 * part is the handler, one `app.use` and `dispose()` at shutdown.
 */
import { Handler } from "@stint/http"
import { SqliteStore } from "@stint/sqlite"
import express from "express"

/** The app, and the Stint handler whose `dispose()` closes the store at shutdown. */
export interface App {
  readonly app: express.Express
  readonly stint: Handler.StintHandler
}

/** The team's app over the SQLite file `database`; `log: false` keeps Stint's request log line quiet. */
export const make = (options: { readonly database: string; readonly log?: boolean }): App => {
  const app = express()
  // Stint: the whole API below /time, over a SQLite file. Mount it before any body parser (it reads bodies itself).
  const stint = Handler.make(SqliteStore.layer({ filename: options.database }), { prefix: "/time", log: options.log })
  app.use(stint.node)

  // The team's own routes.
  app.get("/hello", (_req, res) => {
    res.json({ hello: "from the team's own route" })
  })
  return { app, stint }
}
