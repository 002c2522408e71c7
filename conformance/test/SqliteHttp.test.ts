/**
 * The conformance kit against Stint's HTTP server over the SQLite adapter, on a real file.
 */
import { HttpStack, Suite } from "@stint/conformance"
import { backdoor, freshFile } from "./support/SqliteFiles.js"

Suite.suite("sqlite (http)", HttpStack.inProcess(freshFile, { backdoor }))
