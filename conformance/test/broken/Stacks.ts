/**
 * Deliberately broken servers: a correct stack with one answer rewritten, the way a hand-written server gets it wrong.
 */
import type { Stack } from "@stint/conformance"
import * as Effect from "effect/Effect"

type Definition = Stack.Definition

const rewrite = (definition: Definition, change: (stack: Stack.Stack) => Partial<Stack.Stack>): Definition => ({
  capabilities: definition.capabilities,
  make: Effect.map(definition.make, (stack) => ({ ...stack, ...change(stack) }))
})

/** Earnings computed with floating-point dollars instead of exact cents. */
export const floatEarnings = (definition: Definition): Definition =>
  rewrite(definition, (stack) => ({
    call: (operation, request) =>
      Effect.map(stack.call(operation, request), (outcome) => {
        if (operation !== "listTimeEntries" || outcome.status !== 200) return outcome
        const page = outcome.body as { entries: Array<Record<string, unknown>> }
        const entries = page.entries.map((e) =>
          e["status"] === "completed" && e["billable"] === true
            ? { ...e, earnings: ((e["payRateCents"] as number) * (e["durationSeconds"] as number) / 360_000).toFixed(2) }
            : e
        )
        const body = { ...page, entries }
        return { ...outcome, body, text: JSON.stringify(body) }
      })
  }))

/** A cursor still accepted after its project filter changed: the server keeps the filter it issued the cursor for. */
export const cursorIgnoresFilter = (definition: Definition): Definition =>
  rewrite(definition, (stack) => {
    const issuedWith = new Map<string, string | undefined>()
    return {
      call: (operation, request) => {
        if (operation !== "listTimeEntries") return stack.call(operation, request)
        const query = request.query ?? []
        const cursor = query.find(([name]) => name === "cursor")?.[1]
        const adjusted = cursor === undefined || !issuedWith.has(cursor)
          ? query
          : [
            ...query.filter(([name]) => name !== "projectId"),
            ...(issuedWith.get(cursor) === undefined ? [] : [["projectId", issuedWith.get(cursor) ?? ""] as const])
          ]
        return Effect.map(stack.call(operation, { ...request, query: adjusted }), (outcome) => {
          const next = (outcome.body as { nextCursor?: string | null } | null)?.nextCursor
          if (typeof next === "string") issuedWith.set(next, adjusted.find(([name]) => name === "projectId")?.[1])
          return outcome
        })
      }
    }
  })
