/**
 * The conformance kit, over HTTP as a third party runs it (`HttpStack.remote`), against a plain `node:http` server
 * whose only listener is `@stint/http`'s Node handler over a SQLite file. Seeds and admin events go through a store
 * of the test's own on the same file; the backdoor reads the file with better-sqlite3.
 */
import { HttpStack, Suite } from "@stint/conformance"
import { Admin, Fixture, Store } from "@stint/core"
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
    const run = <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Effect.provide(effect, context)
    const admin = <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Effect.orDie(Effect.asVoid(run(effect)))
    return {
      baseUrls: [`http://127.0.0.1:${(server.address() as AddressInfo).port}`],
      seed: (fixture: unknown) => run(Fixture.load(fixture)),
      admin: {
        setArchived: (entity: "client" | "project", id: string, archived: boolean) =>
          admin(Admin.setArchived(entity, id, archived)),
        removeMembership: (workspaceId: string, userId: string) => admin(Admin.removeMembership({ workspaceId, userId })),
        revokeKey: (keyId: string) => admin(Admin.revokeApiKey(keyId)),
        voidEntry: (entryId: string) => admin(Admin.voidEntry(entryId)),
        moveEntryStart: (entryId: string, startedAt: number) =>
          admin(Admin.moveEntryStart(entryId, new Date(startedAt).toISOString()))
      },
      backdoor: backdoor(context)
    }
  }))
)
