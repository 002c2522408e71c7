/**
 * A TCP proxy in front of PostgreSQL that a test can break: `pass` forwards, `refuse` resets every connection (the
 * database is down), `silent` accepts connections and forwards nothing in either direction (the database or the
 * network hangs).
 */
import { createServer, type Socket } from "node:net"

export type Mode = "pass" | "refuse" | "silent"

export interface Proxy {
  readonly port: number
  /**
   * Round trips so far: the times a client started sending again after the server had answered (pipelined statements
   * sent together, and an answer arriving in pieces, count once).
   */
  readonly roundTrips: () => number
  readonly setMode: (mode: Mode) => void
  readonly close: () => Promise<void>
}

export const start = (target: { readonly host: string; readonly port: number }): Promise<Proxy> =>
  new Promise((resolve, reject) => {
    let mode: Mode = "pass"
    let roundTrips = 0
    const pairs = new Set<readonly [Socket, Socket]>()
    const server = createServer((client) => {
      if (mode === "refuse") return void client.resetAndDestroy()
      const upstream = new (client.constructor as typeof Socket)()
      upstream.connect(target.port, target.host)
      const pair = [client, upstream] as const
      pairs.add(pair)
      let clientTalking = false
      const drop = () => {
        pairs.delete(pair)
        client.destroy()
        upstream.destroy()
      }
      client.on("data", (chunk) => {
        if (!clientTalking) roundTrips++
        clientTalking = true
        if (mode === "pass") upstream.write(chunk)
      })
      upstream.on("data", (chunk) => {
        clientTalking = false
        if (mode === "pass") client.write(chunk)
      })
      client.on("error", drop).on("close", drop)
      upstream.on("error", drop).on("close", drop)
    })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resolve({
        port,
        roundTrips: () => roundTrips,
        setMode: (next) => {
          mode = next
          if (next === "refuse") {
            for (const [client, upstream] of pairs) {
              client.resetAndDestroy()
              upstream.destroy()
            }
            pairs.clear()
          }
        },
        close: () =>
          new Promise((done) => {
            for (const [client, upstream] of pairs) {
              client.destroy()
              upstream.destroy()
            }
            server.close(() => done())
          })
      })
    })
  })
