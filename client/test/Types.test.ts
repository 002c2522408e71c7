/**
 * The Promise face's types are usable without importing `effect`: this file imports only `@stint/client` (and the test
 * tools), and everything a caller writes type-checks: options, calls, results, narrowing errors. The results and
 * options are plain data (no Effect data types, brands or functions), and the declarations the Promise face publishes
 * name no module of Effect (the resources come from the core's Schemas as plain object types).
 */
import {
  ApiError,
  type ErrorCode,
  StintClient,
  type StintClientOptions,
  type StartTimerInput,
  type TimeEntry,
  type Timer,
  TimerAlreadyStopped,
  type TimerMutationResult
} from "@stint/client"
import { readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, expectTypeOf, it } from "vitest"
import type { Plain } from "./support/Plain.js"

type Resolved<K extends keyof StintClient> = StintClient[K] extends (...args: never) => Promise<infer A> ? A : never

describe("the Promise face's types", () => {
  it("are plain data: results, resources and options", () => {
    expectTypeOf<Plain<Resolved<"listClients">>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<Resolved<"listProjects">>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<Resolved<"createProject">>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<Resolved<"getActiveTimer">>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<Resolved<"startTimer">>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<Resolved<"stopTimer">>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<Resolved<"listTimeEntries">>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<TimeEntry>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<StintClientOptions>>().toEqualTypeOf<true>()
    expectTypeOf<Plain<StartTimerInput>>().toEqualTypeOf<true>()
  })

  it("give Promises, an async iterator, and fields a caller can read", () => {
    expectTypeOf<StintClient["startTimer"]>().returns.toEqualTypeOf<Promise<TimerMutationResult>>()
    expectTypeOf<StintClient["timeEntries"]>().returns.toEqualTypeOf<AsyncIterable<TimeEntry>>()
    expectTypeOf<TimerMutationResult["timer"]>().toEqualTypeOf<Timer | null>()
    expectTypeOf<TimerMutationResult["replayed"]>().toEqualTypeOf<boolean>()
    expectTypeOf<Timer["elapsedSeconds"]>().toEqualTypeOf<number>()
    expectTypeOf<TimeEntry["status"]>().toEqualTypeOf<"active" | "completed" | "voided">()
    expectTypeOf<TimeEntry["earnings"]>().toEqualTypeOf<string | null>()
    expectTypeOf({ projectId: "id", note: "n" }).toExtend<StartTimerInput>()
  })

  it("narrow errors with instanceof and code", () => {
    const describeError = (error: unknown): string => {
      if (error instanceof TimerAlreadyStopped) {
        expectTypeOf(error.status).toEqualTypeOf<409>()
        expectTypeOf(error.activeTimer).toEqualTypeOf<Timer | null | undefined>()
        return `already stopped; running: ${error.activeTimer?.projectName ?? "nothing"}`
      }
      if (error instanceof ApiError) {
        expectTypeOf(error.code).toEqualTypeOf<ErrorCode>()
        return `${error.status} ${error.code} (${error.requestId})`
      }
      return "other"
    }
    const stopped = new TimerAlreadyStopped({ message: "stopped", requestId: "r", details: {}, activeTimer: null })
    expect(describeError(stopped)).toBe("already stopped; running: nothing")
  })

  it("this file imports nothing of Effect", () => {
    const source = readFileSync(fileURLToPath(import.meta.url), "utf8")
    expect(source).not.toMatch(/from "(effect|@effect\/[^"]+)(\/[^"]*)?"/)
  })

  it("the published declarations of @stint/client name no module of Effect", () => {
    const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
    const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.src.json"), {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
      }
    })
    if (config === undefined) throw new Error("no tsconfig")
    const outDir = join(root, "declarations")
    const program = ts.createProgram([join(root, "src/index.ts")], {
      ...config.options,
      outDir,
      noEmit: false,
      declaration: true,
      emitDeclarationOnly: true,
      declarationMap: false,
      composite: false,
      incremental: false
    })
    const emitted = new Map<string, string>()
    const result = program.emit(undefined, (name, text) => emitted.set(name, text))
    expect(result.diagnostics).toEqual([])
    // Walk the declarations from the entry, following relative imports.
    const external = new Set<string>()
    const pending = [join(outDir, "index.d.ts")]
    const visited = new Set<string>()
    while (pending.length > 0) {
      const file = pending.pop() ?? ""
      if (visited.has(file)) continue
      visited.add(file)
      const text = emitted.get(file)
      if (text === undefined) throw new Error(`not emitted: ${file}`)
      for (const [, specifier = ""] of text.matchAll(/(?:from |import\()"([^"]+)"/g)) {
        if (specifier.startsWith(".")) pending.push(join(dirname(file), specifier.replace(/\.js$/, ".d.ts")))
        else external.add(specifier)
      }
    }
    expect([...visited].map((file) => file.slice(outDir.length + 1)).sort()).toEqual([
      "Errors.d.ts",
      "Options.d.ts",
      "Promise.d.ts",
      "Resources.d.ts",
      "index.d.ts"
    ])
    expect([...external]).toEqual(["@stint/core/Schemas"])
  })
})
