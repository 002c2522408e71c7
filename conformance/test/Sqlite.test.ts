/**
 * The conformance kit against the SQLite adapter, driven directly through the core, on a real file.
 */
import { CoreStack, Suite } from "@stint/conformance"
import { backdoor, freshFile } from "./support/SqliteFiles.js"

Suite.suite("sqlite (core)", CoreStack.make(freshFile, { backdoor, storageWrites: true }))
