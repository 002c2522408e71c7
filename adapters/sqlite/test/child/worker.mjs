// A second OS process for the concurrency tests: plain JavaScript on the built packages (dist/), no test runner.
// Usage: node worker.mjs '<json options>'; prints one JSON line with its results on stdout.
//   mode "start": `count` startTimer requests (every third key shared with the other process, every fourth followed
//                 by a stop), `concurrency` at a time; reports when its burst began and ended (epoch ms).
//   mode "rate":  `count` getActiveTimer requests under a rate limit of `limit` per minute; prints how many passed.
//   mode "open":  opens the store (migrating a fresh file) and prints the cursor secret.
//   mode "hold":  takes the file's write lock directly with better-sqlite3, prints "locked", holds it `millis` ms.
// `barrier` makes workers begin their requests together (see `together`). `pauseMillis` spaces each fiber's
// requests like clients that think between them (a burst of synchronous requests can otherwise finish before the
// other process's busy handler next looks at the lock).
import { Operations, Request, Settings, Store } from "@stint/core"
import { SqliteStore } from "@stint/sqlite"
import Database from "better-sqlite3"
import { Effect } from "effect"

const options = JSON.parse(process.argv[2] ?? "{}")
const bearer = `Bearer ${options.key}`
const settings = {
  ...Settings.defaults,
  rateLimit: { limit: options.limit ?? 1_000_000_000, windowMillis: 60_000 }
}

const outcome = (effect) =>
  effect.pipe(
    Effect.map((result) => ({ ok: true, replayed: result.replayed, json: result.json })),
    Effect.catchAll((error) => Effect.succeed({ ok: false, error: error._tag }))
  )

const start = (i) => {
  const key = i % 3 === 0 ? `shared-${i}` : `${options.prefix}-${i}`
  return Effect.gen(function*() {
    if (options.pauseMillis !== undefined) yield* Effect.sleep(options.pauseMillis)
    const started = yield* outcome(Operations.startTimer({
      authorization: bearer,
      idempotencyKey: key,
      body: Request.json({ projectId: options.projectId })
    }))
    const results = [{ key, ...started }]
    if (started.ok && i % 4 === 0) {
      const timerId = JSON.parse(started.json).timer.id
      const stopKey = `${options.prefix}-stop-${i}`
      const stopped = yield* outcome(Operations.stopTimer({
        authorization: bearer,
        idempotencyKey: stopKey,
        path: { timerId }
      }))
      results.push({ key: stopKey, ...stopped })
    }
    return results
  })
}

// Workers given `barrier` print "ready" once their store is open and begin their burst when the parent writes "go"
// on stdin, which it does once every worker is ready: the bursts overlap however slowly each process started.
const together = options.barrier === true
  ? Effect.async((resume) => {
    process.stdout.write("ready\n")
    let input = ""
    const onData = (chunk) => {
      input += chunk.toString()
      if (input.includes("go")) {
        process.stdin.off("data", onData)
        process.stdin.pause()
        resume(Effect.void)
      }
    }
    process.stdin.on("data", onData)
  })
  : Effect.void

const modes = {
  start: () => {
    const began = Date.now()
    return Effect.map(
      Effect.forEach(Array.from({ length: options.count }, (_, i) => i), start, { concurrency: options.concurrency }),
      (results) => ({ results: results.flat(), began, ended: Date.now() })
    )
  },
  rate: () =>
    Effect.map(
      Effect.forEach(
        Array.from({ length: options.count }),
        () => Effect.either(Operations.getActiveTimer({ authorization: bearer })),
        { concurrency: options.concurrency }
      ),
      (results) => ({
        accepted: results.filter((r) => r._tag === "Right").length,
        refused: results.filter((r) => r._tag === "Left" && r.left._tag === "ApiKeyRateLimited").length
      })
    ),
  open: () =>
    Effect.gen(function*() {
      const store = yield* Store.Store
      yield* store.ping
      return { secret: Buffer.from(yield* store.cursorSecret).toString("hex") }
    })
}

if (options.mode === "hold") {
  const db = new Database(options.filename, { timeout: 10_000 })
  db.exec("BEGIN IMMEDIATE")
  process.stdout.write("locked\n")
  setTimeout(() => {
    db.exec("COMMIT")
    db.close()
    process.stdout.write("released\n")
  }, options.millis)
} else {
  const program = Effect.zipRight(Effect.flatMap(Store.Store, (store) => store.ping), together).pipe(
    Effect.zipRight(Effect.suspend(modes[options.mode])),
    Effect.provideService(Settings.Settings, settings),
    Effect.provide(SqliteStore.layer({ filename: options.filename }))
  )
  Effect.runPromise(program).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error) => {
      process.stderr.write(`${error?.stack ?? String(error)}\n`)
      process.exitCode = 1
    }
  )
}
