/**
 * The `stint` binary's one-shot commands on SQLite: help, usage errors, database addresses, migrate, seed (and the
 * refusal of an invalid fixture without writing anything).
 */
import { spawn } from "node:child_process"
import { closeSync, existsSync, openSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bin, build, stint, stintJson, tempDir } from "./CliHarness.js"
import { dumpSqlite, fixture, ids, ownerKey, writeJson } from "./CliFixture.js"

const dir = tempDir()
beforeAll(build)
afterAll(dir.remove)

let counter = 0
const freshDb = () => join(dir.path, `db-${++counter}.db`)

/** A failure prints exactly one line on stderr, without a stack trace or an Effect cause. */
const expectOneLineError = (stderr: string, pattern: RegExp) => {
  const lines = stderr.split("\n").filter((line) => line.length > 0)
  expect(lines, stderr).toHaveLength(1)
  expect(lines[0]).toMatch(pattern)
  expect(stderr).not.toMatch(/\bat .*\.js:\d+|FiberFailure|\[cause\]|Error: /)
}

describe("help", () => {
  // Help on every command is checked in process (CliHelp.test.ts); here, through the binary.
  it("stint --help and a subcommand's --help print usage on stdout and exit 0", async () => {
    for (const command of [[], ["keys", "create"]]) {
      const result = await stint([...command, "--help"])
      expect(result.code, command.join(" ")).toBe(0)
      expect(result.stderr).toBe("")
      expect(result.stdout).toContain("USAGE")
      expect(result.stdout).toMatch(new RegExp(`^\\$ ${["stint", ...command].join(" ")}( |$)`, "m"))
      // Written to a pipe, not a terminal: no colour codes.
      expect(result.stdout).not.toContain("\u001b[")
      // Ending with one line break, no empty line after it.
      expect(result.stdout).toMatch(/[^\n]\n$/)
    }
    const version = await stint(["--version"])
    expect([version.code, version.stdout, version.stderr]).toEqual([0, "0.1.0\n", ""])
  })
})

describe("usage errors", () => {
  it("an unknown command, a missing option, a bad value: exit 2 and one line on stderr", async () => {
    const unknown = await stint(["frobnicate"])
    expect(unknown.code).toBe(2)
    expectOneLineError(unknown.stderr, /^stint: /)

    const missing = await stint(["keys", "create", "--user", ids.owner, "--database", `sqlite:${freshDb()}`])
    expect(missing.code).toBe(2)
    expectOneLineError(missing.stderr, /--workspace/)

    const badUuid = await stint(["keys", "revoke", "--key-id", "nope", "--database", `sqlite:${freshDb()}`])
    expect(badUuid.code).toBe(2)
    expectOneLineError(badUuid.stderr, /^stint: /)

    const badPort = await stint(["serve", "--port", "70000", "--database", `sqlite:${freshDb()}`])
    expect(badPort.code).toBe(2)
    expectOneLineError(badPort.stderr, /65535/)
  })

  it("a group without its subcommand points at its help", async () => {
    const result = await stint(["keys"])
    expect(result.code).toBe(2)
    expectOneLineError(result.stderr, /stint keys --help/)
  })

  it("an unsupported database address is refused in one line, naming the accepted forms", async () => {
    for (const url of ["mysql://root@localhost/db", "sqlite:", "postgres://user:s3cret@[bad"]) {
      const result = await stint(["migrate", "--database", url])
      expect(result.code, url).toBe(2)
      expectOneLineError(result.stderr, /invalid database address/)
      expect(result.stderr).not.toContain("s3cret")
    }
  })

  it("invalid PostgreSQL pool settings are refused in one line before connecting", async () => {
    const settings = [["STINT_PG_POOL_SIZE", "abc"], ["STINT_PG_CONNECT_TIMEOUT_MS", "0"], ["STINT_PG_STATEMENT_TIMEOUT_MS", "-5"]] as const
    for (const [name, value] of settings) {
      // Port 1 on loopback: if the setting were not checked first, the error would be about connecting instead.
      const result = await stint(["migrate", "--database", "postgres://nobody@127.0.0.1:1/none"], { env: { [name]: value } })
      expect(result.code).toBe(2)
      expectOneLineError(result.stderr, new RegExp(`^stint: .*${name}`))
    }
  })

  it("a key pasted where an id goes is not echoed back", async () => {
    const result = await stint(["keys", "revoke", "--key-id", ownerKey, "--database", `sqlite:${freshDb()}`])
    expect(result.code).toBe(2)
    expectOneLineError(result.stderr, /^stint: --key-id must be a UUID, got "stint_\[redacted\]"$/)
  })

  it("an invalid STINT_PORT is a usage error", async () => {
    const result = await stint(["serve", "--database", `sqlite:${freshDb()}`], { env: { STINT_PORT: "eighty" } })
    expect(result.code).toBe(2)
    expectOneLineError(result.stderr, /^stint: /)
  })

  it("an empty, hexadecimal or exponent port (STINT_PORT or flag) and an empty host are refused, not read as another address", async () => {
    const db = `sqlite:${freshDb()}`
    for (const env of [{ STINT_PORT: "" }, { STINT_PORT: " 0x10 " }, { STINT_PORT: "1e3" }, { STINT_PORT: "65536" }, { STINT_METRICS_PORT: "" }, { STINT_HOST: "" }]) {
      const result = await stint(["serve", ...("STINT_PORT" in env ? [] : ["--port", "0"]), "--database", db], { env })
      expect(result.code, JSON.stringify(env)).toBe(2)
      expectOneLineError(result.stderr, /^stint: .*(STINT_PORT|STINT_METRICS_PORT|STINT_HOST)/)
    }
    // The flags likewise: `Options.integer` would read each of these as a number (16, 1000, 80, 0, 0).
    for (const [flag, value] of [["--port", "0x10"], ["--port", "1e3"], ["--port", " 80"], ["--port", "+0"], ["--port", "0.0"],
      ["--port", ""], ["--port", "65536"], ["--metrics-port", "0x10"]] as const) {
      const result = await stint(["serve", ...(flag === "--port" ? [] : ["--port", "0"]), flag, value, "--database", db])
      expect(result.code, `${flag} ${value}`).toBe(2)
      expect(result.stderr).toBe(`stint: ${flag} must be an integer from 0 to 65535, got ${JSON.stringify(value)}\n`)
    }
    const blankHost = await stint(["serve", "--host", "", "--port", "0", "--database", db])
    expect(blankHost.code).toBe(2)
    expectOneLineError(blankHost.stderr, /^stint: --host must be an address, not empty/)
  })
})

