/**
 * Help on every `stint` command, in process (`Cli.run` with the output captured): starting one Node process per
 * command would only test the same startup again. `Cli.test.ts` checks `stint --help` through the binary.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { describe, expect, it, vi } from "@effect/vitest"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Cli from "../src/Cli.js"

/** Runs the command line in process; answers the exit status and what it printed on stdout and stderr. */
const run = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const out: Array<string> = []
    const err: Array<string> = []
    const console = yield* Effect.console
    const capture: Console.Console = {
      ...console,
      log: (...parts) => Effect.sync(() => void out.push(parts.join(" "))),
      error: (...parts) => Effect.sync(() => void err.push(parts.join(" ")))
    }
    const code = yield* Effect.withConsole(Cli.run(["node", "stint", ...args]), capture)
    return { code, stdout: out.join("\n"), stderr: err.join("\n") }
  }).pipe(Effect.provide(NodeContext.layer))

const commands: ReadonlyArray<ReadonlyArray<string>> = [
  [],
  ["serve"],
  ["migrate"],
  ["seed"],
  ["keys"],
  ["keys", "create"],
  ["keys", "revoke"],
  ["keys", "list"],
  ["workspaces"],
  ["workspaces", "create"],
  ["users"],
  ["users", "create"],
  ["memberships"],
  ["memberships", "add"],
  ["memberships", "remove"],
  ["clients"],
  ["clients", "create"],
  ["clients", "archive"],
  ["clients", "unarchive"],
  ["projects"],
  ["projects", "create"],
  ["projects", "archive"],
  ["projects", "unarchive"],
  ["assignments"],
  ["assignments", "add"],
  ["entries"],
  ["entries", "void"],
  ["entries", "move-start"]
]

describe("help", () => {
  it.effect.each(commands.map((command) => [command.join(" ") || "stint", command] as const))(
    "%s --help prints usage and a description on stdout and exits 0",
    ([, command]) =>
      Effect.gen(function*() {
        const result = yield* run([...command, "--help"])
        expect(result.code).toBe(0)
        expect(result.stderr).toBe("")
        expect(result.stdout).toContain("USAGE")
        // The usage line as it is typed, not the subcommand alone (`$ create …`).
        expect(result.stdout).toMatch(new RegExp(`^\\$ ${["stint", ...command].join(" ")}( |$)`, "m"))
        expect(result.stdout).toContain("DESCRIPTION")
      })
  )

  it.effect("the root help lists every command", () =>
    Effect.gen(function*() {
      const { stdout } = yield* run(["--help"])
      for (const command of commands.filter((c) => c.length > 0)) expect(stdout).toContain(`- ${command.join(" ")}`)
    }))

  it.effect("serve's help names every option and environment variable", () =>
    Effect.gen(function*() {
      const { stdout } = yield* run(["serve", "--help"])
      for (
        const word of [
          "--host",
          "--port",
          "--database",
          "--demo",
          "STINT_HOST",
          "STINT_PORT",
          "STINT_DATABASE_URL",
          "STINT_RATE_LIMIT",
          "STINT_RATE_WINDOW_SECONDS"
        ]
      ) expect(stdout).toContain(word)
    }))

  it.effect("--version prints the version", () =>
    Effect.gen(function*() {
      const result = yield* run(["--version"])
      expect(result.code).toBe(0)
      // The number alone: the line break @effect/cli ends it with is not printed as an empty line after it.
      expect(result.stdout).toBe(Cli.VERSION)
    }))

  it.effect("--help, -h and --version after a command's options answer as right after its name", () =>
    Effect.gen(function*() {
      const user = "01a22944-b95e-7130-8fe6-c0a8156a101b"
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, ReadonlyArray<string>]> = [
        [["serve", "--port", "0", "--help"], ["serve", "--help"]],
        [["keys", "create", "--user", user, "--workspace", user, "-h"], ["keys", "create", "--help"]],
        [["seed", "--database", "sqlite:x.db", fileURLToPath(import.meta.url), "--help"], ["seed", "--help"]],
        [["--log-level", "info", "serve", "--demo", "--help"], ["serve", "--help"]],
        [["serve", "--log-level=none", "--port", "0", "--help"], ["serve", "--help"]],
        [["serve", "--port", "0", "--version"], ["--version"]]
      ]
      for (const [late, early] of cases) {
        const [got, want] = [yield* run(late), yield* run(early)]
        expect(got, late.join(" ")).toEqual(want)
        expect(got.code).toBe(0)
        expect(got.stdout).not.toBe("")
      }
    }))

  it.effect("a line that is wrong before its --help is refused as it would be without it (exit 2)", () =>
    Effect.gen(function*() {
      expect(yield* run(["serve", "--port", "abc", "--help"]))
        .toEqual({ code: 2, stdout: "", stderr: "stint: --port must be an integer from 0 to 65535, got \"abc\"" })
      expect(yield* run(["serve", "--bogus", "--help"]))
        .toEqual({ code: 2, stdout: "", stderr: "stint: Received unknown argument: '--bogus'" })
      // After `--` it is an argument like any other.
      expect(yield* run(["seed", "--", "--help"])).toEqual({ code: 2, stdout: "", stderr: "stint: Path '--help' must exist" })
    }))

  it.effect("an option's value that reads -h, --help or --version is that value, not a request for help", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "stint-cli-help-"))
      try {
        const database = `sqlite:${join(dir, "stint.db")}`
        // The command writes its JSON to the process's standard output itself.
        const written: Array<string> = []
        const write = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown, ...rest: Array<unknown>) => {
          written.push(String(chunk))
          const done = rest.find((arg) => typeof arg === "function") as (() => void) | undefined
          done?.()
          return true
        })
        for (const name of ["-h", "--help", "--version"]) {
          const result = yield* run(["workspaces", "create", "--database", database, "--name", name])
          expect([result.code, result.stderr]).toEqual([0, ""])
        }
        write.mockRestore()
        expect(written.map((text) => (JSON.parse(text) as { name: string }).name)).toEqual(["-h", "--help", "--version"])
      } finally {
        vi.restoreAllMocks()
        rmSync(dir, { recursive: true, force: true })
      }
    }), { timeout: 20_000 })

  it.effect("--wizard without a terminal on standard input is refused at once (its prompts would wait forever)", () =>
    Effect.gen(function*() {
      expect(process.stdin.isTTY).not.toBe(true)
      for (const args of [["--wizard"], ["keys", "create", "--wizard"]]) {
        const result = yield* run(args)
        expect(result.code).toBe(2)
        expect(result.stdout).toBe("")
        expect(result.stderr).toBe("stint: --wizard asks its questions on a terminal, and standard input is not one")
      }
    }), { timeout: 10_000 })
})
