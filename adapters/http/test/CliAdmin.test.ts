/**
 * The operators' commands against a running server on the same SQLite file: records created from the command line
 * are usable over HTTP, a created key works and a revoked one gets 401, archiving, removing a membership, voiding and
 * moving an entry; refusals print one line and exit 1.
 */
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { build, serve, type Serving, stint, stintJson, tempDir } from "./CliHarness.js"

const dir = tempDir()
const database = `sqlite:${join(dir.path, "admin.db")}`
const db = ["--database", database]
let server: Serving | undefined
let url = ""

beforeAll(async () => {
  build()
  await stintJson(["migrate", ...db])
  server = await serve(["--port", "0", ...db])
  url = server.url
})
afterAll(() => {
  server?.kill()
  dir.remove()
})

const call = async (key: string, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${url}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers }
  })
  return { status: response.status, body: await response.json() as Record<string, unknown> }
}
const startTimer = (key: string, projectId: string, idempotencyKey: string) =>
  call(key, "/timers/start", {
    method: "POST",
    headers: { "idempotency-key": idempotencyKey },
    body: JSON.stringify({ projectId })
  })

const expectRefused = async (args: ReadonlyArray<string>, pattern: RegExp) => {
  const result = await stint([...args, ...db])
  expect(result.code, result.stderr).toBe(1)
  expect(result.stdout).toBe("")
  expect(result.stderr.trim().split("\n")).toHaveLength(1)
  expect(result.stderr.trim()).toMatch(pattern)
}