describe("output", () => {
  /** `stint ARGS` with its stdout on `stdout` (a file descriptor), answering its exit code and stderr. */
  const withStdout = (args: ReadonlyArray<string>, stdout: number | "pipe-closed") =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [bin, ...args], {
        stdio: ["ignore", stdout === "pipe-closed" ? "pipe" : stdout, "pipe"]
      })
      // Nobody reads what it prints: its writes fail with EPIPE.
      if (stdout === "pipe-closed") child.stdout?.destroy()
      let stderr = ""
      child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
      child.on("exit", (code) => resolve({ code, stderr }))
    })

  it("a command whose output cannot be written (a full disk, a closed pipe) fails in one line, saying what was done", async () => {
    const db = freshDb()
    const full = openSync("/dev/full", "w")
    try {
      await stintJson(["seed", writeJson(join(dir.path, "output-fixture.json"), fixture), "--database", `sqlite:${db}`])
      for (const stdout of [full, "pipe-closed"] as const) {
        const result = await withStdout(
          ["keys", "create", "--user", ids.owner, "--workspace", ids.workspace, "--database", `sqlite:${db}`],
          stdout
        )
        expect(result.code, String(stdout)).toBe(1)
        expectOneLineError(
          result.stderr,
          /^stint: could not write to standard output \((ENOSPC|EPIPE)\): the command's changes were made, but what it printed is lost$/
        )
      }
    } finally {
      closeSync(full)
    }
  })

  it("stdout is the command's output only: --log-level debug writes its log lines to stderr", async () => {
    const db = `sqlite:${freshDb()}`
    const migrated = await stint(["migrate", "--log-level", "debug", "--database", db])
    expect(migrated.code, migrated.stderr).toBe(0)
    expect(JSON.parse(migrated.stdout)).toEqual({ migrated: true, database: db })
    expect(migrated.stderr).toMatch(/level=DEBUG .*message="Running migration"/)
    const seeded = await stint(["seed", writeJson(join(dir.path, "debug-fixture.json"), fixture), "--log-level", "debug", "--database", `sqlite:${freshDb()}`])
    expect(seeded.code, seeded.stderr).toBe(0)
    expect(JSON.parse(seeded.stdout)).toMatchObject({ counts: { workspaces: 1 } })
    expect(seeded.stderr).toMatch(/level=DEBUG/)
  })
})

describe("migrate", () => {
  it("creates and migrates a fresh file, and is idempotent", async () => {
    const db = freshDb()
    expect(existsSync(db)).toBe(false)
    const first = await stint(["migrate", "--database", `sqlite:${db}`])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stderr).toBe("")
    const tables = Object.keys(await dumpSqlite(db))
    expect(tables).toEqual(expect.arrayContaining(["workspaces", "users", "api_keys", "time_entries"]))
    const second = await stint(["migrate", "--database", `sqlite:${db}`])
    expect(second.code, second.stderr).toBe(0)
    expect(Object.keys(await dumpSqlite(db))).toEqual(tables)
  })

  it("reads the address from STINT_DATABASE_URL, and --database wins over it", async () => {
    const fromEnv = freshDb()
    const fromFlag = freshDb()
    expect((await stint(["migrate"], { env: { STINT_DATABASE_URL: `sqlite:${fromEnv}` } })).code).toBe(0)
    expect(existsSync(fromEnv)).toBe(true)
    const both = await stint(["migrate", "--database", `sqlite://${fromFlag}`], {
      env: { STINT_DATABASE_URL: `sqlite:${freshDb()}` }
    })
    expect(both.code).toBe(0)
    expect(existsSync(fromFlag)).toBe(true)
  })

  it("defaults to sqlite:./stint.db in the working directory", async () => {
    const cwd = tempDir()
    try {
      expect((await stint(["migrate"], { cwd: cwd.path })).code).toBe(0)
      expect(existsSync(join(cwd.path, "stint.db"))).toBe(true)
    } finally {
      cwd.remove()
    }
  })
})

