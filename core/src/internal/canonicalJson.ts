/**
 * Canonical JSON: object keys sorted, no whitespace. Two JSON values are JSON-equal exactly when their canonical forms
 * are equal (key order and whitespace do not matter; `1.0` and `1` are the same number once parsed). Values up to
 * `SHALLOW_DEPTH` levels deep (a timer body is two levels; a request body may have up to 64) are written by plain
 * recursion, which allocates nothing beyond the strings; deeper ones, and cyclic ones, with an explicit stack, so
 * that any depth of input is fine.
 */

/** How deep the recursive writer goes before it hands the value to the stack-based one. */
const SHALLOW_DEPTH = 32

/** Thrown by the recursive writer past `SHALLOW_DEPTH` (a cycle gets there too). */
const TOO_DEEP: unique symbol = Symbol("canonicalJson: too deep")

const shallow = (value: unknown, depth: number): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (depth === 0) throw TOO_DEEP
  if (Array.isArray(value)) {
    let out = "["
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + shallow(value[i], depth - 1)
    return out + "]"
  }
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  let out = "{"
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    out += (i > 0 ? "," : "") + JSON.stringify(key) + ":" + shallow(record[key], depth - 1)
  }
  return out + "}"
}

/** Writes a parsed JSON value canonically. Throws a `TypeError` on a cyclic value (as `JSON.stringify` does). */
export const canonicalJson = (value: unknown): string => {
  try {
    return shallow(value, SHALLOW_DEPTH)
  } catch (error) {
    if (error !== TOO_DEEP) throw error
    return deep(value)
  }
}

type Task =
  | { readonly _tag: "Value"; readonly value: unknown }
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Leave"; readonly container: object }

/** The same, with an explicit stack: any depth; a cycle throws a `TypeError`. */
const deep = (value: unknown): string => {
  const out: Array<string> = []
  const stack: Array<Task> = [{ _tag: "Value", value }]
  // The containers on the current path, to refuse cycles instead of looping for ever.
  const open = new Set<object>()
  for (let task = stack.pop(); task !== undefined; task = stack.pop()) {
    if (task._tag === "Text") {
      out.push(task.text)
      continue
    }
    if (task._tag === "Leave") {
      open.delete(task.container)
      continue
    }
    const v = task.value
    if (v === null || typeof v !== "object") {
      out.push(JSON.stringify(v) ?? "null")
      continue
    }
    if (open.has(v)) throw new TypeError("canonicalJson: the value is cyclic")
    open.add(v)
    stack.push({ _tag: "Leave", container: v })
    if (Array.isArray(v)) {
      stack.push({ _tag: "Text", text: "]" })
      for (let i = v.length - 1; i >= 0; i--) {
        stack.push({ _tag: "Value", value: v[i] })
        if (i > 0) stack.push({ _tag: "Text", text: "," })
      }
      stack.push({ _tag: "Text", text: "[" })
      continue
    }
    const record = v as Record<string, unknown>
    const keys = Object.keys(record).sort()
    stack.push({ _tag: "Text", text: "}" })
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string
      stack.push({ _tag: "Value", value: record[key] })
      stack.push({ _tag: "Text", text: `${i > 0 ? "," : ""}${JSON.stringify(key)}:` })
    }
    stack.push({ _tag: "Text", text: "{" })
  }
  return out.join("")
}
