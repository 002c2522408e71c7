#!/usr/bin/env -S node --max-semi-space-size=8
// The `stint` command as npm links it (`npx stint`, `node_modules/.bin/stint`). npm links a package's bins before
// `prepare` builds `dist/`, so the bin must be this committed file rather than the built `dist/bin.js`, which it runs.
//
// The shebang caps V8's young generation at two 8 MB semi-spaces (node's default grows them to 16 MB each, which a
// server's startup alone fills): `stint serve` then ends 100,000 mixed requests about 20 MB lower in RSS, at no
// throughput cost measured. V8 reads this setting only when the process starts, so it must be on node's command line:
// run `node --max-semi-space-size=8 adapters/http/dist/bin.js serve` when not starting through this file.
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
