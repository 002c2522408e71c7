/** utime + stime of a process in ms, or 0 if it is gone (`processCpu.mjs`). */
export declare const processMillis: (pid: number | string) => number
