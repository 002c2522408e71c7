/**
 * The benchmark's printed report: one table of requests per second, p50 and p99 per scenario and store (with the
 * ratios to the baseline when it ran), the deep page against the first page, and the memory run.
 */

/** Medians of one scenario on one target. */
export interface Figures {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  /** Responses other than 2xx, and transport errors: should be 0. */
  readonly failed: number
  /** Median CPU µs per request of the server process and of PostgreSQL (0 on SQLite: it runs in the server). */
  readonly cpu?: { readonly server: number; readonly database: number } | undefined
}

/** A ratio over rounds: median, lowest and highest. */
export interface Spread {
  readonly median: number
  readonly min: number
  readonly max: number
  /**
   * A 95% interval for the median, from the order statistics of the rounds' ratios (no assumption about their
   * distribution; `medianInterval`). Absent under 6 rounds, too few for one.
   */
  readonly interval?: readonly [number, number] | undefined
}

/**
 * The distribution-free interval for the median of `values` that covers it with at least 95% probability: from the
 * `j`-th lowest value to the `j`-th highest, `j` the largest rank for which fewer than 2.5% of samples would have the
 * median below the `j`-th lowest (the binomial distribution of `n` fair draws). `undefined` for fewer than 6 values.
 */
export const medianInterval = (values: ReadonlyArray<number>): readonly [number, number] | undefined => {
  const n = values.length
  let rank = 0
  let below = 0
  // P(exactly k of n values fall below the median) = C(n, k) / 2^n, built up from k = 0.
  for (let k = 0, p = 2 ** -n; k < n / 2; p = (p * (n - k)) / (k + 1), k++) {
    if (below + p > 0.025) break
    below += p
    rank = k + 1
  }
  if (rank === 0) return undefined
  const sorted = [...values].sort((a, b) => a - b)
  return [sorted[rank - 1] ?? Number.NaN, sorted[n - rank] ?? Number.NaN]
}

/**
 * Each round's ratio of the first target to the second. The two ran one right after the other, so a phase of the
 * machine longer than two runs falls on both; the ratio of the medians may pair figures from different rounds.
 */
export interface ByRound {
  readonly rps?: Spread | undefined
  /** The ratio of server + database CPU µs per request (database 0 on SQLite), when measured. */
  readonly cpu?: Spread | undefined
}

/** One scenario on one store: figures per target (Stint first, then the baseline). */
export interface Row {
  readonly store: string
  readonly scenario: string
  readonly figures: ReadonlyArray<Figures>
  /** With two targets: the ratios round by round. */
  readonly byRound?: ByRound | undefined
}

/** The deep page against the first page, per target. */
export interface DeepRow {
  readonly store: string
  readonly figures: ReadonlyArray<{ readonly depth: number; readonly firstP50: number; readonly deepP50: number; readonly ratio: number }>
}

/** RSS in MB after so many requests (0: before the first). */
export interface MemoryRow {
  readonly store: string
  readonly rss: ReadonlyArray<readonly [requests: number, megabytes: number]>
  readonly rps: number
  readonly failed: number
}

/** What to print. */
export interface Report {
  readonly labels: ReadonlyArray<string>
  readonly rows: ReadonlyArray<Row>
  readonly deepRows: ReadonlyArray<DeepRow>
  readonly memoryRows: ReadonlyArray<MemoryRow>
  readonly rounds: number
  readonly connections: number
  readonly duration: number
  readonly cores: number
}

