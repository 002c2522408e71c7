/**
 * `stint seed`'s fixture reader (`internal/fixtureFile.ts`), in process: a file is streamed from disk a chunk at a time,
 * and must read exactly as `JSON.parse` reads it, refusing what `JSON.parse` refuses ("An invalid fixture is refused
 * ... and nothing is written": the refusal comes before any element reaches the store). `Cli.test.ts` runs the
 * command itself on whole fixtures.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as FixtureFile from "../src/internal/fixtureFile.js"
import { CHUNK_BYTES } from "../src/internal/jsonScan.js"

/** The file `text` read through the reader: its members, arrays collected, or the refusal's message. */
const read = (text: string) =>
  Effect.gen(function*() {
    const dir = mkdtempSync(join(tmpdir(), "stint-fixture-file-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(dir, { recursive: true, force: true })))
    const path = join(dir, "fixture.json")
    writeFileSync(path, text)
    const document = yield* Effect.flatMap(FixtureFile.open(path), (source) => source.open)
    if (document._tag !== "Object") return { other: true }
    const members: Record<string, unknown> = {}
    for (const member of document.members) {
      members[member.name] = member._tag === "Array"
        ? Chunk.toReadonlyArray(yield* Stream.runCollect(member.elements))
        : member.value
    }
    return members
  }).pipe(Effect.scoped, Effect.catchTag("CliError", (error) => Effect.succeed({ refused: error.message })))

describe("a fixture file, streamed", () => {
  it.effect("refuses an array with a comma and no element after it, and data after the object", () =>
    Effect.gen(function*() {
      const workspace = `{"id":"0190a6b2-0000-7000-8000-000000000001","name":"Acme"}`
      for (const text of [`{"workspaces":[${workspace},]}`, `{"workspaces":[${workspace},  ]}`, `{"workspaces":[,${workspace}]}`]) {
        expect(yield* read(text), text).toEqual({ refused: expect.stringMatching(/^invalid fixture .*: not JSON/) })
      }
      for (const text of [`{"workspaces":[${workspace}]} x`, `{"workspaces":[${workspace}]}{}`, `{"workspaces":[]}]`]) {
        expect(yield* read(text), text).toEqual({ refused: expect.stringMatching(/^invalid fixture .*: not JSON/) })
      }
      expect(yield* read(`{"workspaces":[${workspace}]} \n`)).toEqual({ workspaces: [JSON.parse(workspace)] })
    }))

  it.effect("reads escaped quotes and backslashes in strings, wherever a chunk of the file ends", () =>
    Effect.gen(function*() {
      // A name holding `"}`, `\` and `,]`: read as it is, never as the end of its string or its element.
      const tricky = `x\\"},\\\\\\"],`
      const expected = JSON.parse(`"${tricky}"`) as string
      expect(expected).toBe(`x"},\\"],`)
      const simple = yield* read(`{"workspaces":[{"name":"${tricky}"},{"name":"b"}]}`)
      expect(simple).toEqual({ workspaces: [{ name: expected }, { name: "b" }] })
      // The same name with its first backslash on every byte around the end of the first chunk, counted from the file's
      // start and from the array's (both are read in chunks of CHUNK_BYTES).
      const head = `{"workspaces":[{"name":"`
      for (let at = CHUNK_BYTES - 8; at <= CHUNK_BYTES + head.length + 16; at++) {
        const padding = "p".repeat(at - head.length - 1)
        const text = `${head}${padding}${tricky}"},{"name":"b"}],"note":"${tricky}"}`
        expect(text.indexOf("\\")).toBe(at)
        const members = yield* read(text)
        expect(members, `backslash at byte ${at}`).toEqual(JSON.parse(text))
      }
    }))
})
