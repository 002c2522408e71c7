/**
 * Canonical JSON: object keys sorted, no whitespace. Two JSON values are JSON-equal exactly when their canonical forms
 * are equal (key order and whitespace do not matter; `1.0` and `1` are the same number once parsed).
 */

/** Writes a parsed JSON value canonically. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(",")}}`
}
