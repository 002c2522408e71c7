/**
 * The shape check every request body passes before anything else looks into it: a plain JSON value (null, booleans,
 * finite numbers, strings, arrays, plain objects; a tree, no cycles), at most `maxDepth` levels of arrays and objects
 * deep and at most `maxNodes` values in all. Iterative, so that no depth of input reaches the call stack; the first
 * problem found is reported with its path.
 */

/** The bounds of a body. */
export interface Limits {
  /** Arrays and objects nested in each other, the outermost counting as one. */
  readonly maxDepth: number
  /** Values in all (every array, object, and leaf). */
  readonly maxNodes: number
}

/** What is wrong, and where: the path from the root to the offending value. */
export interface Problem {
  readonly reason: "too deep" | "too large" | "not JSON"
  readonly path: ReadonlyArray<string | number>
}

interface At {
  readonly parent: At | null
  readonly key: string | number
}

interface Task {
  readonly value: unknown
  readonly depth: number
  readonly at: At | null
}

const pathOf = (at: At | null): Array<string | number> => {
  const path: Array<string | number> = []
  for (let node = at; node !== null; node = node.parent) path.push(node.key)
  return path.reverse()
}

const isPlainObject = (value: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * The first problem of `value` under `limits`, or `undefined` when it is a plain JSON tree within them. A value that
 * throws while being read (a proxy, a getter) is "not JSON".
 */
export const check = (value: unknown, limits: Limits): Problem | undefined => {
  const stack: Array<Task> = [{ value, depth: 0, at: null }]
  // Every container on the way down: a value met twice is a cycle or a shared branch, neither of which JSON has.
  const seen = new WeakSet<object>()
  let nodes = 0
  let current: At | null = null
  try {
    for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
      current = task.at
      nodes++
      if (nodes > limits.maxNodes) return { reason: "too large", path: pathOf(task.at) }
      const v = task.value
      if (v === null || typeof v === "string" || typeof v === "boolean") continue
      if (typeof v === "number") {
        if (Number.isFinite(v)) continue
        return { reason: "not JSON", path: pathOf(task.at) }
      }
      if (typeof v !== "object") return { reason: "not JSON", path: pathOf(task.at) }
      if (seen.has(v)) return { reason: "not JSON", path: pathOf(task.at) }
      seen.add(v)
      const depth = task.depth + 1
      if (depth > limits.maxDepth) return { reason: "too deep", path: pathOf(task.at) }
      if (Array.isArray(v)) {
        if (nodes + v.length > limits.maxNodes) return { reason: "too large", path: pathOf(task.at) }
        for (let i = v.length - 1; i >= 0; i--) {
          if (!Object.hasOwn(v, i)) return { reason: "not JSON", path: pathOf({ parent: task.at, key: i }) }
          stack.push({ value: v[i], depth, at: { parent: task.at, key: i } })
        }
        continue
      }
      if (!isPlainObject(v)) return { reason: "not JSON", path: pathOf(task.at) }
      if (Object.getOwnPropertySymbols(v).length > 0) return { reason: "not JSON", path: pathOf(task.at) }
      const keys = Object.keys(v)
      if (nodes + keys.length > limits.maxNodes) return { reason: "too large", path: pathOf(task.at) }
      const record = v as Record<string, unknown>
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string
        stack.push({ value: record[key], depth, at: { parent: task.at, key } })
      }
    }
  } catch {
    return { reason: "not JSON", path: pathOf(current) }
  }
  return undefined
}
