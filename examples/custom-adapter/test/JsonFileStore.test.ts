/**
 * The conformance kit against JsonFileStore, on a fresh journal file: the one test file an adapter author writes.
 */
import { CoreStack, Suite } from "@stint/conformance"
import { randomUUID } from "node:crypto"
import { mkdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { JsonFileStore } from "../src/index.js"
import { journalBackdoor } from "./support/JournalBackdoor.js"

// Made when the file's tests run, not when it is loaded: a run that filters them all out leaves nothing behind.
const dir = join(tmpdir(), `json-file-store-${randomUUID()}`)
beforeAll(() => mkdirSync(dir))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const filename = join(dir, "stint.jsonl")

Suite.suite(
  "json-file store",
  CoreStack.make(JsonFileStore.layer({ filename }), { backdoor: () => journalBackdoor(filename) })
)
