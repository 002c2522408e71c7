/**
 * The conformance kit against the embedded server, over HTTP, as it would check any server someone else runs: the
 * rules are the core's, but the routing, raw input, statuses and headers are this example's own.
 */
import { HttpStack, Suite } from "@stint/conformance"
import { Admin, Fixture, MemoryStore, type Store } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Server from "../src/Server.js"

Suite.suite(
  "embedded server",
  HttpStack.remote(Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(
      Effect.promise(() => Server.start({ store: MemoryStore.layerMemory })),
      (server) => Effect.promise(() => server.close())
    )
    const run = <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Effect.tryPromise(() => server.run(effect))
    const admin = <A, E>(effect: Effect.Effect<A, E, Store.Store>) => Effect.orDie(Effect.asVoid(run(effect)))
    return {
      baseUrls: [server.url],
      seed: (fixture) => run(Fixture.load(fixture)),
      admin: {
        setArchived: (entity, id, archived) => admin(Admin.setArchived(entity, id, archived)),
        removeMembership: (workspaceId, userId) => admin(Admin.removeMembership({ workspaceId, userId })),
        revokeKey: (keyId) => admin(Admin.revokeApiKey(keyId)),
        voidEntry: (entryId) => admin(Admin.voidEntry(entryId)),
        moveEntryStart: (entryId, startedAt) => admin(Admin.moveEntryStart(entryId, new Date(startedAt).toISOString()))
      }
    }
  }))
)
