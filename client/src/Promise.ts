/**
 * The client for callers who have never seen Effect: `new StintClient({ baseUrl, apiKey })`, methods that return
 * Promises, errors thrown as the classes of `Errors`, and `timeEntries` as an async iterator. It runs the Effect
 * service of `StintClient.ts` on `fetch`: one implementation, two faces.
 *
 * @since 0.1.0
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Stream from "effect/Stream"
import type { StintClientOptions } from "./Options.js"
import type {
  ActiveTimerResponse,
  CallOptions,
  CreateProjectInput,
  CreateProjectResult,
  ListClientsResponse,
  ListProjectsResponse,
  MutationOptions,
  StartTimerInput,
  TimeEntriesFilter,
  TimeEntriesPage,
  TimeEntriesQuery,
  TimeEntry,
  TimerMutationResult
} from "./Resources.js"
import * as Service from "./StintClient.js"

/**
 * The options of the Promise client.
 *
 * @since 0.1.0
 */
export interface PromiseClientOptions extends StintClientOptions {
  /** The `fetch` to send requests with. Default: the platform's (`globalThis.fetch`). */
  readonly fetch?: typeof globalThis.fetch | undefined
}

const aborted = (signal: AbortSignal) =>
  Effect.async<never>((resume) => {
    const onAbort = () => resume(Effect.die(signal.reason))
    if (signal.aborted) return onAbort()
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/** Stops handing out entries once the signal is aborted, even those of a page already fetched. */
const abortable = <A>(iterable: AsyncIterable<A>, signal: AbortSignal): AsyncIterable<A> => ({
  [Symbol.asyncIterator]: () => {
    const inner = iterable[Symbol.asyncIterator]()
    const finish = async (): Promise<IteratorResult<A>> => (await inner.return?.()) ?? { done: true, value: undefined }
    return {
      next: async () => {
        if (!signal.aborted) return inner.next()
        await finish()
        throw signal.reason
      },
      return: finish
    }
  }
})

/**
 * The iterable as an async generator, which keeps the iterator protocol where `Stream.toAsyncIterable` does not: a
 * `next()` after the end or after a failure answers `{ done: true }` (it would wait for ever), calls made before the
 * previous one settled wait their turn (they would be lost), and `return()` still reaches the stream.
 */
const dependable = <A>(iterable: AsyncIterable<A>): AsyncIterable<A> => ({
  [Symbol.asyncIterator]: async function*() {
    yield* iterable
  }
})

/**
 * Stint's API with the spec's client rules built in: a fresh `Idempotency-Key` for each start and stop, retried with
 * the same key and input after a network failure, a timeout or a 500; createProject reconciled instead of retried;
 * 409s reconciled with the active timer; a client-side window of 120 requests per 60 s that queues calls; and
 * pagination that never yields an entry twice.
 *
 * @since 0.1.0
 */
export class StintClient {
  readonly #service: Service.Service
  readonly #fetch: typeof globalThis.fetch | undefined

  /** Throws a `TypeError` naming the first invalid option. */
  constructor(options: PromiseClientOptions) {
    const made = Effect.runSyncExit(Effect.provide(Service.make(options), FetchHttpClient.layer))
    if (Exit.isFailure(made)) throw Cause.squash(made.cause)
    this.#service = made.value
    this.#fetch = options.fetch
  }

  #run<A, E>(effect: Effect.Effect<A, E>, options: CallOptions = {}): Promise<A> {
    const { signal } = options
    const fetch = this.#fetch
    const withFetch = fetch === undefined ? effect : Effect.provideService(effect, FetchHttpClient.Fetch, fetch)
    return Effect.runPromiseExit(withFetch, signal === undefined ? undefined : { signal }).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      if (signal?.aborted === true && Cause.isInterruptedOnly(exit.cause)) throw signal.reason
      throw Cause.squash(exit.cause)
    })
  }

  /** The workspace's clients the key's user sees, and whether it may create projects. */
  listClients(options?: CallOptions): Promise<ListClientsResponse> {
    return this.#run(this.#service.listClients(), options)
  }

  /** The unarchived projects of a client that the key's user is assigned to. */
  listProjects(clientId: string, options?: CallOptions): Promise<ListProjectsResponse> {
    return this.#run(this.#service.listProjects(clientId), options)
  }

  /**
   * Creates a project (owners and admins). Never retried: after no answer, a timeout or a 5xx it lists the client's
   * projects and returns the one with that name (`reconciled: true`), or throws the original error.
   */
  createProject(input: CreateProjectInput, options?: CallOptions): Promise<CreateProjectResult> {
    return this.#run(this.#service.createProject(input), options)
  }

  /** The running timer, or `null`. */
  getActiveTimer(options?: CallOptions): Promise<ActiveTimerResponse> {
    return this.#run(this.#service.getActiveTimer(), options)
  }

  /** Starts a timer (completing the running one), retried safely under one `Idempotency-Key`. */
  startTimer(input: StartTimerInput, options: MutationOptions = {}): Promise<TimerMutationResult> {
    return this.#run(this.#service.startTimer(input, options), options)
  }

  /** Stops a timer, retried safely under one `Idempotency-Key`. */
  stopTimer(timerId: string, options: MutationOptions = {}): Promise<TimerMutationResult> {
    return this.#run(this.#service.stopTimer(timerId, options), options)
  }

  /** One page of the history; pass `nextCursor` back unchanged with the same filter and limit. */
  listTimeEntries(query?: TimeEntriesQuery, options?: CallOptions): Promise<TimeEntriesPage> {
    return this.#run(this.#service.listTimeEntries(query), options)
  }

  /** Every entry of the history, newest first, fetched page by page as you iterate; never one entry twice. */
  timeEntries(filter?: TimeEntriesFilter, options: CallOptions = {}): AsyncIterable<TimeEntry> {
    const { signal } = options
    const entries = this.#service.timeEntries(filter)
    const fetch = this.#fetch
    const withFetch = fetch === undefined ? entries : Stream.provideService(entries, FetchHttpClient.Fetch, fetch)
    if (signal === undefined) return dependable(Stream.toAsyncIterable(withFetch))
    // The stream is interrupted while a page is on its way; the iterator stops between entries.
    return dependable(abortable(Stream.toAsyncIterable(Stream.interruptWhen(withFetch, aborted(signal))), signal))
  }
}
