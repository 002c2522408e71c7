/**
 * Round `r`'s order of `items`: a fresh permutation each round (a fixed-seed Fisher–Yates shuffle, the same every
 * run), so that no configuration always follows the same one and inherits its leftovers (garbage to collect, say).
 */
export const orderOf = (items, r) => {
  let seed = 0x9e3779b9 ^ (r * 0x85ebca6b)
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const order = [...items]
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[order[i], order[j]] = [order[j], order[i]]
  }
  return order
}
