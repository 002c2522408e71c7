#!/usr/bin/env node
// Completes package-lock.json with rollup's platform packages for other systems. npm records an optional
// platform package only when its registry serves the package's metadata; a registry mirror that carries only this
// machine's platform (as the one this project is built with) leaves them out, and `npm ci` then refuses the lockfile
// as out of sync. The entries are fully determined by rollup's own `optionalDependencies` (name and version) and the
// platform each name encodes (os, cpu, libc); only the tarball integrity is unknown, so npm fetches those by name and
// version on the systems that need them. Run after `npm install` changes the lockfile: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages

// `@rollup/rollup-<os>-<cpu>[-<abi>]`, e.g. `linux-x64-gnu`, `win32-ia32-msvc`, `android-arm-eabi`.
const platformOf = (name) => {
  const [os, cpu, abi] = name.replace(/^@rollup\/rollup-/, "").split("-")
  if (os === undefined || cpu === undefined) throw new Error(`unknown platform package ${name}`)
  const entry = { os: [os], cpu: [cpu] }
  if (abi === "gnu" || abi === "gnueabihf") entry.libc = ["glibc"]
  if (abi === "musl" || abi === "musleabihf") entry.libc = ["musl"]
  return entry
}

let added = 0
for (const [where, pkg] of Object.entries(packages)) {
  if (!where.endsWith("node_modules/rollup") || pkg.optionalDependencies === undefined) continue
  for (const [name, version] of Object.entries(pkg.optionalDependencies)) {
    const key = `node_modules/${name}`
    if (packages[key] !== undefined) continue
    packages[key] = { version, ...platformOf(name), dev: pkg.dev, license: "MIT", optional: true }
    added++
  }
}
// npm keeps `packages` sorted by path.
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`)
console.log(`complete-lockfile: added ${added} platform entr${added === 1 ? "y" : "ies"}`)
