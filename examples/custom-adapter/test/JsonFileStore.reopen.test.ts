/**
 * What the kit cannot see: the journal outlives the process. A store reopened on the same file answers as before,
 * keeps its cursor secret, and survives a torn last line.
 */
import { it } from "@effect/vitest"
import { type Records, Store } from "@stint/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { randomUUID } from "node:crypto"
import { appendFileSync, mkdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, expect } from "vitest"
import { JsonFileStore } from "../src/index.js"

// Made when the file's tests run, not when it is loaded: a run that filters them all out leaves nothing behind.
const dir = join(tmpdir(), `json-file-store-reopen-${randomUUID()}`)
beforeAll(() => mkdirSync(dir))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const scope: Records.UserScope = {
  workspaceId: "0190b5a0-0000-7000-8000-000000000001",
  userId: "0190b5a0-0000-7000-8000-000000000002"
}
const clientId = "0190b5a0-0000-7000-8000-000000000003"
const projectId = "0190b5a0-0000-7000-8000-000000000004"
const dataset: Records.Dataset = {
  workspaces: [{ id: scope.workspaceId, name: "Acme" }],
  users: [{ id: scope.userId, name: "Ada", email: "ada@example.com" }],
  memberships: [{ ...scope, role: "owner", payRateCents: 5000 }],
  clients: [{ id: clientId, workspaceId: scope.workspaceId, name: "Globex", color: "#123abc", archived: false }],
  projects: [
    { id: projectId, workspaceId: scope.workspaceId, clientId, name: "Web", color: "#ff5c35", archived: false }
  ],
  assignments: [{ projectId, userId: scope.userId, payRateCents: 7500 }],
  apiKeys: [],
  timeEntries: []
}
const entry: Records.EntryRow = {
  id: "0190b5a0-0000-7000-8000-000000000005",
  ...scope,
  projectId,
  status: "active",
  billable: true,
  note: "with a line\nbreak",
  startedAt: 1_767_000_000_000,
  endedAt: null,
  payRateCents: 7500
}

/** Runs `f` against a store opened on `filename`, closing it afterwards. */
const withStore = <A, E>(filename: string, f: (store: Store.Store["Type"]) => Effect.Effect<A, E>) =>
  Effect.scoped(Effect.flatMap(Layer.build(JsonFileStore.layer({ filename })), (context) =>
    f(Context.get(context, Store.Store))))

it.effect("a reopened store answers from the journal, with the same cursor secret", () =>
  Effect.gen(function*() {
    const filename = join(dir, "reopen.jsonl")
    const first = yield* withStore(filename, (store) =>
      Effect.gen(function*() {
        yield* store.admin.insert(dataset)
        yield* store.withTimerTransaction(scope, (tx) => tx.write({ insert: entry }))
        return yield* store.cursorSecret
      }))
    const [active, secret] = yield* withStore(filename, (store) =>
      Effect.all([store.findActiveEntry(scope), store.cursorSecret]))
    expect(Option.map(active, (e) => [e.id, e.note, e.projectName, e.clientName])).toEqual(
      Option.some([entry.id, entry.note, "Web", "Globex"])
    )
    expect(secret).toEqual(first)
  }))

it.effect("a transaction whose body fails writes nothing, not even after a reopen", () =>
  Effect.gen(function*() {
    const filename = join(dir, "rollback.jsonl")
    const outcome = yield* withStore(filename, (store) =>
      Effect.gen(function*() {
        yield* store.admin.insert(dataset)
        return yield* Effect.either(store.withTimerTransaction(scope, (tx) =>
          Effect.zipRight(tx.write({ insert: entry }), Effect.fail("body failed"))))
      }))
    expect(outcome._tag).toBe("Left")
    const active = yield* withStore(filename, (store) => store.findActiveEntry(scope))
    expect(Option.isNone(active)).toBe(true)
  }))

it.effect("a torn last line (a crash mid-write) is cut off, and later lines stay readable", () =>
  Effect.gen(function*() {
    const filename = join(dir, "torn.jsonl")
    yield* withStore(filename, (store) => store.admin.insert(dataset))
    appendFileSync(filename, "{\"kind\":\"timer\",\"scope\":{\"worksp")
    yield* withStore(filename, (store) => store.withTimerTransaction(scope, (tx) => tx.write({ insert: entry })))
    expect(readFileSync(filename, "utf8").split("\n").filter((line) => line !== "")).toHaveLength(2)
    const active = yield* withStore(filename, (store) => store.findActiveEntry(scope))
    expect(Option.map(active, (e) => e.id)).toEqual(Option.some(entry.id))
  }))
