/**
 * Shared test material: a database of this test file's own on the run's PostgreSQL server, the store on it, a
 * backdoor that reads and writes the tables with plain SQL (never through the adapter), and a small world of
 * workspaces, people, projects and keys with fresh ids, so tests sharing a database never see each other's rows.
 */
import type { Stack } from "@stint/conformance"
import { Fixture, Request, type Store } from "@stint/core"
import { PgStore } from "@stint/postgres"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"
import pg from "pg"
import { freshDatabaseScoped } from "../../../testing/postgres.js"
import { type PoolSettings, REPLAN_AFTER_MILLIS } from "../src/internal/Database.js"

/** The database under test, and plain SQL on it. */
export class TestDatabase extends Context.Tag("test/TestDatabase")<TestDatabase, {
  readonly url: string
  readonly name: string
  /** Runs one statement through a connection of the backdoor's own. */
  readonly sql: <A extends Record<string, unknown> = Record<string, unknown>>(
    text: string,
    values?: ReadonlyArray<unknown>
  ) => Effect.Effect<ReadonlyArray<A>>
}>() {}

/** A fresh database (dropped afterwards) with a backdoor pool on it. */
export const databaseLayer: Layer.Layer<TestDatabase> = Layer.scoped(
  TestDatabase,
  Effect.gen(function*() {
    const database = yield* freshDatabaseScoped
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const pool = new pg.Pool({ connectionString: database.url, max: 3 })
        pool.on("error", () => undefined)
        return pool
      }),
      (pool) => Effect.promise(() => pool.end())
    )
    return {
      url: database.url,
      name: database.name,
      sql: <A extends Record<string, unknown>>(text: string, values: ReadonlyArray<unknown> = []) =>
        Effect.promise(() => pool.query<A>(text, [...values]).then((result) => result.rows))
    }
  })
)

/** The settings of a pool of one connection on `url`, for tests that run the adapter's statements themselves. */
export const onePool = (url: string): PoolSettings => ({
  url,
  poolSize: 1,
  connectTimeoutMillis: 5_000,
  statementTimeoutMillis: 5_000,
  replanAfterMillis: REPLAN_AFTER_MILLIS
})

/**
 * The store on the test database, and the database. Pools are small unless a test asks for more, so that test files
 * running in parallel stay well within a server's `max_connections` (100 by default).
 */
export const storeLayer = (options: Omit<PgStore.Options, "url"> = {}): Layer.Layer<Store.Store | TestDatabase, unknown> =>
  Layer.provideMerge(
    Layer.unwrapEffect(Effect.map(TestDatabase, (db) => PgStore.layer({ poolSize: 4, ...options, url: db.url }))),
    databaseLayer
  )

/** A well-formed API key with a recognisable start. */
export const apiKey = (name: string): string => `stint_${name}_${randomUUID().replace(/-/g, "")}`

