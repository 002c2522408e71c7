/**
 * Where a server's CPU time went, from a V8 `.cpuprofile` (`node --cpu-prof`): self time by part of the stack (Stint's
 * own packages, `effect`, the database driver, Node's internals, garbage collection) and the functions with the most
 * self time. Idle time is left out of the shares: they are of the time the process was on a CPU.
 */
import { readFileSync } from "node:fs"

interface Node {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}
interface CpuProfile {
  readonly nodes: ReadonlyArray<Node>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const PARTS: ReadonlyArray<readonly [string, (url: string, name: string) => boolean]> = [
  ["garbage collection", (_, name) => name === "(garbage collector)"],
  ["effect", (url) => url.includes("/node_modules/effect/") || url.includes("/node_modules/@effect/")],
  ["database driver", (url) => /\/node_modules\/(pg|pg-[\w-]+|better-sqlite3)\//.test(url)],
  ["opentelemetry", (url) => url.includes("/node_modules/@opentelemetry/")],
  ["stint", (url) => /\/(core|adapters\/[\w-]+|conformance)\/dist\//.test(url)],
  ["other packages", (url) => url.includes("/node_modules/")],
  ["node internals", (url) => url.startsWith("node:") || url === ""]
]

/** The summary of one profile as lines of text. */
export const summarize = (file: string, top = Number(process.env["STINT_BENCH_PROFILE_TOP"] ?? 15)): Array<string> => {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const self = new Map<number, number>()
  for (const [i, id] of profile.samples.entries()) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  const parts = new Map<string, number>()
  const functions = new Map<string, number>()
  let busy = 0
  for (const [id, micros] of self) {
    const frame = byId.get(id)?.callFrame
    if (frame === undefined || frame.functionName === "(idle)") continue
    busy += micros
    const part = PARTS.find(([, test]) => test(frame.url, frame.functionName))?.[0] ?? "other"
    parts.set(part, (parts.get(part) ?? 0) + micros)
    const where = frame.url === "" ? "" : ` ${frame.url.replace(/^.*\/node_modules\//, "").replace(/^file:\/\/.*?\/(?=(core|adapters|conformance)\/)/, "")}:${frame.lineNumber + 1}`
    const name = `${frame.functionName || "(anonymous)"}${where}`
    functions.set(name, (functions.get(name) ?? 0) + micros)
  }
  const share = (micros: number) => `${(100 * micros / Math.max(busy, 1)).toFixed(1).padStart(5)}%`
  return [
    `${file}: ${(busy / 1e6).toFixed(1)} s on CPU`,
    ...[...parts].sort((a, b) => b[1] - a[1]).map(([part, micros]) => `  ${share(micros)}  ${part}`),
    `  top ${top} functions by self time:`,
    ...[...functions].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, micros]) => `  ${share(micros)}  ${name}`)
  ]
}
