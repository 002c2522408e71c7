/**
 * `PgStore.PoolStats`, found by its key: a `Context` holds services by their tag's key, and naming the tag itself would
 * load `@stint/postgres` (an optional dependency) and its driver wherever metrics are served. Internal, so that no
 * public declaration refers to `@stint/postgres`. `test/Adapters.test.ts` checks the key against the adapter's.
 */
import type { PgStore } from "@stint/postgres"
import * as Context from "effect/Context"

export const PoolStats = Context.GenericTag<PgStore.PoolStats, PgStore.PoolStats["Type"]>(
  "@stint/postgres/PgStore/PoolStats"
)

/** What the pool reports. */
export type PoolStatsShape = PgStore.PoolStats["Type"]
