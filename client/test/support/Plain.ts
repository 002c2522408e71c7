/**
 * A type-level check that a type is made of plain values only: strings, numbers, booleans, null, undefined, and
 * arrays and objects of them. Anything else is refused: functions (an `Effect`, a `Stream`), symbol keys, which
 * Effect's data types (`Option`, `Either`, `Chunk`) carry, and branded primitives. Imports nothing.
 */

type AllTrue<O> = false extends O[keyof O] ? false : true

/** The keys a primitive has beyond its own kind's (a brand's). */
type ExtraKeys<T> = T extends string ? Exclude<keyof T, keyof string>
  : T extends number ? Exclude<keyof T, keyof number>
  : T extends boolean ? Exclude<keyof T, keyof boolean>
  : never

/** `true` when `T` is plain data, `false` (or `boolean`, for a union of both) otherwise. */
export type Plain<T> = T extends string | number | boolean | null | undefined ? [ExtraKeys<T>] extends [never] ? true : false
  : T extends ReadonlyArray<infer U> ? Plain<U>
  : T extends (...args: never) => unknown ? false
  : T extends object ? [Extract<keyof T, symbol>] extends [never] ? AllTrue<{ [K in keyof T]-?: Plain<T[K]> }> : false
  : false
