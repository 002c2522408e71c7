/**
 * The timer's transitions against a clock that may be behind the one that started the running entry (another
 * instance's clock lags, or this one stepped back): no entry ever ends before it started, and a start never begins
 * before the entry it completes began.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { TimerRules } from "@stint/core"
import * as Either from "effect/Either"
import * as Option from "effect/Option"

const INSTANT = fc.integer({ min: 0, max: 4_102_444_800_000 })

const entry = (startedAt: number) => ({
  id: "0190a6b2-de70-7000-8000-000000000010",
  projectId: "0190a6b2-de70-7000-8000-000000000020",
  projectName: "Website",
  clientId: "0190a6b2-de70-7000-8000-000000000030",
  clientName: "Globex",
  color: "#ff5c35",
  status: "active" as const,
  billable: true,
  note: null,
  startedAt,
  endedAt: null,
  payRateCents: 7500
})

const target = {
  id: "0190a6b2-de70-7000-8000-000000000020",
  clientId: "0190a6b2-de70-7000-8000-000000000030",
  name: "Website",
  color: "#ff5c35",
  archived: false,
  clientArchived: false,
  clientName: "Globex",
  assignedRateCents: 7500
}

const scope = { workspaceId: "0190a6b2-de70-7000-8000-000000000040", userId: "0190a6b2-de70-7000-8000-000000000050" }

describe("TimerRules under a clock behind the running entry's start", () => {
  it.prop("stop ends the entry at now, or at its start when now is earlier", [INSTANT, INSTANT], ([startedAt, now]) => {
    const finish = Either.getOrThrow(TimerRules.stop(Option.some(entry(startedAt)), now))
    expect(finish.endedAt).toBe(Math.max(startedAt, now))
  })

  it.prop("void of an active entry likewise", [INSTANT, INSTANT], ([startedAt, now]) => {
    const finish = Either.getOrThrow(TimerRules.voidEntry(entry(startedAt), now))
    expect(finish.endedAt).toBe(Math.max(startedAt, now))
  })

  it.prop(
    "start completes the running entry where the new one starts, never before the running one began",
    [INSTANT, INSTANT],
    ([runningSince, now]) => {
      const started = Either.getOrThrow(TimerRules.start({
        scope,
        id: "0190a6b2-de70-7000-8000-000000000060",
        now,
        running: Option.some(entry(runningSince)),
        target: Option.some(target),
        billable: true,
        note: null
      }))
      const at = Math.max(runningSince, now)
      expect(started.finish?.endedAt).toBe(at)
      expect(started.insert.startedAt).toBe(at)
      // Its timer, read at `now`, has run for no time at all rather than a negative one.
      expect(TimerRules.toTimer(started.entry, now).elapsedSeconds).toBe(Math.max(0, Math.floor((now - at) / 1000)))
    }
  )

  it.prop("with nothing running, a start is at now", [INSTANT], ([now]) => {
    const started = Either.getOrThrow(TimerRules.start({
      scope,
      id: "0190a6b2-de70-7000-8000-000000000060",
      now,
      running: Option.none(),
      target: Option.some(target),
      billable: true,
      note: null
    }))
    expect(started.insert.startedAt).toBe(now)
    expect(started.finish).toBeUndefined()
  })
})
