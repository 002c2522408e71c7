#!/usr/bin/env node
/**
 * `stint-timer`: start, stop and look at your Stint timers from a terminal. See `Cli.ts` and the README.
 */
import { run } from "./Cli.js"

process.exitCode = await run(process.argv.slice(2), {
  env: process.env,
  out: (line) => console.log(line),
  err: (line) => console.error(line)
})
