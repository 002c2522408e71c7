/**
 * V8 heap settings a long-running `stint` process sets for itself, each unless the operator gave that flag on node's
 * command line (NODE_OPTIONS cannot carry V8 flags of this kind). V8 reads both at every collection, so setting them
 * at run time takes effect from the next one.
 *
 * Growth (`stint serve` and `stint seed`). `stint serve` keeps a flat live heap (about 35 MB after startup, the same
 * after 100,000 requests), but each request allocates a few hundred KB of short-lived objects, and the ones still in
 * flight when the young generation is collected are promoted. V8 then lets the old generation grow to up to four
 * times the live heap before collecting it when collections are cheap, so the process's RSS climbed from about 130 MB
 * to 210–240 MB under load without any leak. Capping the growth factor keeps the old generation within a fixed margin
 * of the live heap.
 *
 * The cap is 50%, not less. At 30% (until 2026-11-30) a plain `stint serve` on SQLite at `synchronous=NORMAL` under
 * a moderate load (one to eight keep-alive clients, 2,700 to 4,000 `GET /timer` a second) ran a full collection every
 * 60 to 300 ms, each freeing a few MB or nothing (`--trace-incremental-marking`: V8's task starts the marking with the
 * old generation at 31 MB of a 48 MB limit; why V8 decides so there is not established). The marking took about a
 * fifth of the server's CPU: 296 → 240 µs a request at one client, 294 → 226 at eight, side by side over three rounds,
 * 27–56 full collections in 20,000 requests against 4–6. Saturated, the server never showed it (`bench/README.md`;
 * `npm run bench:gc` measures it). At 50%, RSS after 100,000 mixed requests is 144–145 MB on SQLite (139 at 30%, 151 at
 * 100%, 169 with V8's own factor).
 *
 * Pretenuring (`stint serve`). V8 watches where objects are allocated, and when most of a site's objects survive a
 * young collection it allocates that site's objects in the old generation from then on. Under load a request's
 * objects are often still in flight at a young collection, so V8 decides so for sites on the request path (a list's
 * rows, the response's parts): from then on every request fills the old generation with objects that die within
 * milliseconds, and full collections come several times as often. Off, a list request costs about a quarter less
 * CPU (measured side by side on PostgreSQL: 351 → 261 µs of server CPU a request; `getActiveTimer` 172 → 137).
 */
import * as V8 from "node:v8"

/** The old generation may grow to (1 + GROWTH_PERCENT / 100) times the live heap before a full collection. */
export const GROWTH_PERCENT = 50

/** The flag, unless one of the same name is among `execArgv` (spelled with dashes or underscores, negated or not). */
const unlessChosen = (execArgv: ReadonlyArray<string>, name: string, flag: string): string | undefined => {
  const pattern = new RegExp(`^--(no[-_])?${name.replace(/-/g, "[-_]")}(=|$)`)
  return execArgv.some((arg) => pattern.test(arg)) ? undefined : flag
}

/** The growth flag to set, or `undefined` when the operator chose their own (`node --heap-growing-percent=N …`). */
export const growthFlag = (execArgv: ReadonlyArray<string>): string | undefined =>
  unlessChosen(execArgv, "heap-growing-percent", `--heap-growing-percent=${GROWTH_PERCENT}`)

/**
 * The pretenuring flag to set, or `undefined` when the operator chose for themselves (`node
 * --allocation-site-pretenuring …` turns it back on).
 */
export const pretenuringFlag = (execArgv: ReadonlyArray<string>): string | undefined =>
  unlessChosen(execArgv, "allocation-site-pretenuring", "--no-allocation-site-pretenuring")

const set = (flag: string | undefined): void => {
  if (flag !== undefined) V8.setFlagsFromString(flag)
}

/** Bounds the old generation's growth (a long load: `stint seed`). */
export const bound = (): void => set(growthFlag(process.execArgv))

/** The settings of a serving process: the growth bounded, and pretenuring off. */
export const serving = (): void => {
  bound()
  set(pretenuringFlag(process.execArgv))
}
