/**
 * The client runs in browsers: both entries bundle for the browser platform with esbuild, which refuses any module
 * only Node has (the test shows it refuses `node:fs`), so no Node-only import can creep onto the client's path; and
 * the bundle, loaded in headless Chromium (the packaged one, `testing/Chromium.ts`) from the API's origin, starts,
 * reads, walks and stops against a real `stint serve`, retrying a start whose answer was lost.
 */
import * as esbuild from "esbuild"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as Chromium from "../../testing/Chromium.js"
import * as FaultProxy from "./support/FaultProxy.js"
import { fixture, ids, keyOf } from "./support/Fixture.js"
import * as Stint from "./support/Stint.js"

/** `@stint/core/X` from the core's sources, as the tests import it. */
const coreFromSources: esbuild.Plugin = {
  name: "stint-core-sources",
  setup: (build) => {
    build.onResolve({ filter: /^@stint\/core(\/.*)?$/ }, (args) => ({
      path: join(Stint.root, "core/src", `${args.path.slice("@stint/core".length) || "/index"}.ts`)
    }))
  }
}

const bundle = (options: esbuild.BuildOptions) =>
  esbuild.build({
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
    plugins: [coreFromSources],
    ...options
  })

describe("the browser bundle", () => {
  it("both entries bundle for browsers, from the client, the core's Schemas and Effect only", async () => {
    const result = await bundle({
      entryPoints: [join(Stint.root, "client/src/index.ts"), join(Stint.root, "client/src/StintClient.ts")],
      outdir: "out"
    })
    expect(result.errors).toEqual([])
    const inputs = Object.keys(result.metafile?.inputs ?? {})
    const origins = new Set(inputs.map((input) =>
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input.split("/").slice(0, 2).join("/")
    ))
    // fast-check and pure-rand come with effect/Schema (its arbitraries).
    expect([...origins].sort()).toEqual([
      "@effect/platform",
      "client/src",
      "core/src",
      "effect",
      "fast-check",
      "pure-rand"
    ])
    expect(inputs.filter((input) => input.startsWith("core/src/"))).toEqual(["core/src/Schemas.ts"])
  })

  it("(control) a Node-only module on the path fails the bundle", async () => {
    const failed = await bundle({
      stdin: { contents: `import "node:fs"\nexport * from "./client/src/index.ts"`, resolveDir: Stint.root },
      outdir: "out"
    }).then(() => [], (error: esbuild.BuildFailure) => error.errors.map((e) => e.text))
    expect(failed.join("\n")).toContain("node:fs")
  })
})

/** What the page reports. */
interface Seen {
  readonly replayed: boolean
  readonly note: string | null | undefined
  readonly walked: ReadonlyArray<string>
  readonly timerId: string | undefined
  readonly stoppedTimerId: string | null
  readonly again: unknown
}

/** The page's script: what a browser application writes, in plain JavaScript. */
const RUN = `
import { StintClient, TimerAlreadyStopped } from "/browser/client.js"
window.runClient = async (key, projectId) => {
  const stint = new StintClient({ baseUrl: location.origin, apiKey: key, retry: { initialDelayMillis: 10 } })
  const started = await stint.startTimer({ projectId, note: "from a browser" })
  const active = await stint.getActiveTimer()
  const walked = []
  for await (const entry of stint.timeEntries({ pageSize: 5 })) walked.push(entry.id)
  const stopped = await stint.stopTimer(started.timer.id)
  const again = await stint.stopTimer(started.timer.id).catch((error) => error)
  return {
    replayed: started.replayed,
    note: active.timer?.note,
    walked,
    timerId: started.timer.id,
    stoppedTimerId: stopped.stoppedTimerId,
    again: again instanceof TimerAlreadyStopped ? [again.status, again.activeTimer] : String(again)
  }
}
`

describe("in headless Chromium", () => {
  let browser: Browser
  let server: Stint.Stint
  let proxy: FaultProxy.Proxy
  beforeAll(async () => {
    Stint.build()
    browser = await Chromium.launch()
    server = await Stint.start(fixture(2, 12))
  })
  afterAll(async () => {
    await browser.close()
    await server.close()
  })
  beforeEach(async () => {
    proxy = await FaultProxy.start(server.url)
  })
  afterEach(() => proxy.close())

  it("starts (retrying a lost answer), reads, walks the history and stops", async () => {
    const built = await bundle({ entryPoints: [join(Stint.root, "client/src/index.ts")], outfile: "client.js" })
    proxy.serve("/browser/client.js", "text/javascript", built.outputFiles?.[0]?.text ?? "")
    proxy.serve("/browser/run.js", "text/javascript", RUN)
    proxy.serve("/browser/", "text/html", `<!doctype html><script type="module" src="/browser/run.js"></script>`)
    proxy.inject("POST", /^\/api\/v1\/timers\/start$/, { _tag: "Drop" })
    const page = await browser.newPage()
    await page.goto(`${proxy.url}/browser/`)
    await page.waitForFunction(() => "runClient" in globalThis)
    const seen = await page.evaluate(
      ([key, projectId]) => (globalThis as unknown as { runClient: (key: string, projectId: string) => Promise<Seen> })
        .runClient(key, projectId),
      [keyOf(0), ids.website] as const
    )
    expect(seen).toMatchObject({ replayed: true, note: "from a browser", again: [409, null] })
    expect(seen.stoppedTimerId).toBe(seen.timerId)
    expect(seen.walked).toEqual([seen.timerId, ...Array.from({ length: 12 }, (_, n) => ids.entry(0, 11 - n))])
    const starts = proxy.log.filter((e) => e.path === "/api/v1/timers/start")
    expect(starts.map((e) => [e.fault, e.status])).toEqual([["Drop", 200], [undefined, 200]])
    expect(starts[0]?.headers["user-agent"]).toContain("HeadlessChrome")
  })
})
