// Prints the throughput of startTimer through the core on SQLite (not a test; run after `npx tsc -b`):
//   node adapters/sqlite/bench/startTimer.mjs [requests=2000] [concurrency=1,8,32]
// Each request is a full startTimer: key lookup, rate limit, and the timer transaction (which completes the running
// timer). Requests spread over 32 users, each with its own key, so the rate limit never refuses one.
import { Fixture, Operations, Request, Settings } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const requests = Number(process.argv[2] ?? 2000)
const levels = (process.argv[3] ?? "1,8,32").split(",").map(Number)
const users = 32
const id = (n) => `00000000-0000-7000-8000-${n.toString(16).padStart(12, "0")}`
const key = (n) => `stint_${`bench${n}`.padEnd(43, "x")}`
const workspace = id(1), client = id(2), project = id(3)

const fixture = {
  workspaces: [{ id: workspace, name: "Bench" }],
  users: Array.from({ length: users }, (_, u) => ({ id: id(0x100 + u), name: `U${u}`, email: `u${u}@example.com` })),
  memberships: Array.from({ length: users }, (_, u) => ({ workspaceId: workspace, userId: id(0x100 + u), role: "member" })),
  clients: [{ id: client, workspaceId: workspace, name: "Client" }],
  projects: [{ id: project, clientId: client, name: "Project" }],
  assignments: Array.from({ length: users }, (_, u) => ({ projectId: project, userId: id(0x100 + u) })),
  apiKeys: Array.from({ length: users }, (_, u) => ({ key: key(u), userId: id(0x100 + u), workspaceId: workspace }))
}

const dir = mkdtempSync(join(tmpdir(), "stint-bench-"))
const settings = { ...Settings.defaults, rateLimit: { limit: 1_000_000_000, windowMillis: 60_000 } }

const run = (concurrency) =>
  Effect.gen(function*() {
    const begin = performance.now()
    yield* Effect.forEach(Array.from({ length: requests }, (_, i) => i), (i) =>
      Operations.startTimer({
        authorization: `Bearer ${key(i % users)}`,
        idempotencyKey: `c${concurrency}-${i}`,
        body: Request.json({ projectId: project })
      }), { concurrency, discard: true })
    const seconds = (performance.now() - begin) / 1000
    console.log(`startTimer on SQLite: ${requests} requests, concurrency ${concurrency}: ${(requests / seconds).toFixed(0)} ops/s`)
  })

const program = Effect.gen(function*() {
  yield* Fixture.load(fixture)
  for (const concurrency of levels) yield* run(concurrency)
}).pipe(
  Effect.provideService(Settings.Settings, settings),
  Effect.provide(SqliteStore.layer({ filename: join(dir, "bench.db") }))
)

Effect.runPromise(program).finally(() => rmSync(dir, { recursive: true, force: true }))
