/**
 * Performs the kit's requests over HTTP. Every request the `HttpApi` definition can express goes through a typed
 * `HttpApiClient` derived from it (so successes and errors must also decode with the definition's schemas); requests it
 * cannot express (unknown or repeated parameters, missing headers, malformed bodies, non-UUID ids) are sent raw.
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { type Request, Schemas } from "@stint/core"
import { Api } from "@stint/http"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { OperationName, Outcome } from "../Stack.js"

const paths: Readonly<Record<OperationName, { readonly method: "GET" | "POST"; readonly path: (p: Request.ApiRequest["path"]) => string }>> = {
  listClients: { method: "GET", path: () => "/api/v1/clients" },
  listProjects: { method: "GET", path: () => "/api/v1/projects" },
  createProject: { method: "POST", path: () => "/api/v1/projects" },
  getActiveTimer: { method: "GET", path: () => "/api/v1/timer" },
  startTimer: { method: "POST", path: () => "/api/v1/timers/start" },
  stopTimer: {
    method: "POST",
    path: (p) => `/api/v1/timers/${encodeURIComponent(p?.["timerId"] ?? "")}/stop`
  },
  listTimeEntries: { method: "GET", path: () => "/api/v1/time-entries" }
}

const valid = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
  Either.isRight(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(value))

/** The query as an object when it has no repeats and only the given names. */
const queryObject = (query: Request.ApiRequest["query"], names: ReadonlyArray<string>) => {
  const out: Record<string, string> = {}
  for (const [name, value] of query ?? []) {
    if (!names.includes(name) || Object.hasOwn(out, name)) return undefined
    out[name] = value
  }
  return out
}

/**
 * Whether the typed client would send `body` byte for byte as the kit wrote it: valid, and re-encoded in the same key
 * order (idempotency checks send JSON-equal bodies written differently, which must arrive as written).
 */
const sendsAsWritten = <A, I>(schema: Schema.Schema<A, I>, body: unknown) =>
  Either.match(Schema.decodeUnknownEither(schema, { onExcessProperty: "error" })(body), {
    onLeft: () => false,
    onRight: (decoded) => JSON.stringify(Schema.encodeSync(schema)(decoded)) === JSON.stringify(body)
  })

/** The success schema of each operation, to decode what raw requests get back. */
const successes: Readonly<Record<OperationName, Schema.Schema.AnyNoContext>> = {
  listClients: Schemas.ListClientsResponse,
  listProjects: Schemas.ListProjectsResponse,
  createProject: Schemas.CreateProjectResponse,
  getActiveTimer: Schemas.ActiveTimerResponse,
  startTimer: Schemas.TimerMutationResponse,
  stopTimer: Schemas.TimerMutationResponse,
  listTimeEntries: Schemas.TimeEntriesPage
}

const jsonBody = (request: Request.ApiRequest) => request.body?._tag === "Json" ? request.body.value : undefined

const idempotencyHeaders = (request: Request.ApiRequest) => {
  const key = request.idempotencyKey
  return key !== undefined && valid(Api.IdempotencyHeaders, { "idempotency-key": key })
    ? { "idempotency-key": key }
    : undefined
}

type Client = HttpApiClient.Client<
  typeof Api.Clients | typeof Api.Projects | typeof Api.Timers | typeof Api.TimeEntries,
  never,
  never
>

/** The typed call for a request the definition can express, or `undefined`. */
const typedCall = (client: Client, operation: OperationName, request: Request.ApiRequest) => {
  const body = jsonBody(request)
  switch (operation) {
    case "listClients":
      return queryObject(request.query, []) && client.clients.listClients()
    case "getActiveTimer":
      return queryObject(request.query, []) && client.timers.getActiveTimer()
    case "listProjects": {
      const urlParams = queryObject(request.query, ["clientId"])
      return urlParams !== undefined && valid(Schemas.ListProjectsQuery, urlParams)
        ? client.projects.listProjects({ urlParams: urlParams as typeof Schemas.ListProjectsQuery.Type })
        : undefined
    }
    case "listTimeEntries": {
      const urlParams = queryObject(request.query, ["projectId", "cursor", "limit"])
      return urlParams !== undefined && valid(Schemas.ListTimeEntriesQuery, urlParams)
        ? client.timeEntries.listTimeEntries({ urlParams })
        : undefined
    }
    case "createProject":
      // The definition declares no Idempotency-Key here; a request carrying one must reach the server with it.
      return queryObject(request.query, []) && request.idempotencyKey === undefined &&
          sendsAsWritten(Schemas.CreateProjectBody, body)
        ? client.projects.createProject({ payload: body as Schemas.CreateProjectBody })
        : undefined
    case "startTimer": {
      const headers = idempotencyHeaders(request)
      return queryObject(request.query, []) && headers !== undefined && sendsAsWritten(Schemas.StartTimerBody, body)
        ? client.timers.startTimer({ headers, payload: body as Schemas.StartTimerBody })
        : undefined
    }
    case "stopTimer": {
      const headers = idempotencyHeaders(request)
      const timerId = request.path?.["timerId"]
      return queryObject(request.query, []) && headers !== undefined && request.body === undefined &&
          valid(Schemas.Uuid, timerId)
        ? client.timers.stopTimer({ headers, path: { timerId: timerId as string } })
        : undefined
    }
  }
}

