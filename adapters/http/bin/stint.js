#!/usr/bin/env node
// The `stint` command as npm links it (`npx stint`, `node_modules/.bin/stint`). npm links a package's bins before
// `prepare` builds `dist/`, so the bin must be this committed file rather than the built `dist/bin.js`, which it runs.
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const entry = new URL("../dist/bin.js", import.meta.url)
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write(
    `stint: the command is not built yet (${fileURLToPath(entry)} is missing).\n` +
      "Run `npm run build` at the root of the Stint repository (`npm install` runs it too), then try again.\n"
  )
  process.exit(1)
}
await import(entry.href)
