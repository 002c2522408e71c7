/**
 * Fields an observer adds to a request's log line that can write themselves into the line's annotations: the pipeline
 * calls `[addTo]` instead of copying them one by one in a `for…in`.
 *
 * Every traced request adds its trace and span ids to its line. A `for…in` over them makes keyed loads and stores that
 * V8 cannot specialize (two names at one site) and looks each name up again in the runtime: about 1% of the
 * instructions of the cheapest request on SQLite (valgrind's count: `npm run bench:instructions`). Written as named
 * properties, the stores are the same two every time.
 */

/** The method that writes a `LogFields` into annotations (a symbol: not a field, not seen by `for…in`). */
export const addTo: unique symbol = Symbol("@stint/http/logFields/addTo")

/**
 * Fields (their own enumerable properties, all strings, never changed once made) that `[addTo]` writes into a log
 * line's annotations, each under its own name, in the order of the properties: what a `for…in` copy writes.
 */
export abstract class LogFields {
  abstract [addTo](annotations: Record<string, unknown>): void
}
