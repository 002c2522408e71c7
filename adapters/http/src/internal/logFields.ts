/**
 * Fields an observer adds to a request's log line that can write themselves into the line's annotations: the pipeline
 * calls `[addTo]` instead of copying them one by one in a `for…in`.
 *
 * Every traced request adds its trace and span ids to its line. A `for…in` over them makes keyed loads and stores that
 * V8 cannot specialize (two names at one site), and looks each name up again: with the escaping of the ids, about 1.5%
 * of the instructions of the cheapest request on SQLite (valgrind's count; see the Cost section of the README).
 * Written as named properties, the stores are the same few every time.
 */

/** The method that writes a `LogFields` into annotations (a symbol: not a field, not seen by `for…in`). */
export const addTo: unique symbol = Symbol("@stint/http/logFields/addTo")

/**
 * Fields (their own enumerable properties, all strings) that `[addTo]` writes into a log line's annotations, each
 * under its own name, in the order of the properties (as a `for…in` copy would).
 */
export abstract class LogFields {
  abstract [addTo](annotations: Record<string, unknown>): void
}
