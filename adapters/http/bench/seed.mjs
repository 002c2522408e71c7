#!/usr/bin/env node
// Benchmark of `stint seed` on a large fixture (not part of npm test): generates the fixture with the shared bench's
// seed.mjs (--entries, default 1,000,000; written once under --out), then seeds it into a fresh SQLite file and a
// fresh PostgreSQL database (--pg URL of a server; a database `stint_seed_bench`, or --pg-database NAME, is recreated
// there) and prints wall time, CPU time and peak RSS of each run, as /usr/bin/time -v measures them.
//   npm run bench:seed -w @stint/http -- [--entries 1000000] [--out /tmp/stint-seed-bench] [--pg postgres://postgres@127.0.0.1:5432/postgres] [--pg-database stint_seed_bench]
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, rmSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"

const { values: o } = parseArgs({
  options: {
    entries: { type: "string", default: "1000000" },
    out: { type: "string", default: "/tmp/stint-seed-bench" },
    pg: { type: "string", default: process.env.STINT_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
    "pg-database": { type: "string", default: "stint_seed_bench" }
  }
})
const here = fileURLToPath(new URL(".", import.meta.url))
const bin = join(here, "../bin/stint.js")
const generator = join(here, "../../../../shared/bench/seed.mjs")
const fixture = join(o.out, `fixture-deep-${o.entries}.json`)
mkdirSync(o.out, { recursive: true })
if (!existsSync(fixture)) {
  const dir = join(o.out, `gen-${o.entries}`)
  execFileSync(process.execPath, [generator, "--deep-entries", o.entries, "--users", "1", "--keys-per-user", "1", "--history", "1", "--out", dir], { stdio: "inherit" })
  execFileSync("mv", [join(dir, "fixture-deep.json"), fixture])
}
const measure = (label, database) => {
  const run = spawnSync("/usr/bin/time", ["-v", process.execPath, bin, "seed", fixture, "--database", database], { encoding: "utf8", maxBuffer: 1 << 26 })
  const field = (name) => new RegExp(`${name}: (.*)`).exec(run.stderr)?.[1]?.trim()
  console.log(JSON.stringify({
    store: label, entries: Number(o.entries), exit: run.status,
    wall: field("Elapsed \\(wall clock\\) time \\(h:mm:ss or m:ss\\)"),
    userSeconds: Number(field("User time \\(seconds\\)")), systemSeconds: Number(field("System time \\(seconds\\)")),
    peakRssMB: Math.round(Number(field("Maximum resident set size \\(kbytes\\)")) / 1024)
  }))
  if (run.status !== 0) console.error(run.stderr.split("\n").slice(-3).join("\n"))
}
const sqlite = join(o.out, "bench.db")
for (const suffix of ["", "-wal", "-shm"]) rmSync(sqlite + suffix, { force: true })
measure("sqlite", `sqlite:${sqlite}`)
const admin = new URL(o.pg)
const name = o["pg-database"]
if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`--pg-database: not a plain lowercase name: ${name}`)
execFileSync("psql", [admin.href, "-q", "-c", `DROP DATABASE IF EXISTS ${name}`, "-c", `CREATE DATABASE ${name}`])
admin.pathname = `/${name}`
measure("postgres", admin.href)
