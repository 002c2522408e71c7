/**
 * Reads a Prometheus text exposition into samples, for tests that compare counters before and after: each sample
 * keyed by its name and its labels (sorted), e.g. `stint_http_requests_total{code="none",method="GET",…}`.
 */

/** Every sample of an exposition; comments and blank lines skipped. */
export const parse = (text: string): ReadonlyMap<string, number> => {
  const samples = new Map<string, number>()
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null) throw new Error(`not a sample line: ${line}`)
    const [, name = "", labels, value = ""] = match
    const pairs = labels === undefined || labels === ""
      ? []
      : [...labels.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => `${k}="${v}"`)
    samples.set(key(name, pairs), value === "+Inf" ? Infinity : Number(value))
  }
  return samples
}

const key = (name: string, pairs: ReadonlyArray<string>): string => `${name}{${[...pairs].sort().join(",")}}`

/** The key of a sample, for `parse`'s map. */
export const sample = (name: string, labels: Readonly<Record<string, string>> = {}): string =>
  key(name, Object.entries(labels).map(([k, v]) => `${k}="${v}"`))

/** How much each sample moved from `before` to `after` (a sample absent before counts from 0); unmoved ones left out. */
export const deltas = (
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
  prefix: string
): Record<string, number> => {
  const moved: Record<string, number> = {}
  for (const [name, value] of after) {
    if (!name.startsWith(prefix)) continue
    const delta = value - (before.get(name) ?? 0)
    if (delta !== 0) moved[name] = delta
  }
  return moved
}
