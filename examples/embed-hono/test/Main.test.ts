/**
 * `dist/main.js` as a team runs it: it serves Stint and the team's route on a free port, and on SIGTERM it stops,
 * lets the request in flight finish, and disposes Stint, which closes the SQLite file (its WAL file is gone).
 */
import { it } from "vitest"
import { answersItsCommandLine, refusesADatabaseItCannotOpen, servesUntilSigterm } from "../../../testing/EmbedMain.js"

it("serves until SIGTERM, then finishes the request in flight, closes the store and exits 0", servesUntilSigterm("embed-hono"))

it("answers a database it cannot open with one line and exit 1", refusesADatabaseItCannotOpen("embed-hono"))

it("answers --help, an unknown option, a bad port and a port in use with a line and an exit code", answersItsCommandLine("embed-hono", ["--database", "sqlite:stint.db"]))
