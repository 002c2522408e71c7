/**
 * The conformance kit against JsonFileStore, on a fresh journal file: the one test file an adapter author writes.
 */
import { CoreStack, Suite } from "@stint/conformance"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { JsonFileStore } from "../src/index.js"
import { journalBackdoor } from "./support/JournalBackdoor.js"

const dir = mkdtempSync(join(tmpdir(), "json-file-store-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const filename = join(dir, "stint.jsonl")

Suite.suite(
  "json-file store",
  CoreStack.make(JsonFileStore.layer({ filename }), { backdoor: () => journalBackdoor(filename) })
)
