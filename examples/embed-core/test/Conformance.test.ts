/**
 * The conformance kit against the embedded server, over HTTP, as it would check any server someone else runs: the
 * rules are the core's, but the routing, raw input, statuses and headers are this example's own.
 */
import { HttpStack, Suite } from "@stint/conformance"
import { MemoryStore } from "@stint/core"
import * as Effect from "effect/Effect"
import * as Server from "../src/Server.js"

Suite.suite(
  "embedded server",
  HttpStack.remote(Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(
      Effect.promise(() => Server.start({ store: MemoryStore.layerMemory })),
      (server) => Effect.promise(() => server.close())
    )
    return {
      baseUrls: [server.url],
      ...HttpStack.storeHooks((effect) => Effect.tryPromise(() => server.run(effect)))
    }
  }))
)
