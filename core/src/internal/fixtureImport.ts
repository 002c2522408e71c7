/**
 * Loading a fixture from a `FixtureSource`, all or nothing. The small sections are read whole; time entries are read
 * in batches of `BATCH_SIZE`. A fixture whose entries fit in one batch is looked up once and inserted with
 * `AdminStore.insert` (one transaction, as for every admin operation); a larger one is checked and inserted batch by
 * batch inside one `AdminStore.bulk` load (or buffered into one `insert` when the store has no bulk path), so
 * memory holds two batches and the ids seen, never the file.
 */
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as ApiKey from "../ApiKey.js"
import { AdminInputInvalid, type RecordConflict, type StoreError } from "../Errors.js"
import type { FixtureSource, Member } from "../FixtureSource.js"
import * as Ids from "../Ids.js"
import { type Dataset, emptyDataset } from "../Records.js"
import { type AdminStore, type BulkTransaction, Store } from "../Store.js"
import { checkEntries, type EntryInput, entryRefs, learn, prepare, refsOf, type SmallFile } from "./fixtureRules.js"
import { decodeFile, type Element, elementDecoder, jsonPath, memberProblem, SECTION_NAMES, type SectionName } from "./fixtureSchema.js"

/** Time entries checked and inserted together. */
export const BATCH_SIZE = 1_000

/** What loading printed: every key of the fixture with its plaintext, and the rows loaded per kind. */
export interface Summary {
  readonly apiKeys: ReadonlyArray<{
    readonly id: string
    readonly key: string
    readonly userId: string
    readonly workspaceId: string
  }>
  readonly counts: { readonly [K in keyof Dataset]: number }
}

const lower = (id: string) => id.toLowerCase()

const isSection = (name: string): name is SectionName => (SECTION_NAMES as ReadonlyArray<string>).includes(name)

const NO_ROWS: Dataset = emptyDataset

/** Every batch buffered and inserted at the end in one `insert`: the bulk path of a store that has none. */
const buffered = (admin: AdminStore) =>
<A, E, R>(body: (tx: BulkTransaction) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const batches: Array<Dataset> = []
    const result = yield* body({ lookup: admin.lookup, insert: (dataset) => Effect.sync(() => void batches.push(dataset)) })
    yield* admin.insert({
      workspaces: batches.flatMap((b) => b.workspaces),
      users: batches.flatMap((b) => b.users),
      memberships: batches.flatMap((b) => b.memberships),
      clients: batches.flatMap((b) => b.clients),
      projects: batches.flatMap((b) => b.projects),
      assignments: batches.flatMap((b) => b.assignments),
      apiKeys: batches.flatMap((b) => b.apiKeys),
      timeEntries: batches.flatMap((b) => b.timeEntries)
    })
    return result
  })

/** Decodes `elements` of `section`, numbered from `offset`; the first invalid one fails with its JSON path. */
const decodeAll = <S extends SectionName>(
  section: S,
  elements: Iterable<unknown>,
  offset: number
): Either.Either<Array<Element<S>>, AdminInputInvalid> => {
  const decode = elementDecoder(section)
  const decoded: Array<Element<S>> = []
  let index = offset
  for (const element of elements) {
    const result = decode(element, index++)
    if (Either.isLeft(result)) return Either.left(result.left)
    decoded.push(result.right)
  }
  return Either.right(decoded)
}

/** The members of the document by name, refusing unknown and repeated names (and a document that is no object). */
const membersOf = <E>(source: FixtureSource<E>) =>
  Effect.gen(function*() {
    const document = yield* source.open
    if (document._tag === "Other") {
      return yield* Either.match(decodeFile(document.value), {
        onLeft: (problem) => Effect.fail(problem),
        onRight: () => Effect.succeed(new Map<SectionName, Member<E>>())
      })
    }
    const members = new Map<SectionName, Member<E>>()
    for (const member of document.members) {
      if (!isSection(member.name)) return yield* memberProblem(member.name, member._tag === "Value" ? member.value : [])
      if (members.has(member.name)) {
        return yield* new AdminInputInvalid({ path: jsonPath([member.name]), message: "appears more than once" })
      }
      members.set(member.name, member)
    }
    return members
  })

/** A member that is not an array fails as the whole-file decode would (an absent section decodes fine). */
const arrayOf = <E>(member: Member<E> | undefined) =>
  member === undefined
    ? Effect.succeed(undefined)
    : member._tag === "Array"
    ? Effect.succeed(member.elements)
    : Either.match(decodeFile({ [member.name]: member.value }), {
      onLeft: (problem) => Effect.fail(problem),
      onRight: () => Effect.succeed(undefined)
    })

/**
 * Loads the fixture `source` reads, all or nothing: validated against itself and the store, naming the JSON path of
 * the first problem found.
 */
