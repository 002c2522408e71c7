/**
 * The benchmarks' command-line numbers.
 */

/** A whole number above 0 given for option `name` (a count of requests, rounds, connections…), else an error. */
export const wholeNumber = (name, text) => {
  const value = Number(text)
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a whole number above 0, not ${text}`)
  return value
}
