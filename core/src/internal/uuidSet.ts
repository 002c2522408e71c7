/**
 * A set of UUIDs in typed arrays: 16 bytes a member (about 40 at the worst load factor) instead of the hundred or so
 * that a `Set` of 36-character strings costs, so that the ids of a million-entry import fit in a few dozen megabytes.
 * Anything that is not a UUID falls back to an ordinary `Set`.
 */

const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

const nibble = (code: number): number => code <= 57 ? code - 48 : (code | 32) - 87

/** Eight hex digits of `s` from `at` (skipping one dash at `dash`, when given) as a signed 32-bit word. */
const word = (s: string, at: number, dash = -1): number => {
  let value = 0
  for (let i = at, n = 0; n < 8; i++) {
    if (i === dash) continue
    value = (value << 4) | nibble(s.charCodeAt(i))
    n++
  }
  return value
}

const INITIAL_CAPACITY = 1024

/** An open-addressing hash set of UUIDs (case-insensitive), growing by doubling at half load. */
export class UuidSet {
  private words = new Int32Array(INITIAL_CAPACITY * 4)
  private used = new Uint8Array(INITIAL_CAPACITY)
  private count = 0
  private readonly others = new Set<string>()

  /** How many distinct members the set holds. */
  get size(): number {
    return this.count + this.others.size
  }

  /** Adds `id`; `false` when it was already a member. */
  add(id: string): boolean {
    if (!UUID_SHAPE.test(id)) {
      if (this.others.has(id)) return false
      this.others.add(id)
      return true
    }
    const a = word(id, 0), b = word(id, 9, 13), c = word(id, 19, 23), d = word(id, 28)
    if (this.probe(a, b, c, d, true)) return false
    this.count++
    if (this.count * 2 > this.used.length) this.grow()
    return true
  }

  /** Whether `id` is a member. */
  has(id: string): boolean {
    if (!UUID_SHAPE.test(id)) return this.others.has(id)
    return this.probe(word(id, 0), word(id, 9, 13), word(id, 19, 23), word(id, 28), false)
  }

  /** Finds the four words; when absent and `insert` is set, stores them. Returns whether they were present. */
  private probe(a: number, b: number, c: number, d: number, insert: boolean): boolean {
    const mask = this.used.length - 1
    let slot = UuidSet.hash(a, b, c, d) & mask
    for (;;) {
      if (this.used[slot] === 0) {
        if (insert) this.store(slot, a, b, c, d)
        return false
      }
      const at = slot * 4
      if (this.words[at] === a && this.words[at + 1] === b && this.words[at + 2] === c && this.words[at + 3] === d) {
        return true
      }
      slot = (slot + 1) & mask
    }
  }

  private store(slot: number, a: number, b: number, c: number, d: number) {
    const at = slot * 4
    this.used[slot] = 1
    this.words[at] = a
    this.words[at + 1] = b
    this.words[at + 2] = c
    this.words[at + 3] = d
  }

  private grow() {
    const words = this.words, used = this.used
    this.words = new Int32Array(words.length * 2)
    this.used = new Uint8Array(used.length * 2)
    for (let slot = 0; slot < used.length; slot++) {
      if (used[slot] === 1) {
        const at = slot * 4
        // Indexes below `words.length` by construction of `at`.
        this.probe(words[at] ?? 0, words[at + 1] ?? 0, words[at + 2] ?? 0, words[at + 3] ?? 0, true)
      }
    }
  }

  private static hash(a: number, b: number, c: number, d: number): number {
    let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b)
    h = Math.imul(h ^ b ^ (h >>> 15), 0xc2b2ae35)
    h = Math.imul(h ^ c ^ (h >>> 13), 0x27d4eb2f)
    h = Math.imul(h ^ d ^ (h >>> 16), 0x165667b1)
    return (h ^ (h >>> 15)) >>> 0
  }
}