describe("seed", () => {
  it("loads a fixture on a fresh database and prints the summary: every key with its plaintext, counts per kind", async () => {
    const db = freshDb()
    const file = writeJson(join(dir.path, "fixture.json"), fixture)
    const summary = await stintJson(["seed", file, "--database", `sqlite:${db}`]) as {
      apiKeys: Array<{ id: string; key: string; userId: string; workspaceId: string }>
      counts: Record<string, number>
    }
    expect(summary.counts).toEqual({
      workspaces: 1,
      users: 2,
      memberships: 2,
      clients: 1,
      projects: 1,
      assignments: 1,
      apiKeys: 2,
      timeEntries: 1
    })
    expect(summary.apiKeys).toHaveLength(2)
    expect(summary.apiKeys[0]).toEqual({ id: ids.ownerKey, key: ownerKey, userId: ids.owner, workspaceId: ids.workspace })
    expect(summary.apiKeys[1]).toMatchObject({ userId: ids.member, workspaceId: ids.workspace })
    expect(summary.apiKeys[1]?.key).toMatch(/^stint_[A-Za-z0-9_-]{43}$/)
    const dump = await dumpSqlite(db)
    expect(dump["workspaces"]).toHaveLength(1)
    expect(dump["time_entries"]).toHaveLength(1)
    // Keys are stored as digests only.
    expect(JSON.stringify(dump)).not.toContain(ownerKey)
  })

  const refusals: ReadonlyArray<readonly [string, unknown, RegExp]> = [
    [
      "a completed entry without an end",
      { timeEntries: [{ ...fixture.timeEntries[0], id: "0190a000-0000-7000-8000-0000000000aa", endedAt: null }] },
      /\$\.timeEntries\[0\]\.endedAt/
    ],
    [
      "a schema error",
      { workspaces: [{ id: "0190a000-0000-7000-8000-0000000000ab", name: "" }] },
      /\$\.workspaces\[0\]\.name/
    ],
    [
      "an id already stored",
      { workspaces: [{ id: "0190a000-0000-7000-8000-0000000000ac", name: "New" }, { id: ids.workspace, name: "Again" }] },
      /\$\.workspaces\[1\]\.id/
    ],
    ["an unknown property", { workspaces: [], colour: "red" }, /\$\.colour/],
    // Written as text: JSON.stringify itself overflows the stack on such a value.
    [
      "a value nested 20,000 levels deep",
      `{ "workspaces": [{ "id": "0190a000-0000-7000-8000-0000000000ad", "name": ${"[".repeat(20_000)}"x"${"]".repeat(20_000)} }] }`,
      /\$\.workspaces\[0\]\.name: Expected string, actual an array of 1 item$/
    ],
    ["a deeply nested unknown property", `{ "extra": ${"{\"a\":".repeat(5_000)}1${"}".repeat(5_000)} }`, /\$\.extra/],
    ["text that is not JSON", "{ \"workspaces\": [", /not JSON/],
    // `JSON.parse` would keep the last name and drop the first: the workspace would be stored under a name not meant.
    [
      "a member one object names twice",
      `{ "workspaces": [{ "id": "0190a000-0000-7000-8000-0000000000ae", "name": "Meant", "name": "Kept" }] }`,
      /at \$\.workspaces\[0\]\.name: appears more than once$/
    ]
  ]

  it("a failure is one line even when what it names holds line breaks (a file name with a newline)", async () => {
    const file = writeJson(join(dir.path, `two\nlines-${++counter}.json`), { workspaces: [{ id: "nope", name: "W" }] })
    const result = await stint(["seed", file, "--database", `sqlite:${freshDb()}`])
    expect(result.code).toBe(1)
    expectOneLineError(result.stderr, /^stint: invalid fixture .*two lines-\d+\.json at \$\.workspaces\[0\]\.id: /)
  })

  it.each(refusals)("refuses %s, naming the problem in one line, and writes nothing", async (_, content, path) => {
    const db = freshDb()
    await stintJson(["seed", writeJson(join(dir.path, `base-${counter}.json`), fixture), "--database", `sqlite:${db}`])
    const before = await dumpSqlite(db)
    const file = writeJson(join(dir.path, `invalid-${counter}.json`), content)
    const result = await stint(["seed", file, "--database", `sqlite:${db}`])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expectOneLineError(result.stderr, path)
    expect(await dumpSqlite(db)).toEqual(before)
  })

  it("refuses a missing file without creating the database", async () => {
    const db = freshDb()
    const result = await stint(["seed", join(dir.path, "nope.json"), "--database", `sqlite:${db}`])
    expect(result.code).not.toBe(0)
    expectOneLineError(result.stderr, /nope\.json/)
    expect(existsSync(db)).toBe(false)
  })
})
