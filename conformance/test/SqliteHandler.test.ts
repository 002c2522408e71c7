/**
 * The conformance kit, over HTTP as a third party runs it (`HttpStack.remote`), against a plain `node:http` server
 * whose only listener is `@stint/http`'s Node handler over a SQLite file. Seeds and admin events go through a store
 * of the test's own on the same file; the backdoor reads the file with better-sqlite3.
 */
import { HttpStack, Suite } from "@stint/conformance"
import { Handler } from "@stint/http"
import { SqliteStore } from "@stint/sqlite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { backdoor, freshFile, SqliteFile } from "./support/SqliteFiles.js"

Suite.suite(
  "sqlite (Handler.node on node:http)",
  HttpStack.remote(Effect.gen(function*() {
    const context = yield* Layer.build(freshFile)
    const { filename } = Context.get(context, SqliteFile)
    const handler = yield* Effect.acquireRelease(
      Effect.sync(() => Handler.make(SqliteStore.layer({ filename }), { log: false })),
      (handler) => Effect.promise(handler.dispose)
    )
    yield* Effect.promise(handler.ready)
    const server = yield* Effect.acquireRelease(
      Effect.async<Http.Server>((resume) => {
        const server = Http.createServer((request, response) => handler.node(request, response))
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    return {
      baseUrls: [`http://127.0.0.1:${(server.address() as AddressInfo).port}`],
      ...HttpStack.storeHooks((effect) => Effect.provide(effect, context)),
      backdoor: backdoor(context)
    }
  }))
)
