/**
 * The memory store's table of time entries: a `Map` from id to row that also keeps, for every user and workspace, the
 * entries in order (oldest first, so that a new entry is usually appended) and the ids of the active ones. The
 * indexes follow every `set`, `delete` and `clear`, whoever calls them (tests write the table directly), so that
 * finding the running entry is a lookup and a page of entries is a binary search plus the page, instead of a scan of
 * every user's entries.
 */
import type { Position } from "../Cursor.js"
import type { EntryRow, UserScope } from "../Records.js"

const scopeOf = (workspaceId: string, userId: string) => `${workspaceId} ${userId}`

/**
 * How many rows of `list` (oldest first: `startedAt` asc, `id` asc) come strictly before `position`: where a row at
 * that position is, or would go.
 */
const countEarlier = (list: ReadonlyArray<EntryRow>, position: Position) => {
  let low = 0
  let high = list.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const row = list[middle]!
    if (row.startedAt < position.startedAt || (row.startedAt === position.startedAt && row.id < position.id)) {
      low = middle + 1
    } else {
      high = middle
    }
  }
  return low
}

export class EntryTable extends Map<string, EntryRow> {
  private readonly ordered = new Map<string, Array<EntryRow>>()
  private readonly active = new Map<string, Set<string>>()

  override set(id: string, row: EntryRow): this {
    const old = super.get(id)
    if (old !== undefined) this.unindex(id, old)
    super.set(id, row)
    const scope = scopeOf(row.workspaceId, row.userId)
    const list = this.ordered.get(scope) ?? []
    if (list.length === 0) this.ordered.set(scope, list)
    list.splice(countEarlier(list, row), 0, row)
    if (row.status === "active") {
      const ids = this.active.get(scope) ?? new Set()
      if (ids.size === 0) this.active.set(scope, ids)
      ids.add(id)
    }
    return this
  }

  override delete(id: string): boolean {
    const old = super.get(id)
    if (old === undefined) return false
    this.unindex(id, old)
    return super.delete(id)
  }

  override clear(): void {
    this.ordered.clear()
    this.active.clear()
    super.clear()
  }

  /** One active entry of the scope (a database would allow only one; a deliberately broken store may add more). */
  activeOf(scope: UserScope): EntryRow | undefined {
    const ids = this.active.get(scopeOf(scope.workspaceId, scope.userId))
    if (ids === undefined) return undefined
    for (const id of ids) return super.get(id)
    return undefined
  }

  /**
   * Up to `limit` of the scope's entries in list order (`startedAt` desc, `id` desc), strictly after `after` in that
   * order when given, of one project when `projectId` is given.
   */
  page(scope: UserScope, after: Position | null, projectId: string | null, limit: number): Array<EntryRow> {
    const list = this.ordered.get(scopeOf(scope.workspaceId, scope.userId)) ?? []
    const rows: Array<EntryRow> = []
    for (let i = (after === null ? list.length : countEarlier(list, after)) - 1; i >= 0 && rows.length < limit; i--) {
      const row = list[i]!
      if (projectId === null || row.projectId === projectId) rows.push(row)
    }
    return rows
  }

  private unindex(id: string, old: EntryRow): void {
    const scope = scopeOf(old.workspaceId, old.userId)
    const list = this.ordered.get(scope)
    if (list !== undefined) {
      const at = countEarlier(list, old)
      if (list[at]?.id === id) list.splice(at, 1)
      if (list.length === 0) this.ordered.delete(scope)
    }
    const ids = this.active.get(scope)
    if (ids !== undefined && ids.delete(id) && ids.size === 0) this.active.delete(scope)
  }
}
