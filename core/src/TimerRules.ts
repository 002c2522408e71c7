/**
 * The timer state machine as pure functions of `now`: start (completing the running entry), stop, void, moving a
 * start, and the derived fields of the Timer and Time entry resources.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { isTrackable } from "./Access.js"
import { ProjectNotFound, TimerAlreadyStopped, TimerNotFound, TimerVoided } from "./Errors.js"
import * as Money from "./Money.js"
import type { EntryFinish, EntryRecord, EntryRow, TrackingTarget, UserScope } from "./Records.js"
import { formatTimestamp, INT32_MAX, type TimeEntry, type Timer } from "./Schemas.js"

/**
 * Whole seconds from `from` to `to` (epoch ms), floored and clamped to 0..2147483647.
 *
 * @since 0.1.0
 */
export const wholeSeconds = (from: number, to: number): number =>
  Math.min(INT32_MAX, Math.max(0, Math.floor((to - from) / 1000)))

/**
 * The active timer resource of an active entry at `now`.
 *
 * @since 0.1.0
 */
export const toTimer = (entry: EntryRecord, now: number): Timer => ({
  id: entry.id,
  clientId: entry.clientId,
  clientName: entry.clientName,
  projectId: entry.projectId,
  projectName: entry.projectName,
  color: entry.color,
  billable: entry.billable,
  note: entry.note,
  startedAt: formatTimestamp(entry.startedAt),
  serverNow: formatTimestamp(now),
  elapsedSeconds: wholeSeconds(entry.startedAt, now),
  payRateCents: entry.payRateCents,
  currency: "USD"
})

/**
 * The history resource of an entry: `endedAt` and `durationSeconds` are null exactly while active; `earnings` only
 * for completed entries.
 *
 * @since 0.1.0
 */
export const toTimeEntry = (entry: EntryRecord): TimeEntry => {
  const ended = entry.status !== "active" && entry.endedAt !== null ? entry.endedAt : null
  const durationSeconds = ended === null ? null : wholeSeconds(entry.startedAt, ended)
  return {
    id: entry.id,
    clientId: entry.clientId,
    clientName: entry.clientName,
    projectId: entry.projectId,
    projectName: entry.projectName,
    color: entry.color,
    status: entry.status,
    billable: entry.billable,
    note: entry.note,
    startedAt: formatTimestamp(entry.startedAt),
    endedAt: ended === null ? null : formatTimestamp(ended),
    durationSeconds,
    payRateCents: entry.payRateCents,
    earnings: entry.status === "completed" && durationSeconds !== null
      ? Money.earnings({ payRateCents: entry.payRateCents, durationSeconds, billable: entry.billable })
      : null,
    currency: "USD"
  }
}

/**
 * A start: the new active entry, and the running one completed at the same instant.
 *
 * @since 0.1.0
 */
export interface Started {
  readonly finish: EntryFinish | undefined
  readonly insert: EntryRow
  readonly entry: EntryRecord
}

/**
 * When an active entry ends at `now`: `now`, or its start when `now` is earlier. A clock can be behind the one that
 * started the entry (another server instance whose clock lags, or this one's stepped back), and an entry never ends
 * before it started.
 */
const notBefore = (entry: { readonly startedAt: number }, now: number): number => Math.max(now, entry.startedAt)

/**
 * Starts a timer on `target` at `now` (at the running entry's start when that is later: a clock behind the one that
 * started it); `PROJECT_NOT_FOUND` unless the project is ready for tracking (never saying whether it exists).
 *
 * @since 0.1.0
 */
export const start = (options: {
  readonly scope: UserScope
  readonly id: string
  readonly now: number
  readonly running: Option.Option<EntryRecord>
  readonly target: Option.Option<TrackingTarget>
  readonly billable: boolean
  readonly note: string | null
}): Either.Either<Started, ProjectNotFound> => {
  const target = options.target
  if (Option.isNone(target) || !isTrackable(target.value) || target.value.assignedRateCents === null) {
    return Either.left(
      new ProjectNotFound({ message: "The project does not exist, is archived, or is not assigned to you." })
    )
  }
  const project = target.value
  const payRateCents = target.value.assignedRateCents
  // The new entry starts where the running one ends, never before it started (`notBefore`).
  const at = Option.match(options.running, {
    onNone: () => options.now,
    onSome: (running) => notBefore(running, options.now)
  })
  const insert: EntryRow = {
    id: options.id,
    workspaceId: options.scope.workspaceId,
    userId: options.scope.userId,
    projectId: project.id,
    status: "active",
    billable: options.billable,
    note: options.note,
    startedAt: at,
    endedAt: null,
    payRateCents
  }
  return Either.right({
    finish: Option.match(options.running, {
      onNone: () => undefined,
      onSome: (running) => ({ id: running.id, status: "completed" as const, endedAt: at })
    }),
    insert,
    entry: {
      id: insert.id,
      projectId: project.id,
      projectName: project.name,
      clientId: project.clientId,
      clientName: project.clientName,
      color: project.color,
      status: "active",
      billable: insert.billable,
      note: insert.note,
      startedAt: insert.startedAt,
      endedAt: null,
      payRateCents
    }
  })
}

/**
 * Stops the caller's entry at `now` (at its start when `now` is earlier): only an active entry can be stopped.
 *
 * @since 0.1.0
 */
export const stop = (
  entry: Option.Option<EntryRecord>,
  now: number
): Either.Either<EntryFinish, TimerNotFound | TimerAlreadyStopped | TimerVoided> => {
  if (Option.isNone(entry)) {
    return Either.left(new TimerNotFound({ message: "No such timer of yours in this workspace." }))
  }
  switch (entry.value.status) {
    case "active":
      return Either.right({ id: entry.value.id, status: "completed", endedAt: notBefore(entry.value, now) })
    case "completed":
      return Either.left(new TimerAlreadyStopped({ message: "The timer was already stopped." }))
    case "voided":
      return Either.left(new TimerVoided({ message: "The timer was voided." }))
  }
}

/**
 * Voids an entry: an active entry ends at `now` (at its start when `now` is earlier), a completed one keeps its end. Voiding twice is refused.
 *
 * @since 0.1.0
 */
export const voidEntry = (entry: EntryRecord, now: number): Either.Either<EntryFinish, "already voided"> =>
  entry.status === "voided"
    ? Either.left("already voided")
    : Either.right({ id: entry.id, status: "voided", endedAt: entry.endedAt ?? notBefore(entry, now) })

/**
 * Moves an entry's start. It may not move past the entry's end, nor, for an active entry, past `now`.
 *
 * @since 0.1.0
 */
export const moveStart = (
  entry: EntryRecord,
  startedAt: number,
  now: number
): Either.Either<{ readonly id: string; readonly startedAt: number }, string> => {
  const limit = entry.status === "active" ? now : entry.endedAt ?? now
  return startedAt > limit
    ? Either.left(entry.status === "active" ? "an active entry cannot start in the future" : "start after end")
    : Either.right({ id: entry.id, startedAt })
}
