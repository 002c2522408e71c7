/**
 * The observing configurations the benchmarks compare (`observing.mjs`, `instructions.mjs`, `instructions-http.mjs`):
 * metrics on or off, and the sampler (`OTEL_TRACES_SAMPLER` and its argument) when traces are on; and the routes they
 * request.
 */

const RATIO = ["parentbased_traceidratio", "0.1"]

/** By name: `plain`; `metrics`; traces under a sampler (`always_off`, 1%, 10%, every request); metrics and 10%. */
export const CONFIGS = {
  plain: { metrics: false },
  metrics: { metrics: true },
  "traces-off": { metrics: false, sampler: ["always_off"] },
  "traces-1": { metrics: false, sampler: ["parentbased_traceidratio", "0.01"] },
  "traces-10": { metrics: false, sampler: RATIO },
  "traces-on": { metrics: false, sampler: ["always_on"] },
  "both-10": { metrics: true, sampler: RATIO }
}

/** The configurations a `--configs` list names, in its order; fails on a name that is not one. */
export const chosen = (list) =>
  list.split(",").map((name) => name.trim()).filter((name) => name !== "").map((name) => {
    const config = CONFIGS[name]
    if (config === undefined) throw new Error(`--configs takes ${Object.keys(CONFIGS).join(", ")}, not ${name}`)
    return { name, ...config }
  })

const ROUTES = { timer: "/api/v1/timer", clients: "/api/v1/clients", entries: "/api/v1/time-entries?limit=20" }

/** The path a `--route` name requests; fails on a name that is not one. */
export const routePath = (route) => {
  const path = ROUTES[route]
  if (path === undefined) throw new Error(`--route takes ${Object.keys(ROUTES).join(", ")}, not ${route}`)
  return path
}
