#!/usr/bin/env node
/**
 * The `stint` executable.
 *
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Cli from "./Cli.js"

NodeRuntime.runMain(Cli.run(process.argv).pipe(Effect.provide(NodeContext.layer)), {
  disableErrorReporting: true,
  // The server installs its own JSON logger; the runtime's pretty logger would print every request a second time.
  disablePrettyLogger: true,
  teardown: (exit, onExit) =>
    onExit(
      Exit.isSuccess(exit)
        ? (typeof exit.value === "number" ? exit.value : 0)
        : Cause.isInterruptedOnly(exit.cause) ? 0 : 1
    )
})
