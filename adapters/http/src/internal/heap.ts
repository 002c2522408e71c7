/**
 * How far a serving process lets V8's old generation grow past its live heap before the next full collection.
 *
 * `stint serve` keeps a flat live heap (about 35 MB after startup, the same after 100,000 requests), but each request
 * allocates a few hundred KB of short-lived objects, and the ones still in flight when the young generation is
 * collected are promoted. V8 then lets the old generation grow to up to four times the live heap before collecting it
 * when collections are cheap, so the process's RSS climbed from about 130 MB to 210–240 MB under load without any
 * leak. Capping the growth factor keeps the old generation within a fixed margin of the live heap.
 */
import * as V8 from "node:v8"

/** The old generation may grow to (1 + GROWTH_PERCENT / 100) times the live heap before a full collection. */
export const GROWTH_PERCENT = 30

const FLAG = "--heap-growing-percent"

/**
 * The V8 flag to set, or `undefined` when the operator chose their own growth on node's command line (`node
 * --heap-growing-percent=N …`; NODE_OPTIONS cannot carry V8 flags of this kind).
 */
export const flag = (execArgv: ReadonlyArray<string>): string | undefined =>
  execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg)) ? undefined : `${FLAG}=${GROWTH_PERCENT}`

/**
 * Sets the growth for this process. V8 reads the setting at every full collection, so setting it at run time
 * takes effect from the next one.
 */
export const bound = (): void => {
  const chosen = flag(process.execArgv)
  if (chosen !== undefined) V8.setFlagsFromString(chosen)
}
