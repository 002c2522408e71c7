/**
 * A `stint serve --demo` that a benchmark started (`instructions-http.mjs`, `gc.mjs`), seen from the benchmark: its
 * demo key and port read from its standard output, and closed loops of GETs sent to it.
 */
import * as Http from "node:http"
import { createInterface } from "node:readline"

/**
 * The demo key and port of `child` once it prints its listening line. Every line of its standard output goes to
 * `onLine` as well (the lines after the listening line too: one a request, V8's traces). `key` is the key to use when
 * the server prints none: a database seeded by an earlier server. Fails when the server exits first (`exited`
 * resolves with how it ended) or printed no key before the listening line and none was given.
 */
export const whenListening = (child, exited, { key, onLine } = {}) =>
  new Promise((resolve, reject) => {
    let printed
    createInterface({ input: child.stdout }).on("line", (line) => {
      onLine?.(line)
      printed ??= /^demo: API key \(shown once, keep it\): (\S+)$/.exec(line)?.[1]
      const port = /^listening on http:\/\/[^\s]+:(\d+)$/.exec(line)?.[1]
      if (port === undefined) return
      const chosen = printed ?? key
      if (chosen === undefined) reject(new Error("no demo key before the listening line"))
      else resolve({ key: chosen, port: Number(port) })
    })
    exited.then((how) => reject(new Error(`stint serve ended (${how}) before listening`)))
  })

/**
 * Sends `count` GETs of `path` with `key` to the server on `port`, over `connections` keep-alive connections, each
 * sending its next request once the last one is answered; fails on any answer but 200.
 */
export const sendGets = async ({ port, key, path, connections, count }) => {
  const agent = new Http.Agent({ keepAlive: true, maxSockets: connections })
  const get = () =>
    new Promise((resolve, reject) => {
      Http.get(
        { host: "127.0.0.1", port, path, agent, headers: { authorization: `Bearer ${key}` } },
        (response) => {
          response.resume()
          response.once("end", () => resolve(response.statusCode))
        }
      ).once("error", reject)
    })
  let sent = 0
  const worker = async () => {
    while (sent < count) {
      sent++
      const status = await get()
      if (status !== 200) throw new Error(`GET ${path} answered ${status}`)
    }
  }
  try {
    await Promise.all(Array.from({ length: connections }, worker))
  } finally {
    agent.destroy()
  }
}
