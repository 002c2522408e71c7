/**
 * `stint-timer`'s commands over `@stint/client`'s Promise face: `status`, `start`, `stop` and `history`. It takes the
 * arguments, the environment and where to print, and answers the exit status (0 done, 1 refused or failed, 2 not
 * understood), so that tests and other programs can run it without a process.
 */
import { ApiError, type Project, StintClient, StintError } from "@stint/client"
import { parseArgs } from "node:util"
import * as Format from "./Format.js"

/** Where the command reads its settings and writes its lines. */
export interface Io {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly out: (line: string) => void
  readonly err: (line: string) => void
}

/** The help text. */
export const usage = `Usage: stint-timer <command> [options]

Commands:
  status                               show the running timer
  start [PROJECT] [--note TEXT] [--not-billable]
                                       start a timer on PROJECT, a name or an id (default: your only project);
                                       a timer already running is stopped
  stop                                 stop the running timer
  history [--limit N] [--project PROJECT]
                                       your latest entries, newest first (default 10)

Environment: STINT_API_KEY (required; \`npm start\` prints one), STINT_URL (default http://127.0.0.1:8787).`

/** The command line was not understood. */
class UsageError extends Error {}

/** The command cannot do what was asked (nothing to stop, no such project). */
class Refused extends Error {}

const options = {
  note: { type: "string" },
  "not-billable": { type: "boolean" },
  limit: { type: "string" },
  project: { type: "string" },
  help: { type: "boolean", short: "h" }
} as const

type Parsed = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true; strict: true }>>

/** Refuses options and arguments the command does not take. */
const only = (parsed: Parsed, allowed: ReadonlyArray<keyof typeof options>, positionals: number) => {
  const extra = Object.keys(parsed.values).find((name) => !allowed.includes(name as keyof typeof options))
  if (extra !== undefined) throw new UsageError(`--${extra} is not an option of this command`)
  const unexpected = parsed.positionals[positionals]
  if (unexpected !== undefined) throw new UsageError(`unexpected argument ${unexpected}`)
}

/** Finds a project by id or by name (case-insensitive) among those the key's user can track. */
const findProject = async (stint: StintClient, wanted: string | undefined): Promise<Project> => {
  const { clients } = await stint.listClients()
  const projects = (await Promise.all(clients.map((client) => stint.listProjects(client.id))))
    .flatMap(({ projects }) => projects)
  const matches = wanted === undefined
    ? projects
    : projects.filter((p) => p.id === wanted.toLowerCase() || p.name.toLowerCase() === wanted.toLowerCase())
  const [project, ...others] = matches
  if (project !== undefined && others.length === 0) return project
  const names = projects.map((p) => `${p.name} (${p.id})`).join(", ") || "none"
  throw new Refused(
    project === undefined
      ? `no project ${JSON.stringify(wanted ?? "")}; yours: ${names}`
      : `name a project: ${matches.map((p) => `${p.name} (${p.id})`).join(", ")}`
  )
}

const status = async (stint: StintClient, io: Io) => {
  const { timer } = await stint.getActiveTimer()
  io.out(timer === null ? "No timer running." : Format.running(timer))
}

const start = async (stint: StintClient, io: Io, parsed: Parsed) => {
  const project = await findProject(stint, parsed.positionals[0])
  const note = parsed.values.note
  const result = await stint.startTimer({
    projectId: project.id,
    ...(note === undefined ? {} : { note }),
    ...(parsed.values["not-billable"] === true ? { billable: false } : {})
  })
  if (result.timer !== null) io.out(`Started ${Format.what(result.timer)} at ${result.timer.startedAt}.`)
  if (result.stoppedTimerId !== null) io.out(`Stopped the timer that was running (${result.stoppedTimerId}).`)
}

const stop = async (stint: StintClient, io: Io) => {
  const { timer } = await stint.getActiveTimer()
  if (timer === null) throw new Refused("no timer running")
  await stint.stopTimer(timer.id)
  const { entries } = await stint.listTimeEntries({ limit: 5 })
  const entry = entries.find((e) => e.id === timer.id)
  io.out(`Stopped ${Format.what(timer)} after ${Format.duration(entry?.durationSeconds ?? timer.elapsedSeconds)}.`)
}

const history = async (stint: StintClient, io: Io, parsed: Parsed) => {
  const limit = Number(parsed.values.limit ?? "10")
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError("--limit takes a whole number from 1")
  const wanted = parsed.values.project
  const projectId = wanted === undefined ? undefined : (await findProject(stint, wanted)).id
  let shown = 0
  for await (const entry of stint.timeEntries({ projectId, pageSize: Math.min(limit, 100) })) {
    io.out(Format.entry(entry))
    if (++shown === limit) break
  }
  if (shown === 0) io.out("No entries yet.")
}

/** Runs `stint-timer ARGS` and answers the exit status. */
export const run = async (args: ReadonlyArray<string>, io: Io): Promise<number> => {
  try {
    const parsed = (() => {
      try {
        return parseArgs({ args: [...args], options, allowPositionals: true, strict: true })
      } catch (error) {
        throw new UsageError(error instanceof Error ? error.message : String(error))
      }
    })()
    const [command, ...positionals] = parsed.positionals
    if (parsed.values.help === true || command === "help") {
      io.out(usage)
      return 0
    }
    const apiKey = io.env.STINT_API_KEY
    if (apiKey === undefined || apiKey === "") throw new UsageError("set STINT_API_KEY to your API key")
    const stint = new StintClient({ baseUrl: io.env.STINT_URL ?? "http://127.0.0.1:8787", apiKey })
    const rest = { ...parsed, positionals }
    switch (command) {
      case "status":
        only(rest, [], 0)
        return await status(stint, io).then(() => 0)
      case "start":
        only(rest, ["note", "not-billable"], 1)
        return await start(stint, io, rest).then(() => 0)
      case "stop":
        only(rest, [], 0)
        return await stop(stint, io).then(() => 0)
      case "history":
        only(rest, ["limit", "project"], 0)
        return await history(stint, io, rest).then(() => 0)
      default:
        throw new UsageError(command === undefined ? "name a command" : `unknown command ${command}`)
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`stint-timer: ${error.message}\n\n${usage}`)
      return 2
    }
    if (error instanceof ApiError) io.err(`stint-timer: ${error.code}: ${error.message} (request ${error.requestId})`)
    else if (error instanceof Refused || error instanceof StintError) io.err(`stint-timer: ${error.message}`)
    else throw error
    return 1
  }
}
