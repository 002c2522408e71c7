/**
 * fast-check commands for the events that change what the operations see: archiving, removing a membership, revoking
 * a key, voiding an entry, moving an entry's start, and time passing.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as M from "../Model.js"
import { type Command, entryAt, keyAt, type Real } from "./Commands.js"

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)

/** @since 0.1.0 */
export class SetArchived implements Command {
  constructor(readonly entity: "client" | "project", readonly index: number, readonly archived: boolean) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const table: Map<string, { archived: boolean }> = this.entity === "client" ? model.clients : model.projects
    const ids = [...table.keys()]
    const id = ids[this.index % ids.length]
    if (id === undefined) return
    await run(real.stack.admin.setArchived(this.entity, id, this.archived))
    const row = table.get(id)
    if (row !== undefined) row.archived = this.archived
  }
  toString = () => `SetArchived(${this.entity}, ${this.index}, ${this.archived})`
}

/** @since 0.1.0 */
export class RemoveMembership implements Command {
  constructor(readonly keyIndex: number) {}
  check = (model: Readonly<M.Model>) => {
    const key = keyAt(model as M.Model, this.keyIndex)
    return model.memberships.has(M.pair(key.workspaceId, key.userId))
  }
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    await run(real.stack.admin.removeMembership(key.workspaceId, key.userId))
    model.memberships.delete(M.pair(key.workspaceId, key.userId))
  }
  toString = () => `RemoveMembership(${this.keyIndex})`
}

/** @since 0.1.0 */
export class RevokeKey implements Command {
  constructor(readonly keyIndex: number) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    const key = keyAt(model, this.keyIndex)
    await run(real.stack.admin.revokeKey(key.id))
    if (key.revokedAt === null) key.revokedAt = model.now
  }
  toString = () => `RevokeKey(${this.keyIndex})`
}

/** @since 0.1.0 */
export class VoidEntry implements Command {
  constructor(readonly entryIndex: number) {}
  check = (model: Readonly<M.Model>) => {
    const entry = model.entries.get(entryAt(model as M.Model, this.entryIndex))
    return entry !== undefined && entry.status !== "voided"
  }
  async run(model: M.Model, real: Real) {
    const entry = model.entries.get(entryAt(model, this.entryIndex))
    if (entry === undefined) return
    await run(real.stack.admin.voidEntry(entry.id))
    entry.endedAt = entry.endedAt ?? model.now
    entry.status = "voided"
  }
  toString = () => `VoidEntry(${this.entryIndex})`
}

/** Moves an entry's start back by `back` ms, or forward to its end (or to now while active). @since 0.1.0 */
export class MoveEntryStart implements Command {
  constructor(readonly entryIndex: number, readonly back: number | "toEnd") {}
  check = (model: Readonly<M.Model>) => model.entries.has(entryAt(model as M.Model, this.entryIndex))
  async run(model: M.Model, real: Real) {
    const entry = model.entries.get(entryAt(model, this.entryIndex))
    if (entry === undefined) return
    const limit = entry.status === "active" ? model.now : entry.endedAt ?? model.now
    const startedAt = this.back === "toEnd" ? limit : Math.min(limit, entry.startedAt - this.back)
    await run(real.stack.admin.moveEntryStart(entry.id, startedAt))
    entry.startedAt = startedAt
  }
  toString = () => `MoveEntryStart(${this.entryIndex}, ${JSON.stringify(this.back)})`
}

/** @since 0.1.0 */
export class AdvanceClock implements Command {
  constructor(readonly millis: number) {}
  check = () => true
  async run(model: M.Model, real: Real) {
    await run(real.stack.clock.advance(this.millis))
    model.now += this.millis
  }
  toString = () => `AdvanceClock(${this.millis})`
}
