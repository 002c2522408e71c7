/**
 * Canonical JSON: object keys sorted, no whitespace. Two JSON values are JSON-equal exactly when their canonical forms
 * are equal (key order and whitespace do not matter; `1.0` and `1` are the same number once parsed). Written with an
 * explicit stack, so that any depth of input is fine.
 */

type Task =
  | { readonly _tag: "Value"; readonly value: unknown }
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Leave"; readonly container: object }

/** Writes a parsed JSON value canonically. Throws a `TypeError` on a cyclic value (as `JSON.stringify` does). */
export const canonicalJson = (value: unknown): string => {
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