/** Fresh ids and keys for one test, and the fixture that creates them. */
export const makeWorld = () => {
  const id = () => randomUUID()
  const ids = {
    workspace: id(),
    otherWorkspace: id(),
    owner: id(),
    member: id(),
    removed: id(),
    /** Active; one project assigned to the member. */
    globex: id(),
    /** Archived. */
    initech: id(),
    /** Active; nothing assigned to the member. */
    umbrella: id(),
    /** In the other workspace. */
    hooli: id(),
    /** Globex; owner at 7500, member at the membership's 3000. */
    website: id(),
    /** Globex, archived; assigned to the member. */
    oldSite: id(),
    /** Under archived Initech; assigned to the member. */
    initechApp: id(),
    /** Umbrella; owner only. */
    vaccine: id(),
    /** Hooli in the other workspace; owner. */
    piper: id(),
    keys: { owner: id(), member: id(), readOnly: id(), revoked: id(), expired: id(), removed: id(), other: id() }
  }
  const keys = {
    owner: apiKey("owner"),
    member: apiKey("member"),
    readOnly: apiKey("readonly"),
    revoked: apiKey("revoked"),
    expired: apiKey("expired"),
    removed: apiKey("removed"),
    other: apiKey("other")
  }
  const fixture = {
    workspaces: [{ id: ids.workspace, name: "Acme" }, { id: ids.otherWorkspace, name: "Other" }],
    users: [
      { id: ids.owner, name: "Ada", email: "ada@example.com" },
      { id: ids.member, name: "Bob", email: "bob@example.com" },
      { id: ids.removed, name: "Cy", email: "cy@example.com" }
    ],
    memberships: [
      { workspaceId: ids.workspace, userId: ids.owner, role: "owner", payRateCents: 5000 },
      { workspaceId: ids.workspace, userId: ids.member, role: "member", payRateCents: 3000 },
      { workspaceId: ids.otherWorkspace, userId: ids.owner, role: "member" }
    ],
    clients: [
      { id: ids.globex, workspaceId: ids.workspace, name: "Globex", color: "#0A0B0C" },
      { id: ids.initech, workspaceId: ids.workspace, name: "Initech", archived: true },
      { id: ids.umbrella, workspaceId: ids.workspace, name: "umbrella" },
      { id: ids.hooli, workspaceId: ids.otherWorkspace, name: "Hooli" }
    ],
    projects: [
      { id: ids.website, clientId: ids.globex, name: "Website", color: "#123abc" },
      { id: ids.oldSite, clientId: ids.globex, name: "Old site", archived: true },
      { id: ids.initechApp, clientId: ids.initech, name: "App" },
      { id: ids.vaccine, clientId: ids.umbrella, name: "Vaccine" },
      { id: ids.piper, clientId: ids.hooli, name: "Piper" }
    ],
    assignments: [
      { projectId: ids.website, userId: ids.owner, payRateCents: 7500 },
      { projectId: ids.website, userId: ids.member },
      { projectId: ids.oldSite, userId: ids.member },
      { projectId: ids.initechApp, userId: ids.member },
      { projectId: ids.vaccine, userId: ids.owner },
      { projectId: ids.piper, userId: ids.owner }
    ],
    apiKeys: [
      { id: ids.keys.owner, key: keys.owner, userId: ids.owner, workspaceId: ids.workspace },
      { id: ids.keys.member, key: keys.member, userId: ids.member, workspaceId: ids.workspace },
      { id: ids.keys.readOnly, key: keys.readOnly, userId: ids.owner, workspaceId: ids.workspace, scopes: ["timers:read"] },
      { id: ids.keys.revoked, key: keys.revoked, userId: ids.owner, workspaceId: ids.workspace, revoked: true },
      {
        id: ids.keys.expired,
        key: keys.expired,
        userId: ids.owner,
        workspaceId: ids.workspace,
        createdAt: new Date(Date.now() - 366 * 24 * 3600 * 1000).toISOString()
      },
      { id: ids.keys.removed, key: keys.removed, userId: ids.removed, workspaceId: ids.workspace },
      { id: ids.keys.other, key: keys.other, userId: ids.owner, workspaceId: ids.otherWorkspace }
    ]
  }
  return { ids, keys, fixture }
}

/** A world, loaded through the core's fixture loader. */
export const seedWorld = (extra: Partial<Record<string, ReadonlyArray<unknown>>> = {}) =>
  Effect.gen(function*() {
    const world = makeWorld()
    const merged: Record<string, ReadonlyArray<unknown>> = { ...world.fixture }
    for (const [name, rows] of Object.entries(extra)) merged[name] = [...(merged[name] ?? []), ...(rows ?? [])]
    yield* Fixture.load(merged)
    return world
  })

/** A request authenticated with `key`. */
export const as = (key: string, rest: Omit<Request.ApiRequest, "authorization"> = {}): Request.ApiRequest => ({
  authorization: `Bearer ${key}`,
  ...rest
})

/** A startTimer request. */
export const start = (key: string, idempotencyKey: string, body: Record<string, unknown>): Request.ApiRequest =>
  as(key, { idempotencyKey, body: Request.json(body) })

/** A stopTimer request. */
export const stop = (key: string, idempotencyKey: string, timerId: string): Request.ApiRequest =>
  as(key, { idempotencyKey, path: { timerId } })

/** The conformance kit's backdoor: the tables read, and entries written past the adapter, with plain SQL. */
export const kitBackdoor = (db: TestDatabase["Type"]): Stack.Backdoor => ({
  activeEntryIds: (workspaceId, userId) =>
    Effect.map(
      db.sql<{ id: string }>(
        "SELECT id FROM time_entries WHERE workspace_id = $1 AND user_id = $2 AND status = 'active'",
        [workspaceId, userId]
      ),
      (rows) => rows.map((row) => row.id)
    ),
  entryCount: (workspaceId, userId) =>
    Effect.map(
      db.sql<{ count: number }>(
        "SELECT count(*)::int AS count FROM time_entries WHERE workspace_id = $1 AND user_id = $2",
        [workspaceId, userId]
      ),
      (rows) => rows[0]?.count ?? 0
    ),
  insertEntry: (row) =>
    Effect.catchAllDefect(
      Effect.as(
        db.sql(
          `INSERT INTO time_entries (id, workspace_id, user_id, project_id, status, billable, note, started_at, ended_at,
            pay_rate_cents) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [row.id, row.workspaceId, row.userId, row.projectId, row.status, row.billable, row.note, row.startedAt,
            row.endedAt, row.payRateCents]
        ),
        "stored" as const
      ),
      // unique_violation; anything else stays the defect it is.
      (defect) => (defect as { readonly code?: unknown }).code === "23505" ? Effect.succeed("refused" as const) : Effect.die(defect)
    )
})
