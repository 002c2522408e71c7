/**
 * A headless Chromium for browser tests that comes from the npm registry alone, so `npm test` needs nothing but Node
 * and npm: the `@sparticuz/chromium` package ships a Chromium build (chrome-headless-shell) as `bin/chromium.br` and
 * the NSS libraries it links against as `bin/al2023.tar.br`, both Brotli-compressed inside its tarball (no install
 * script, no download). The first launch inflates both into `node_modules/.cache/stint-chromium/<version>/`; later
 * launches reuse them. playwright-core drives the browser.
 *
 * We do not call the package's own JavaScript: it inflates into the shared temporary directory (`/tmp/chromium`, which
 * another checkout may be writing at the same moment). Inflating here goes to a directory of its own that is renamed
 * into place whole, so parallel test files and checkouts never see half a binary. The package is pinned at 143.0.4, the
 * last release whose manifest allows Node 20 (later ones make `npm install` warn `EBADENGINE` on Node 20).
 */
import { randomBytes } from "node:crypto"
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { dirname, isAbsolute, join, normalize, sep } from "node:path"
import { createRequire } from "node:module"
import { pipeline } from "node:stream/promises"
import { brotliDecompressSync, createBrotliDecompress } from "node:zlib"
import { type Browser, chromium } from "playwright-core"

/** Where the package lives and which version it is: the nearest folder above its entry point with its manifest. */
const packageInfo = (): { readonly dir: string; readonly version: string } => {
  const entry = createRequire(import.meta.url).resolve("@sparticuz/chromium")
  // The entry point is a few folders down (`build/index.js`, `build/cjs/index.cjs`, by version).
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const path = join(dir, "package.json")
    if (!existsSync(path)) continue
    const manifest: unknown = JSON.parse(readFileSync(path, "utf8"))
    if (typeof manifest !== "object" || manifest === null || !("name" in manifest)) continue
    if (manifest.name !== "@sparticuz/chromium") continue
    const version = "version" in manifest ? manifest.version : undefined
    if (typeof version !== "string") throw new Error(`${path} names no version`)
    return { dir, version }
  }
  throw new Error(`no package.json of @sparticuz/chromium above ${entry}`)
}

/** `node_modules/.cache`, beside the package's own `node_modules` folder. */
const cacheRoot = (packageDir: string): string => {
  const parts = packageDir.split(sep)
  const last = parts.lastIndexOf("node_modules")
  if (last < 0) throw new Error(`${packageDir} is not inside a node_modules folder`)
  return join(parts.slice(0, last + 1).join(sep) || sep, ".cache", "stint-chromium")
}

/** Reads an octal number field of a tar header. */
const octal = (header: Buffer, start: number, length: number): number =>
  Number.parseInt(header.subarray(start, start + length).toString("latin1").replace(/\0.*$/s, "").trim() || "0", 8)

/** Writes the regular files of an (uncompressed, ustar) tar archive under `dir`; anything else is refused. */
const untar = (archive: Buffer, dir: string): void => {
  for (let offset = 0; offset + 512 <= archive.length;) {
    const header = archive.subarray(offset, offset + 512)
    if (header.every((byte) => byte === 0)) return
    const field = (start: number, length: number) =>
      header.subarray(start, start + length).toString("utf8").replace(/\0.*$/s, "")
    const prefix = field(345, 155)
    const name = prefix === "" ? field(0, 100) : `${prefix}/${field(0, 100)}`
    const size = octal(header, 124, 12)
    const type = String.fromCharCode(header[156] ?? 0)
    const path = normalize(name)
    if (isAbsolute(path) || path.split(sep).includes("..")) throw new Error(`tar entry outside its folder: ${name}`)
    const body = offset + 512
    if (type === "0" || type === "\0") {
      mkdirSync(dirname(join(dir, path)), { recursive: true })
      writeFileSync(join(dir, path), archive.subarray(body, body + size), { mode: octal(header, 100, 8) & 0o777 })
    } else if (type === "5") {
      mkdirSync(join(dir, path), { recursive: true })
    } else {
      throw new Error(`tar entry of unsupported type ${JSON.stringify(type)}: ${name}`)
    }
    offset = body + Math.ceil(size / 512) * 512
  }
}

/** Inflates the package's browser and libraries into a new folder, then renames it to `target` (unless one won). */
const inflate = async (packageDir: string, target: string): Promise<void> => {
  const staging = `${target}.${process.pid}.${randomBytes(4).toString("hex")}`
  mkdirSync(staging, { recursive: true })
  try {
    await pipeline(
      createReadStream(join(packageDir, "bin", "chromium.br")),
      createBrotliDecompress(),
      createWriteStream(join(staging, "chromium"), { mode: 0o755 })
    )
    untar(brotliDecompressSync(readFileSync(join(packageDir, "bin", "al2023.tar.br"))), staging)
    try {
      renameSync(staging, target)
    } catch (error) {
      // Another process renamed its copy first: use that one.
      if (!existsSync(join(target, "chromium"))) throw error
    }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/** The browser's executable and the folder of the libraries it needs, inflated on first use. */
export interface Executable {
  readonly path: string
  readonly libraryPath: string
  readonly version: string
}

/**
 * The executable of the packaged Chromium, inflating it first when this checkout has not yet.
 */
export const executable = async (): Promise<Executable> => {
  const { dir, version } = packageInfo()
  const target = join(cacheRoot(dir), version)
  if (!existsSync(join(target, "chromium"))) await inflate(dir, target)
  return { path: join(target, "chromium"), libraryPath: join(target, "lib"), version }
}

/**
 * The command-line switches for a test browser on a machine without network: headless, no sandbox (tests may run as
 * root), no GPU, and none of the background connections Chromium would otherwise try (and be refused) at start.
 */
export const args: ReadonlyArray<string> = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/**
 * Launches the packaged Chromium headless through playwright-core, with its own NSS libraries ahead of the system's.
 */
export const launch = async (): Promise<Browser> => {
  const browser = await executable()
  const inherited = process.env["LD_LIBRARY_PATH"]
  const libraryPath = inherited === undefined || inherited === ""
    ? browser.libraryPath
    : `${browser.libraryPath}:${inherited}`
  return chromium.launch({
    executablePath: browser.path,
    args: [...args],
    env: { ...process.env, LD_LIBRARY_PATH: libraryPath }
  })
}