describe("records created from the command line", () => {
  const world = { workspace: "", owner: "", member: "", client: "", project: "", ownerKey: "", memberKey: "" }

  beforeAll(async () => {
    const workspace = await stintJson(["workspaces", "create", "--name", "Initech", ...db]) as { id: string; name: string }
    expect(workspace.name).toBe("Initech")
    world.workspace = workspace.id
    world.owner = (await stintJson(["users", "create", "--name", "Peter", "--email", "peter@example.com", ...db]) as {
      id: string
    }).id
    const memberId = "0190b000-0000-7000-8000-00000000000A"
    const member = await stintJson([
      "users", "create", "--id", memberId, "--name", "Milton", "--email", "milton@example.com", ...db
    ]) as { id: string }
    expect(member.id).toBe(memberId.toLowerCase())
    world.member = member.id
    expect(
      await stintJson([
        "memberships", "add", "--workspace", world.workspace, "--user", world.owner, "--role", "owner",
        "--pay-rate-cents", "6000", ...db
      ])
    ).toEqual({ workspaceId: world.workspace, userId: world.owner, role: "owner", payRateCents: 6000 })
    await stintJson(["memberships", "add", "--workspace", world.workspace, "--user", world.member, "--role", "member", ...db])
    const client = await stintJson([
      "clients", "create", "--workspace", world.workspace, "--name", "Initrode", "--color", "#0A0B0C", ...db
    ]) as { id: string }
    world.client = client.id
    world.project = (await stintJson(["projects", "create", "--client", world.client, "--name", "TPS", ...db]) as {
      id: string
    }).id
    // Printed as stored: without a rate, the membership's default (6000); ids lowercased as given in any case.
    expect(await stintJson(["assignments", "add", "--project", world.project.toUpperCase(), "--user", world.owner, ...db]))
      .toEqual({ projectId: world.project, userId: world.owner, payRateCents: 6000 })
    expect(
      await stintJson([
        "assignments", "add", "--project", world.project, "--user", world.member, "--pay-rate-cents", "100", ...db
      ])
    ).toEqual({ projectId: world.project, userId: world.member, payRateCents: 100 })
    // A rate in decimal digits only: `0x10` or `1e3` would store 16 or 1000 without a word.
    for (const rate of ["0x10", "1e3", "-1", "2147483648"]) {
      const refused = await stint([
        "assignments", "add", "--project", world.project, "--user", world.member, "--pay-rate-cents", rate, ...db
      ])
      expect(refused.code, rate).toBe(2)
      expect(refused.stderr).toBe(`stint: --pay-rate-cents must be an integer from 0 to 2147483647, got "${rate}"\n`)
    }
    const created = await stint(["keys", "create", "--user", world.owner, "--workspace", world.workspace, ...db])
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toMatch(/^stint_[A-Za-z0-9_-]{43}\n$/)
    world.ownerKey = created.stdout.trim()
    const memberKey = await stintJson([
      "keys", "create", "--user", world.member, "--workspace", world.workspace, "--json", ...db
    ]) as { id: string; key: string; scopes: Array<string> }
    expect(memberKey.scopes).toEqual(["clients:read", "projects:read", "projects:write", "timers:read", "timers:write"])
    world.memberKey = memberKey.key
  })

  it("are served: the owner sees the client with its color as stored, and can create projects", async () => {
    const { body, status } = await call(world.ownerKey, "/clients")
    expect(status).toBe(200)
    expect(body).toEqual({ clients: [{ id: world.client, name: "Initrode", color: "#0A0B0C" }], canCreateProjects: true })
  })

  it("keys list shows every key without its secret; keys revoke makes a working key 401", async () => {
    const { apiKeys } = await stintJson(["keys", "list", "--workspace", world.workspace, ...db]) as {
      apiKeys: Array<{ id: string; userId: string; revokedAt: string | null }>
    }
    expect(apiKeys.map((k) => k.userId).sort()).toEqual([world.owner, world.member].sort())
    expect(JSON.stringify(apiKeys)).not.toContain("stint_")

    const spare = (await stint(["keys", "create", "--user", world.owner, "--workspace", world.workspace, ...db])).stdout
      .trim()
    expect((await call(spare, "/timer")).status).toBe(200)
    const { apiKeys: owned } = await stintJson(["keys", "list", "--user", world.owner, ...db]) as {
      apiKeys: Array<{ id: string; revokedAt: string | null }>
    }
    expect(owned).toHaveLength(2)
    const before = new Set(apiKeys.map((k) => k.id))
    const spareId = owned.find((k) => !before.has(k.id))?.id ?? ""
    const revoking = Date.now()
    expect(await stintJson(["keys", "revoke", "--key-id", spareId, ...db])).toEqual({ id: spareId, revoked: true })
    const revoked = Date.now()
    // Listed again, the revoked key says when, as a timestamp like every other the CLI prints; the other key has none.
    const { apiKeys: listed } = await stintJson(["keys", "list", "--user", world.owner, ...db]) as {
      apiKeys: Array<{ id: string; createdAt: string; revokedAt: string | null }>
    }
    const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/
    const spareListed = listed.find((k) => k.id === spareId)
    expect(spareListed?.createdAt).toMatch(iso)
    expect(spareListed?.revokedAt).toMatch(iso)
    expect(Date.parse(spareListed?.revokedAt ?? "")).toBeGreaterThanOrEqual(revoking - 1)
    expect(Date.parse(spareListed?.revokedAt ?? "")).toBeLessThanOrEqual(revoked)
    expect(listed.filter((k) => k.id !== spareId).map((k) => k.revokedAt)).toEqual([null])
    const refused = await call(spare, "/timer")
    expect(refused.status).toBe(401)
    expect(refused.body).toMatchObject({ error: { code: "INVALID_API_KEY" } })
    // The owner's other key still works.
    expect((await call(world.ownerKey, "/timer")).status).toBe(200)
  })

  it("entries move-start and entries void change an entry; voiding twice is refused", async () => {
    const started = await startTimer(world.ownerKey, world.project, "cli-void-1")
    expect(started.status).toBe(200)
    const timer = started.body["timer"] as { id: string }
    const moved = await stintJson([
      "entries", "move-start", "--id", timer.id, "--started-at", "2026-01-02T09:00:00+01:00", ...db
    ]) as { startedAt: string; status: string }
    expect(moved).toMatchObject({ startedAt: "2026-01-02T08:00:00.000Z", status: "active" })
    const voided = await stintJson(["entries", "void", "--id", timer.id, ...db]) as { status: string; endedAt: string }
    expect(voided.status).toBe("voided")
    expect(voided.endedAt).not.toBeNull()
    const stop = await call(world.ownerKey, `/timers/${timer.id}/stop`, {
      method: "POST",
      headers: { "idempotency-key": "cli-void-stop" }
    })
    expect(stop.status).toBe(409)
    expect(stop.body).toMatchObject({ error: { code: "TIMER_VOIDED" } })
    await expectRefused(["entries", "void", "--id", timer.id], new RegExp(`^stint: --id: entry ${timer.id} already voided$`))
    await expectRefused(
      ["entries", "move-start", "--id", timer.id, "--started-at", "yesterday"],
      /^stint: --started-at: /
    )
  })

  it("archiving a project or its client makes it not ready for tracking; unarchiving restores it", async () => {
    const archived = await stintJson(["projects", "archive", "--id", world.project, ...db])
    expect(archived).toEqual({ entity: "project", id: world.project, archived: true })
    expect((await startTimer(world.ownerKey, world.project, "cli-archive-1")).status).toBe(404)
    await stintJson(["projects", "unarchive", "--id", world.project, ...db])
    expect((await startTimer(world.ownerKey, world.project, "cli-archive-2")).status).toBe(200)

    await stintJson(["clients", "archive", "--id", world.client, ...db])
    expect((await call(world.ownerKey, "/clients")).body["clients"]).toEqual([])
    expect((await startTimer(world.ownerKey, world.project, "cli-archive-3")).status).toBe(404)
    await stintJson(["clients", "unarchive", "--id", world.client, ...db])
    expect((await call(world.ownerKey, "/clients")).body["clients"]).toHaveLength(1)
  })

  it("removing a membership makes the member's keys 401 at once and revokes them: adding it back revives none", async () => {
    expect((await call(world.memberKey, "/timer")).status).toBe(200)
    expect(
      await stintJson([
        "memberships", "remove", "--workspace", world.workspace.toUpperCase(), "--user", world.member, ...db
      ])
    ).toEqual({ workspaceId: world.workspace, userId: world.member, removed: true, keysRevoked: 1 })
    expect((await call(world.memberKey, "/timer")).status).toBe(401)
    await expectRefused(
      ["memberships", "remove", "--workspace", world.workspace, "--user", world.member],
      new RegExp(`^stint: membership \\(--workspace --user\\) ${world.workspace} ${world.member} not found$`)
    )
    await stintJson(["memberships", "add", "--workspace", world.workspace, "--user", world.member, "--role", "member", ...db])
    expect((await call(world.memberKey, "/timer")).status).toBe(401)
    const { apiKeys } = await stintJson(["keys", "list", "--user", world.member, ...db]) as {
      apiKeys: Array<{ revokedAt: string | null }>
    }
    expect(apiKeys).toHaveLength(1)
    expect(apiKeys[0]?.revokedAt).not.toBeNull()
    // A new key works for the member added back.
    const fresh = (await stint(["keys", "create", "--user", world.member, "--workspace", world.workspace, ...db])).stdout
    expect((await call(fresh.trim(), "/timer")).status).toBe(200)
  })

  it("refuses what breaks a rule, in one line naming the flag, with exit 1", async () => {
    // A record a command names that is not there is said by its flag, not by the store's name for it (`apiKey`).
    await expectRefused(
      ["keys", "revoke", "--key-id", "0190b000-0000-7000-8000-0000000000ff"],
      /^stint: --key-id: API key 0190b000-0000-7000-8000-0000000000ff not found$/
    )
    await expectRefused(
      ["entries", "void", "--id", "0190b000-0000-7000-8000-0000000000fa"],
      /^stint: --id: entry 0190b000-0000-7000-8000-0000000000fa not found$/
    )
    await expectRefused(
      ["workspaces", "create", "--id", world.workspace, "--name", "Again"],
      /^stint: --id: .*already exists/
    )
    await expectRefused(
      ["keys", "create", "--user", world.owner, "--workspace", "0190b000-0000-7000-8000-0000000000fe"],
      /^stint: --workspace: unknown workspace$/
    )
    // Each refusal names the flag that gave the value, not a path inside a fixture the operator never wrote.
    await expectRefused(
      ["keys", "create", "--user", "0190b000-0000-7000-8000-0000000000fc", "--workspace", world.workspace],
      /^stint: --user: unknown user$/
    )
    await expectRefused(
      ["assignments", "add", "--project", "0190b000-0000-7000-8000-0000000000fb", "--user", world.owner],
      /^stint: --project: unknown project$/
    )
    await expectRefused(
      ["projects", "archive", "--id", "0190b000-0000-7000-8000-0000000000fd"],
      /^stint: --id: project 0190b000-0000-7000-8000-0000000000fd not found$/
    )
    // A role not among the three is a bad command line (exit 2), named by its flag.
    const role = await stint(["memberships", "add", "--workspace", world.workspace, "--user", world.owner, "--role", "boss", ...db])
    expect({ code: role.code, stdout: role.stdout, stderr: role.stderr })
      .toEqual({ code: 2, stdout: "", stderr: "stint: --role must be owner, admin or member, got \"boss\"\n" })
    // A record that exists already is named by its kind and flags.
    await expectRefused(
      ["memberships", "add", "--workspace", world.workspace, "--user", world.owner, "--role", "member"],
      /^stint: membership \(--workspace --user\) \S+ \S+ already exists$/
    )
  })
})
