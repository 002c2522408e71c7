/**
 * The usual setting of a client test file: one real `stint serve` for the file (seeded with `data`, with `env`), and
 * a fresh fault-injecting proxy in front of it for each test.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest"
import * as FaultProxy from "./FaultProxy.js"
import * as Stint from "./Stint.js"

export interface Live {
  readonly server: Stint.Stint
  readonly proxy: FaultProxy.Proxy
}

/** Registers the hooks; the returned object's fields are set while tests run. */
export const live = (data: unknown, env: Record<string, string> = {}): Live => {
  let server: Stint.Stint | undefined
  let proxy: FaultProxy.Proxy | undefined
  beforeAll(async () => {
    Stint.build()
    server = await Stint.start(data, env)
  })
  afterAll(() => server?.close())
  beforeEach(async () => {
    proxy = await FaultProxy.start(live.server.url)
  })
  afterEach(() => proxy?.close())
  const live: Live = {
    get server() {
      if (server === undefined) throw new Error("the server runs only while tests run")
      return server
    },
    get proxy() {
      if (proxy === undefined) throw new Error("the proxy runs only while a test runs")
      return proxy
    }
  }
  return live
}
