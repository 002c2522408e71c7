/**
 * Reading callgrind's output for the instruction counts (`bench/instructions.mjs`, `bench/instructions-http.mjs`):
 * each function's own instructions in one thread's file, and which part of V8 a function belongs to.
 */

/**
 * Self cost by function in a callgrind file (names compressed as `(id) name`, then `(id)`). A line after `calls=` is
 * the call's inclusive cost, not the caller's own: skipped. Code without a symbol (V8's generated code) is `jit`.
 */
export const selfCost = (text) => {
  const costs = new Map()
  const names = new Map()
  const objects = new Map()
  const resolveName = (value, table) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(value)
    if (match === null) return value
    if (match[2] !== undefined) table.set(match[1], match[2])
    return table.get(match[1]) ?? "?"
  }
  let fn = "?"
  let object = ""
  let skip = false
  for (const line of text.split("\n")) {
    if (skip) {
      skip = false
    } else if (line.startsWith("fn=")) {
      fn = resolveName(line.slice(3), names)
    } else if (line.startsWith("ob=")) {
      object = resolveName(line.slice(3), objects)
    } else if (line.startsWith("cfn=")) {
      resolveName(line.slice(4), names)
    } else if (line.startsWith("cob=")) {
      resolveName(line.slice(4), objects)
    } else if (line.startsWith("calls=")) {
      skip = true
    } else if (/^[0-9+*-]/.test(line)) {
      const cost = Number(line.split(" ")[1])
      if (Number.isFinite(cost)) {
        const key = object === "???" ? "jit" : fn
        costs.set(key, (costs.get(key) ?? 0) + cost)
      }
    }
  }
  return costs
}

/**
 * Which part of V8 a function with a symbol belongs to (an approximate split, by name). Builtins (`Builtins_*`: V8's
 * own code for property access, calls, `Map`, strings, …) are the program's work wherever they run; so are the
 * heap's allocation paths. Garbage collection is the scavenger, the mark-compact collector and the sweeper; the
 * compilers are TurboFan, Maglev, the parser of source code and the bytecode generator.
 */
const GC = /Scaveng|MarkCompact|Marking|Sweep|Evacuat|heap::base|IterateObjectCache|RememberedSet|IteratePointers|SemiSpace|PagedSpace|Pretenuring|SlotSet|FreeList|WeakObjects|GlobalHandles|StringTableCleaner|ActiveSystemPages|BodyDescriptor|LiveObjectRange|Unmapper/
const COMPILER = /compiler::|maglev::|v8::internal::(Pre)?Parser|ParserBase|v8::internal::Scanner|AstValueFactory|interpreter::BytecodeGenerator|v8::internal::Zone::|CodeGenerator/
const MUTATOR = /^Builtins_|Heap::Allocate|Heap::CopyRange|Heap::NotifyObject/

const partOf = (name) =>
  MUTATOR.test(name) ? "mutator" : GC.test(name) ? "gc" : COMPILER.test(name) ? "compiler" : "mutator"

/** A thread's instructions by part (`partOf`), from its self costs. */
export const parts = (costs) => {
  const sums = { total: 0, gc: 0, compiler: 0, mutator: 0 }
  for (const [name, cost] of costs) {
    sums.total += cost
    sums[partOf(name)] += cost
  }
  return sums
}

/**
 * Rows of `[configuration, parts]` (instructions a request) as a Markdown table in thousands, each with its excess over
 * the row named `base` (none for that row itself, nor when there is no such row).
 */
export const table = (rows, base) => {
  const of = rows.find(([name]) => name === base)?.[1]
  const k = (n) => (n / 1000).toFixed(1).padStart(6)
  const over = (name, n, b) =>
    b === undefined || name === base ? "" : ` (${n >= b ? "+" : ""}${((n / b - 1) * 100).toFixed(1)}%)`
  return [
    "| configuration | mutator | garbage collection | compilers | total |",
    "|---|---|---|---|---|",
    ...rows.map(([name, sums]) =>
      `| ${name} | ${k(sums.mutator)}${over(name, sums.mutator, of?.mutator)} | ${k(sums.gc)} | ${k(sums.compiler)} | ${
        k(sums.total)
      }${over(name, sums.total, of?.total)} |`
    )
  ].join("\n")
}
