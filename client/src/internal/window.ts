/**
 * The client-side sliding window as a pure value: how many requests are in flight, and when each answered request
 * leaves the window. A request occupies its place from the moment it is sent until `windowMillis` after its answer:
 * the server counted it at some instant in between, so the server's window can never hold more than the client's.
 */

export interface Window {
  /** Requests sent and not yet answered. */
  readonly inFlight: number
  /** When each answered request leaves the window, ascending. */
  readonly ends: ReadonlyArray<number>
}

export const empty: Window = { inFlight: 0, ends: [] }

export type Decision =
  /** A place was taken: send now. */
  | { readonly _tag: "Taken"; readonly window: Window }
  /** Full: the earliest place frees at `at`. */
  | { readonly _tag: "WaitUntil"; readonly at: number; readonly window: Window }
  /** Full of requests in flight: a place frees when one is answered. */
  | { readonly _tag: "WaitForAnswer"; readonly window: Window }

/** Tries to take a place at `now`. */
export const take = (window: Window, now: number, limit: number): Decision => {
  const ends = window.ends.filter((end) => end > now)
  const current = { inFlight: window.inFlight, ends }
  if (ends.length + window.inFlight < limit) return { _tag: "Taken", window: { inFlight: window.inFlight + 1, ends } }
  const earliest = ends[0]
  return earliest === undefined
    ? { _tag: "WaitForAnswer", window: current }
    : { _tag: "WaitUntil", at: earliest, window: current }
}

/** A request taken from the window was answered (or given up) at `now`. */
export const answered = (window: Window, now: number, windowMillis: number): Window => {
  const end = now + windowMillis
  const ends = [...window.ends]
  let at = ends.length
  while (at > 0 && (ends[at - 1] ?? 0) > end) at--
  ends.splice(at, 0, end)
  return { inFlight: Math.max(0, window.inFlight - 1), ends }
}

/**
 * How long to wait after a 429, when the server's window is full of this key's requests from elsewhere too: until the
 * earliest of ours leaves it, or a whole window when none of ours is in it.
 */
export const waitAfterRateLimited = (window: Window, now: number, windowMillis: number): number => {
  const earliest = window.ends.find((end) => end > now)
  return earliest === undefined ? windowMillis : earliest - now
}
