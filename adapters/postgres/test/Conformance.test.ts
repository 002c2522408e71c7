/**
 * The published conformance kit against the PostgreSQL store, through the same calls a third party writes: driven
 * through the core, through Stint's HTTP server in this process, and over HTTP through three `stint serve` processes
 * sharing one database. The kit's backdoor reads the tables with plain SQL.
 */
import { Store } from "@stint/core"
import { CoreStack, HttpStack, Suite } from "@stint/conformance"
import { PgStore } from "@stint/postgres"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { build, serve } from "./stintServe.js"
import { databaseLayer, kitBackdoor, storeLayer, TestDatabase } from "./support.js"

const backdoor = (context: Context.Context<TestDatabase>) => kitBackdoor(Context.get(context, TestDatabase))

Suite.suite("postgres (core)", CoreStack.make(storeLayer(), { backdoor, storageWrites: true }))

Suite.suite("postgres (http)", HttpStack.inProcess(storeLayer(), { backdoor }))

Suite.suite(
  "postgres (3 stint serve processes)",
  HttpStack.remote(Effect.gen(function*() {
    const context = yield* Layer.build(databaseLayer)
    const db = Context.get(context, TestDatabase)
    // Seeds and admin events go through a store of this process on the same database.
    const store = yield* PgStore.make({ url: db.url, poolSize: 2 })
    yield* Effect.sync(build)
    const instances = yield* Effect.all(
      Array.from({ length: 3 }, () => Effect.acquireRelease(Effect.promise(() => serve(db.url)), (i) => Effect.promise(i.stop))),
      { concurrency: "unbounded" }
    )
    return {
      baseUrls: instances.map((i) => i.url),
      ...HttpStack.storeHooks((effect) => Effect.provideService(effect, Store.Store, store)),
      backdoor: kitBackdoor(db)
    }
  }))
)
