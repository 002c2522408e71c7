import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

// Tests import every @stint package from its sources, so one module graph serves the whole run (no stale dist).
const packages: Record<string, string> = {
  core: "core/src",
  sqlite: "adapters/sqlite/src",
  postgres: "adapters/postgres/src",
  http: "adapters/http/src",
  conformance: "conformance/src",
  client: "client/src"
}
const root = (path: string) => fileURLToPath(new URL(path, import.meta.url))

export default defineConfig({
  resolve: {
    alias: Object.entries(packages).flatMap(([name, dir]) => [
      { find: new RegExp(`^@stint/${name}$`), replacement: root(`${dir}/index.ts`) },
      { find: new RegExp(`^@stint/${name}/(.*)$`), replacement: root(`${dir}/$1.ts`) }
    ])
  },
  test: {
    include: ["**/test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // PostgreSQL for the Postgres tests: STINT_TEST_DATABASE_URL, else a throwaway embedded server (testing/).
    globalSetup: ["./testing/globalSetup.ts"]
  }
})
