/**
 * How `stint-timer` writes timers and entries: one line each, durations as `1h 02m 03s`, money in dollars.
 */
import type { TimeEntry, Timer } from "@stint/client"

/** `1h 02m 03s`, `2m 03s`, `5s`. */
export const duration = (seconds: number): string => {
  const h = Math.floor(seconds / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = seconds % 60
  const pad = (n: number) => String(n).padStart(2, "0")
  return h > 0 ? `${h}h ${pad(m)}m ${pad(s)}s` : m > 0 ? `${m}m ${pad(s)}s` : `${s}s`
}

/** `Website (Globex)`. */
export const what = (timer: Pick<Timer, "projectName" | "clientName">): string =>
  `${timer.projectName} (${timer.clientName})`

/** The running timer, for `status`. */
export const running = (timer: Timer): string =>
  `Running: ${what(timer)} for ${duration(timer.elapsedSeconds)}, since ${timer.startedAt}` +
  (timer.billable ? "" : ", not billable") + (timer.note === null ? "." : `. Note: ${timer.note}`)

/** One line of `history`: start, status, duration, project, earnings, note. */
export const entry = (e: TimeEntry): string =>
  [
    e.startedAt.slice(0, 16).replace("T", " "),
    e.status.padEnd(9),
    (e.durationSeconds === null ? "running" : duration(e.durationSeconds)).padStart(11),
    what(e),
    e.earnings === null ? "" : `$${e.earnings}`,
    e.note ?? ""
  ].filter((part) => part !== "").join("  ")
