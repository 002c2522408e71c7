/**
 * Reads a memory store's tables through its driver, not through the store's own reads.
 */
import type { Stack } from "@stint/conformance"
import { MemoryStore, type Store } from "@stint/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

export const backdoor = (context: Context.Context<Store.Store | MemoryStore.MemoryDriver>): Stack.Backdoor => {
  const { tables } = Context.get(context, MemoryStore.MemoryDriver)
  const entriesOf = (workspaceId: string, userId: string) =>
    [...tables.entries.values()].filter((e) => e.workspaceId === workspaceId && e.userId === userId)
  return {
    activeEntryIds: (workspaceId, userId) =>
      Effect.sync(() => entriesOf(workspaceId, userId).filter((e) => e.status === "active").map((e) => e.id)),
    entryCount: (workspaceId, userId) => Effect.sync(() => entriesOf(workspaceId, userId).length)
  }
}
