/** The median of a non-empty list of numbers (`median.mjs`). */
export declare const median: (values: ReadonlyArray<number>) => number
