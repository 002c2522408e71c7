/**
 * CPU time per request, read from `/proc` (Linux): of the server process, and of the PostgreSQL backends connected to
 * its database (the database's share of the work). Unlike requests per second on a shared machine, CPU time per
 * request barely moves when something else takes the cores.
 */
import { processMillis } from "./processCpu.mjs"

/** A reading to subtract from a later one: the server's CPU ms, and each database backend's. */
export interface Reading {
  readonly server: number
  readonly backends: ReadonlyMap<number, number>
}

/** Reads the server process and the given database backends (their pids from `pg_stat_activity`). */
export const read = (pid: number, backendPids: ReadonlyArray<number>): Reading => ({
  server: processMillis(pid),
  backends: new Map(backendPids.map((backend) => [backend, processMillis(backend)]))
})

/**
 * µs of CPU per request between two readings (a backend that appeared in between counts from 0), not rounded: a round's
 * ratio is taken from these (rounded to whole µs, a 100 µs request's ratio could move by 1%); tables round them.
 */
export interface PerRequest {
  readonly server: number
  readonly database: number
}

export const perRequest = (before: Reading, after: Reading, requests: number): PerRequest => {
  let database = 0
  for (const [backend, ms] of after.backends) database += ms - (before.backends.get(backend) ?? 0)
  const per = (ms: number) => ms * 1000 / Math.max(requests, 1)
  return { server: per(after.server - before.server), database: per(database) }
}
