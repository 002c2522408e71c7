/**
 * `dist/main.js` as a team runs it by hand: its command line is answered with a line and an exit code, never a stack
 * trace.
 */
import { it } from "vitest"
import { answersItsCommandLine } from "../../../testing/EmbedMain.js"

it("answers --help, an unknown option, a bad port and a port in use with a line and an exit code", answersItsCommandLine("embed-core", ["--sqlite", "stint.db"]))