const grid = (head: ReadonlyArray<string>, body: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)))
  const line = (r: ReadonlyArray<string>) => `| ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n")
}

const ratio = (a: number, b: number): string => (b > 0 ? (a / b).toFixed(2) : "-")

const spread = (s: Spread | undefined): string =>
  s === undefined
    ? "-"
    : `${s.median.toFixed(2)} [${s.min.toFixed(2)}..${s.max.toFixed(2)}]` +
      (s.interval === undefined ? "" : `, 95% ${s.interval[0].toFixed(2)}..${s.interval[1].toFixed(2)}`)

/** The report as Markdown tables. */
export const render = (report: Report): string => {
  const [stint, base] = report.labels
  const withBase = base !== undefined
  const head = ["store", "scenario", `${stint} req/s`, "p50 ms", "p99 ms"]
  if (withBase) head.push(`${base} req/s`, "p50 ms", "p99 ms", "req/s ratio", "p99 ratio")
  head.push("non-2xx")
  const body = report.rows.map((row) => {
    const [a, b] = row.figures
    const cells = [row.store, row.scenario, String(a?.rps ?? "-"), String(a?.p50 ?? "-"), String(a?.p99 ?? "-")]
    if (withBase) {
      cells.push(String(b?.rps ?? "-"), String(b?.p50 ?? "-"), String(b?.p99 ?? "-"))
      cells.push(a && b ? ratio(a.rps, b.rps) : "-", a && b ? ratio(a.p99, b.p99) : "-")
    }
    cells.push(row.figures.map((f) => String(f.failed)).join("/"))
    return cells
  })
  const cpuHead = ["store", "scenario", ...report.labels.flatMap((label) => [`${label} server µs`, `${label} PostgreSQL µs`])]
  if (withBase) cpuHead.push("server ratio", "server + database ratio")
  const cpuBody = report.rows.filter((row) => row.figures.every((f) => f.cpu !== undefined)).map((row) => {
    const [a, b] = row.figures
    const cells = [row.store, row.scenario, ...row.figures.flatMap((f) => [String(f.cpu?.server), String(f.cpu?.database)])]
    if (withBase && a?.cpu && b?.cpu) {
      cells.push(ratio(a.cpu.server, b.cpu.server), ratio(a.cpu.server + a.cpu.database, b.cpu.server + b.cpu.database))
    }
    return cells
  })
  const parts: Array<string> = report.rows.length === 0 ? [] : [
    `Medians of ${report.rounds} round(s) of ${report.duration} s, ${report.connections} connections, ${report.cores} cores` +
    (withBase ? `; ${stint} and ${base} alternate; ratio = ${stint} / ${base}` : ""),
    "",
    grid(head, body),
    ...(cpuBody.length === 0 ? [] : [
      "",
      "CPU time per request (medians; µs of the server process and of its database's PostgreSQL backends): robust to a busy machine",
      "",
      grid(cpuHead, cpuBody)
    ])
  ]
  const byRoundBody = report.rows.flatMap((row) =>
    row.byRound === undefined
      ? []
      : [[row.store, row.scenario, spread(row.byRound.rps), spread(row.byRound.cpu)]]
  )
  if (withBase && report.rounds >= 2 && byRoundBody.length > 0) {
    parts.push(
      "",
      `Round by round: ${stint} / ${base} in each of the ${report.rounds} rounds (the two run one right after the ` +
        `other, in alternating order: an even number of rounds balances it), median [lowest..highest], and from 6 ` +
        `rounds a 95% interval for the median`,
      "",
      grid(["store", "scenario", "req/s ratio", "server + database ratio"], byRoundBody)
    )
  }
  if (report.deepRows.length > 0) {
    const deepHead = ["store", "target", "depth", "first page p50 ms", "deep page p50 ms", "deep / first"]
    const deepBody = report.deepRows.flatMap((row) =>
      row.figures.map((f, i) => [row.store, report.labels[i] ?? "", String(f.depth), String(f.firstP50), String(f.deepP50), f.ratio.toFixed(2)])
    )
    parts.push(...(parts.length > 0 ? [""] : []), grid(deepHead, deepBody))
  }
  if (report.memoryRows.length > 0) {
    const marks = report.memoryRows[0]?.rss.map(([n]) => n) ?? []
    const memoryHead = ["store", ...marks.map((n) => (n === 0 ? "RSS at start" : `after ${n.toLocaleString("en-US")}`)), "req/s", "non-2xx"]
    const memoryBody = report.memoryRows.map((row) => [row.store, ...row.rss.map(([, mb]) => `${mb} MB`), String(row.rps), String(row.failed)])
    parts.push(...(parts.length > 0 ? [""] : []), `${stint} serve, mixed requests (getActiveTimer; start, then stop; first page)`, "", grid(memoryHead, memoryBody))
  }
  return parts.join("\n")
}

/** One operation of the core's own benchmark (`conformance/bench/core.mjs`), in µs per operation. */
export interface CoreRow {
  readonly store: string
  readonly operation: string
  readonly opsPerSecond: number
  readonly totalMicros: number
  readonly storeMicros: number
  readonly coreMicros: number
  /** Store calls per operation, and what the benchmark's timing of them costs inside core µs. */
  readonly storeCalls: number
  readonly timingMicros: number
}

/** The core's benchmark as a Markdown table. */
export const renderCore = (rows: ReadonlyArray<CoreRow>): string =>
  [
    "The core alone (no HTTP), one operation at a time; core µs = time outside the store's methods (target: at most 50)",
    "",
    grid(
      ["store", "operation", "ops/s", "µs/op", "store µs", "core µs", "store calls", "timing µs (in core µs)"],
      rows.map((r) => [
        r.store,
        r.operation,
        String(r.opsPerSecond),
        String(r.totalMicros),
        String(r.storeMicros),
        String(r.coreMicros),
        String(r.storeCalls),
        String(r.timingMicros)
      ])
    )
  ].join("\n")
