/**
 * CI installs with `npm ci`, which refuses a lockfile that lacks any optional platform package. The registry this
 * project is built with serves only this machine's platforms, so `npm install` leaves rollup's other platforms out;
 * `scripts/complete-lockfile.mjs` puts them back. This fails when a lockfile change forgot to.
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"

const root = fileURLToPath(new URL("../../", import.meta.url))

it("package-lock.json is complete enough for npm ci (run scripts/complete-lockfile.mjs after npm install)", () => {
  const run = () =>
    execFileSync("npm", ["ci", "--dry-run", "--ignore-scripts", "--no-audit", "--no-fund"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"]
    })
  expect(run).not.toThrow()
}, 60_000)
