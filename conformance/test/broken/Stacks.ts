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

/** Every completed billable entry of a history page with its earnings as `earnings` writes them. */
const rewriteEarnings = (definition: Definition, earnings: (rate: number, seconds: number) => string): Definition =>
  rewrite(definition, (stack) => ({
    call: (operation, request) =>
      Effect.map(stack.call(operation, request), (outcome) => {
        if (operation !== "listTimeEntries" || outcome.status !== 200) return outcome
        const page = outcome.body as { entries: Array<Record<string, unknown>> }
        const entries = page.entries.map((e) =>
          e["status"] === "completed" && e["billable"] === true
            ? { ...e, earnings: earnings(e["payRateCents"] as number, e["durationSeconds"] as number) }
            : e
        )
        const body = { ...page, entries }
        return { ...outcome, body, text: JSON.stringify(body) }
      })
  }))

/** Earnings computed with floating-point dollars instead of exact cents. */
export const floatEarnings = (definition: Definition): Definition =>
  rewriteEarnings(definition, (rate, seconds) => (rate * seconds / 360_000).toFixed(2))

/**
 * Earnings in exact integer cents, but rounded half to even (banker's rounding, a common library default) where
 * half-up is the rule, past 2^53 only: below it, where the other examples' half cents lie, they are right.
 */
export const halfEvenPast2To53 = (definition: Definition): Definition =>
  rewriteEarnings(definition, (rate, seconds) => {
    const product = BigInt(rate) * BigInt(seconds)
    const [whole, rest] = [product / 3600n, product % 3600n]
    const halfUp = rest >= 1800n ? whole + 1n : whole
    const cents = product > 2n ** 53n && rest === 1800n && whole % 2n === 0n ? whole : halfUp
    return `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`
  })

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
