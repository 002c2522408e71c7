/**
 * A process's CPU time so far, read from `/proc` (Linux): shared by `Cpu.ts` (`npm run bench`) and `gc.mjs`.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/** utime + stime of a process in ms, or 0 if it is gone. */
export const processMillis = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name is in parentheses and may hold spaces: the fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 1000 / ticksPerSecond
  } catch {
    return 0
  }
}