/** A JSON object that repeats `member`, itself or in the object under its member `inside`. */
const repeatingText = (member: string, inside: string | undefined): string => {
  const name = JSON.stringify(member)
  const repeating = `{${name}:null,${name}:null}`
  return inside === undefined ? repeating : `{${JSON.stringify(inside)}:${repeating}}`
}

/** The raw request for anything the typed client cannot send. */
const rawRequest = (baseUrl: string, operation: OperationName, request: Request.ApiRequest) => {
  const route = paths[operation]
  let http = HttpClientRequest.make(route.method)(baseUrl + route.path(request.path))
  if ((request.query ?? []).length > 0) {
    http = HttpClientRequest.setUrlParams(http, (request.query ?? []).map(([k, v]) => [k, v] as const))
  }
  if (request.idempotencyKey !== undefined) http = HttpClientRequest.setHeader(http, "idempotency-key", request.idempotencyKey)
  // GET bodies are ignored by the spec, and fetch cannot send them.
  const body = route.method === "GET" ? undefined : request.body
  if (body?._tag === "Json") {
    http = HttpClientRequest.bodyText(http, JSON.stringify(body.value), "application/json")
  } else if (body?._tag === "Unreadable") {
    // Whatever made the body unreadable, a truncated JSON document is one way to send such a body.
    http = HttpClientRequest.bodyText(http, "{\"unreadable\":", "application/json")
  } else if (body?._tag === "RepeatedMember") {
    http = HttpClientRequest.bodyText(http, repeatingText(body.member, body.inside), "application/json")
  }
  return http
}

const toOutcome = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(response.text, (text): Outcome => {
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(response.headers)) headers[name.toLowerCase()] = String(value)
    let body: unknown = null
    try {
      body = text === "" ? null : JSON.parse(text)
    } catch {
      body = text
    }
    return { status: response.status, body, text, headers, replayed: headers["idempotent-replayed"] === "true" }
  })

/**
 * Sends one request to the server at `baseUrl` and reports its outcome; transport faults are defects.
 */
export const call = (baseUrl: string, operation: OperationName, request: Request.ApiRequest) =>
  Effect.gen(function*() {
    let captured: Outcome | undefined
    // Reads each response once, keeps what the kit needs, and hands the typed client an identical fresh response.
    const capture = (client: HttpClient.HttpClient) =>
      HttpClient.mapRequest(client, (r) =>
        request.authorization === undefined ? r : HttpClientRequest.setHeader(r, "authorization", request.authorization)
      ).pipe(HttpClient.transformResponse(Effect.flatMap((response) =>
        Effect.map(toOutcome(response), (outcome) => {
          captured = outcome
          return HttpClientResponse.fromWeb(
            response.request,
            new Response(outcome.text, { status: response.status, headers: response.headers })
          )
        })
      )))
    const client = yield* HttpApiClient.make(Api.Api, { baseUrl, transformClient: capture })
    const typed = typedCall(client as unknown as Client, operation, request)
    if (typed === undefined) {
      const http = yield* HttpClient.HttpClient
      yield* capture(http).execute(rawRequest(baseUrl, operation, request))
      if (captured === undefined) return yield* Effect.die("no response")
      const raw: Outcome = captured
      // Sent raw, still judged by the definition: a success must decode with the endpoint's success schema.
      if (raw.status < 300) {
        const decoded = Schema.decodeUnknownEither(successes[operation], { onExcessProperty: "error" })(raw.body)
        if (Either.isLeft(decoded)) {
          return yield* Effect.die(new Error(`the success body does not match the HttpApi definition: ${decoded.left}`))
        }
      }
      return raw
    }
    const result = yield* Effect.either(typed as Effect.Effect<unknown, unknown>)
    if (captured === undefined) return yield* Effect.die(Either.isLeft(result) ? result.left : "no response")
    const outcome: Outcome = captured
    // The typed client decodes successes with the definition's schemas; a success it cannot decode is drift.
    if (outcome.status < 300 && Either.isLeft(result)) {
      return yield* Effect.die(new Error(`the success body does not match the HttpApi definition: ${String(result.left)}`))
    }
    return outcome
  }).pipe(Effect.scoped, Effect.orDie)
