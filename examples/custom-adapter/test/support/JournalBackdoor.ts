/**
 * The kit's backdoor for JsonFileStore: reads the time entries straight from the journal file on disk, so every
 * check of stored state goes past the adapter's own reads (and past its in-memory tables).
 */
import type { Stack } from "@stint/conformance"
import * as Effect from "effect/Effect"
import { readFileSync } from "node:fs"

interface StoredEntry {
  readonly workspaceId: string
  readonly userId: string
  status: string
}

interface JournalLine {
  readonly kind: string
  readonly dataset?: { readonly timeEntries: ReadonlyArray<StoredEntry & { readonly id: string }> }
  readonly changes?: {
    readonly finish?: { readonly id: string; readonly status: string }
    readonly insert?: StoredEntry & { readonly id: string }
  }
}

/** Every time entry of the journal, as its lines leave it. */
const entries = (filename: string): ReadonlyArray<StoredEntry & { readonly id: string }> => {
  const byId = new Map<string, StoredEntry & { readonly id: string }>()
  for (const text of readFileSync(filename, "utf8").split("\n")) {
    if (text === "") continue
    const line = JSON.parse(text) as JournalLine
    for (const entry of line.dataset?.timeEntries ?? []) byId.set(entry.id, { ...entry })
    const finish = line.changes?.finish
    const finished = finish === undefined ? undefined : byId.get(finish.id)
    if (finish !== undefined && finished !== undefined) finished.status = finish.status
    if (line.changes?.insert !== undefined) byId.set(line.changes.insert.id, { ...line.changes.insert })
  }
  return [...byId.values()]
}

export const journalBackdoor = (filename: string): Stack.Backdoor => {
  const of = (workspaceId: string, userId: string) =>
    entries(filename).filter((e) => e.workspaceId === workspaceId && e.userId === userId)
  return {
    activeEntryIds: (workspaceId, userId) =>
      Effect.sync(() => of(workspaceId, userId).filter((e) => e.status === "active").map((e) => e.id)),
    entryCount: (workspaceId, userId) => Effect.sync(() => of(workspaceId, userId).length)
  }
}