export const loadFrom = <E>(
  source: FixtureSource<E>
): Effect.Effect<Summary, AdminInputInvalid | RecordConflict | StoreError | E, Store> =>
  Effect.map(loadRowsFrom(source), (loaded) => loaded.summary)

/**
 * `loadFrom`, answering also the rows written other than time entries, with every default filled in (what an admin
 * command prints: an assignment's rate taken from the membership, say).
 */
export const loadRowsFrom = <E>(
  source: FixtureSource<E>
): Effect.Effect<
  { readonly summary: Summary; readonly rows: Omit<Dataset, "timeEntries"> },
  AdminInputInvalid | RecordConflict | StoreError | E,
  Store
> =>
  Effect.scoped(Effect.gen(function*() {
    const members = yield* membersOf(source)
    const small: { -readonly [S in Exclude<SectionName, "timeEntries">]?: SmallFile[S] } = {}
    for (const section of SECTION_NAMES) {
      if (section === "timeEntries") continue
      const elements = yield* arrayOf(members.get(section))
      if (elements === undefined) continue
      const decoded = yield* decodeAll(section, yield* Stream.runCollect(elements), 0)
      Object.assign(small, { [section]: decoded })
    }
    const file: SmallFile = small

    const entries = yield* arrayOf(members.get("timeEntries"))
    const pull = yield* Stream.toPull(Stream.rechunk(entries ?? Stream.empty, BATCH_SIZE))
    const next: Effect.Effect<Option.Option<Chunk.Chunk<unknown>>, E> = pull.pipe(
      Effect.asSome,
      Effect.catchAll(Option.match({
        onNone: () => Effect.succeed(Option.none<Chunk.Chunk<unknown>>()),
        onSome: (error: E) => Effect.fail(error)
      }))
    )
    const decodeBatch = (offset: number): Effect.Effect<ReadonlyArray<EntryInput>, E | AdminInputInvalid> =>
      Effect.flatMap(next, (chunk) => Option.isNone(chunk) ? Effect.succeed([]) : decodeAll("timeEntries", chunk.value, offset))

    const store = yield* Store
    const now = yield* Clock.currentTimeMillis
    const keys = yield* Effect.forEach(file.apiKeys ?? [], (k) =>
      Effect.gen(function*() {
        const key = k.key ?? ApiKey.generate()
        return { id: k.id === undefined ? yield* Ids.next : lower(k.id), key, digest: yield* ApiKey.digest(key) }
      }))
    const generated = { now, keys }
    const refs = (first: ReadonlyArray<EntryInput>) => refsOf(file, first, keys.map((k) => k.digest))

    const first = yield* decodeBatch(0)
    const second = first.length < BATCH_SIZE ? [] : yield* decodeBatch(first.length)
    let dataset: Omit<Dataset, "timeEntries">
    let entryCount: number
    if (second.length === 0) {
      // Everything fits in one batch: one lookup, one insert.
      const existing = yield* store.admin.lookup(refs(first))
      const prepared = yield* prepare(file, existing, generated)
      const rows = yield* checkEntries(prepared.context, first, 0, new Set(existing.entryIds))
      yield* store.admin.insert({ ...prepared.dataset, timeEntries: rows })
      dataset = prepared.dataset
      entryCount = rows.length
    } else {
      const bulk = store.admin.bulk ?? buffered(store.admin)
      ;[dataset, entryCount] = yield* bulk((tx) =>
        Effect.gen(function*() {
          const existing = yield* tx.lookup(refs(first))
          const prepared = yield* prepare(file, existing, generated)
          const { context } = prepared
          const rows = yield* checkEntries(context, first, 0, new Set(existing.entryIds))
          yield* tx.insert({ ...prepared.dataset, timeEntries: rows })
          let offset = first.length
          let batch = second
          while (batch.length > 0) {
            const found = yield* tx.lookup(entryRefs(context, batch))
            learn(context, found)
            yield* tx.insert({ ...NO_ROWS, timeEntries: yield* checkEntries(context, batch, offset, new Set(found.entryIds)) })
            offset += batch.length
            batch = yield* decodeBatch(offset)
          }
          return [prepared.dataset, offset] as const
        })
      )
    }
    const summary: Summary = {
      apiKeys: dataset.apiKeys.map((row, i) => ({
        id: row.id,
        key: keys[i]?.key ?? "",
        userId: row.userId,
        workspaceId: row.workspaceId
      })),
      counts: {
        workspaces: dataset.workspaces.length,
        users: dataset.users.length,
        memberships: dataset.memberships.length,
        clients: dataset.clients.length,
        projects: dataset.projects.length,
        assignments: dataset.assignments.length,
        apiKeys: dataset.apiKeys.length,
        timeEntries: entryCount
      }
    }
    return { summary, rows: dataset }
  }))
