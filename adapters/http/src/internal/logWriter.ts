/**
 * A buffered line writer for the request log: lines are gathered and written in one call when the buffer passes a
 * size, after a short tick, on `flush`, and when the process exits normally, instead of one console write per request.
 */

/** Where lines go, and when. */
export interface LineWriter {
  /** Queues one line (without its newline). */
  readonly write: (line: string) => void
  /** Writes everything queued now. */
  readonly flush: () => void
  /** Flushes and stops: later lines are written at once. */
  readonly close: () => void
}

/** How a writer is made. */
export interface Options {
  /** Writes a chunk of whole lines (newline-terminated). */
  readonly sink: (chunk: string) => void
  /** Flush once this many characters are queued. Default 32 KiB. */
  readonly maxChars?: number | undefined
  /** Flush this long after the first queued line at the latest. Default 20 ms. */
  readonly maxDelayMillis?: number | undefined
}

const writers = new Set<LineWriter>()
let exitHook = false

/** Every open writer flushes when the process exits normally (Node writes to pipes and files synchronously then). */
const onExit = () => {
  for (const writer of writers) writer.flush()
}

/** Makes a buffered writer. */
export const make = (options: Options): LineWriter => {
  const maxChars = options.maxChars ?? 32 * 1024
  const maxDelay = options.maxDelayMillis ?? 20
  let buffer = ""
  let timer: ReturnType<typeof setTimeout> | undefined
  let closed = false
  const flush = () => {
    if (timer !== undefined) {
      clearTimeout(timer)
      timer = undefined
    }
    if (buffer === "") return
    const chunk = buffer
    buffer = ""
    try {
      options.sink(chunk)
    } catch {
      // A broken log destination must not take requests with it.
    }
  }
  const writer: LineWriter = {
    write: (line) => {
      buffer += `${line}\n`
      if (closed || buffer.length >= maxChars) return flush()
      if (timer === undefined) {
        timer = setTimeout(flush, maxDelay)
        // The log never keeps a process alive; the exit hook writes what is left.
        timer.unref()
      }
    },
    flush,
    close: () => {
      flush()
      closed = true
      writers.delete(writer)
    }
  }
  writers.add(writer)
  if (!exitHook) {
    exitHook = true
    process.on("exit", onExit)
  }
  return writer
}

/** A writer to standard output. */
export const stdout = (): LineWriter => make({ sink: (chunk) => process.stdout.write(chunk) })
