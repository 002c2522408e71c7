/**
 * The scenarios of `../shared/bench/load.mjs`, as scripts for the project's load driver: `timer`, `start`,
 * `startstop`, `list`, the deep page against the first page, and the mixed requests of the memory run. Keys are used
 * in rotation over every user's 64 keys, so each key stays far below the spec's 120 requests a minute.
 */
import type { Keys } from "./Data.js"
import * as Load from "./Load.js"

/** A scenario: what to do once before measuring, and what each connection sends. */
export interface Scenario {
  readonly name: string
  readonly title: string
  readonly setup?: (url: string) => Promise<void>
  readonly script: Load.Script
}

const auth = (key: string) => ({ authorization: `Bearer ${key}` })

/** Rotates over users and their keys; `keyOf(u)` gives the user's next key. */
const rotation = (keys: Keys) => {
  const next = keys.users.map(() => 0)
  let user = 0
  const keyOf = (u: number): string => {
    const own = keys.users[u]?.keys ?? []
    const i = next[u] ?? 0
    next[u] = i + 1
    return own[i % own.length] ?? ""
  }
  return { keyOf, nextUser: () => user++ % keys.users.length }
}

const run = `${Date.now().toString(36)}-${process.pid}`
let idempotency = 0
const nextIdempotencyKey = () => `bench-${run}-${idempotency++}`

const startRequest = (keys: Keys, keyOf: (u: number) => string, u: number): Load.Request => ({
  method: "POST",
  path: "/api/v1/timers/start",
  headers: { ...auth(keyOf(u)), "idempotency-key": nextIdempotencyKey() },
  body: JSON.stringify({ projectId: keys.users[u]?.projectId })
})

const stopStep = (keyOf: (u: number) => string, u: number) => (response: Load.Response): Load.Step | undefined => {
  if (response.status !== 200) return undefined
  const id = (JSON.parse(response.body) as { readonly timer?: { readonly id?: string } }).timer?.id
  return id === undefined ? undefined : {
    request: {
      method: "POST",
      path: `/api/v1/timers/${id}/stop`,
      headers: { ...auth(keyOf(u)), "idempotency-key": nextIdempotencyKey() }
    }
  }
}

/** The users a connection owns (c, c + C, c + 2C, …), so no two of its requests for one user are in flight. */
const owned = (users: number, connections: number) => {
  const turn = new Map<number, number>()
  return (c: number): number => {
    if (users <= connections) return c % users
    const count = Math.floor((users - 1 - c) / connections) + 1
    const t = ((turn.get(c) ?? -1) + 1) % count
    turn.set(c, t)
    return c + t * connections
  }
}

/** The four throughput scenarios. */
export const throughput = (keys: Keys, connections: number): ReadonlyArray<Scenario> => {
  const { keyOf, nextUser } = rotation(keys)
  const ownedUser = owned(keys.users.length, connections)
  return [
    {
      name: "timer",
      title: "getActiveTimer",
      // Every user gets a running timer first, so each GET answers one.
      setup: async (url) => {
        const one = Load.client(url)
        for (let u = 0; u < keys.users.length; u++) await one.send(startRequest(keys, keyOf, u))
        one.close()
      },
      script: () => ({ request: { method: "GET", path: "/api/v1/timer", headers: auth(keyOf(nextUser())) } })
    },
    {
      name: "start",
      title: "startTimer",
      script: (c) => ({ request: startRequest(keys, keyOf, ownedUser(c)) })
    },
    {
      name: "startstop",
      title: "start, then stop",
      script: (c) => {
        const u = ownedUser(c)
        return { request: startRequest(keys, keyOf, u), then: stopStep(keyOf, u) }
      }
    },
    {
      name: "list",
      title: "listTimeEntries, first page",
      script: () => ({ request: { method: "GET", path: "/api/v1/time-entries", headers: auth(keyOf(nextUser())) } })
    }
  ]
}

/**
 * The memory run's mix, in turn on every connection: getActiveTimer, a start and then the stop of that timer,
 * and the first page of the history.
 */
export const mixed = (keys: Keys): Load.Script => {
  const { keyOf, nextUser } = rotation(keys)
  let turn = 0
  return () => {
    const u = nextUser()
    switch (turn++ % 3) {
      case 0:
        return { request: { method: "GET", path: "/api/v1/timer", headers: auth(keyOf(u)) } }
      case 1:
        return { request: startRequest(keys, keyOf, u), then: stopStep(keyOf, u) }
      default:
        return { request: { method: "GET", path: "/api/v1/time-entries", headers: auth(keyOf(u)) } }
    }
  }
}

/** The figures of the deep-page scenario. */
export interface Deep {
  readonly depth: number
  readonly firstP50: number
  readonly deepP50: number
  readonly ratio: number
}

/**
 * Walks the deep user's history in pages of 100 to 90% of its depth, then alternates the first page and that deep
 * page on one connection, `samples` of each, and compares their medians.
 */
export const deep = async (url: string, keys: Keys, samples: number): Promise<Deep | undefined> => {
  if (keys.deep === null) return undefined
  const headers = auth(keys.deep.key)
  const depth = Math.floor((keys.deep.entries * 0.9) / 100) * 100
  const one = Load.client(url)
  let cursor: string | null = null
  for (let seen = 0; seen < depth; seen += 100) {
    const page = await one.send({
      method: "GET",
      path: `/api/v1/time-entries?limit=100${cursor === null ? "" : `&cursor=${cursor}`}`,
      headers
    })
    if (page.status !== 200) throw new Error(`deep walk stopped at ${seen}: HTTP ${page.status} ${page.body.slice(0, 200)}`)
    cursor = (JSON.parse(page.body) as { readonly nextCursor: string | null }).nextCursor
    if (cursor === null) throw new Error(`deep walk: the history ended at ${seen}`)
  }
  const pages = [`/api/v1/time-entries?limit=100`, `/api/v1/time-entries?limit=100&cursor=${cursor}`]
  const times: [Array<number>, Array<number>] = [[], []]
  for (let i = 0; i < 2 * (samples + 5); i++) {
    const begin = performance.now()
    const page = await one.send({ method: "GET", path: pages[i % 2] ?? "", headers })
    if (page.status !== 200) throw new Error(`deep page: HTTP ${page.status}`)
    if (i >= 10) times[i % 2]?.push(performance.now() - begin)
  }
  one.close()
  const [first, deepTimes] = times.map((t) => Load.percentile(t.sort((a, b) => a - b), 50)) as [number, number]
  const round = (x: number) => Math.round(x * 100) / 100
  return { depth, firstP50: round(first), deepP50: round(deepTimes), ratio: round(deepTimes / first) }
}
