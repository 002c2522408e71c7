/**
 * Checks 2 to 4 of the decisions page's order for every public operation: the API key (401), the rate limit (429),
 * the scope (403); and the authenticated key's id for transports to log.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as ApiKey from "./ApiKey.js"
import { ApiKeyRateLimited, InsufficientScope, InvalidApiKey, type StoreError } from "./Errors.js"
import { Hashing } from "./Hashing.js"
import type { UserScope } from "./Records.js"
import type { ApiRequest } from "./Request.js"
import type { Role, Scope } from "./Schemas.js"
import { Settings } from "./Settings.js"
import { type Authenticated, type ReadAlong, Store } from "./Store.js"

/**
 * The authenticated caller: an API key, its user and workspace, and the user's current membership.
 *
 * @since 0.1.0
 */
export interface Principal extends UserScope {
  readonly keyId: string
  readonly scopes: ReadonlyArray<Scope>
  readonly role: Role
  /** The membership's default pay rate. */
  readonly payRateCents: number
}

/**
 * The id of the API key the current request authenticated with, once it has (also for requests then refused with 429
 * or 403). Transports read it after an operation to log which key made a request, never the key itself.
 *
 * @since 0.1.0
 */
export const authenticatedKeyId: FiberRef.FiberRef<Option.Option<string>> = FiberRef.unsafeMake<Option.Option<string>>(
  Option.none()
)

/**
 * The services an operation uses, read from the context once per operation.
 *
 * @since 0.1.0
 */
export interface Services {
  readonly store: Store["Type"]
  readonly settings: Settings["Type"]
  readonly hashing: Hashing["Type"]
}

/**
 * Reads `Services` once and runs `f` with them.
 *
 * @since 0.1.0
 */
export const withServices = <A, E, R>(
  f: (services: Services) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Store> =>
  Effect.contextWithEffect((context: Context.Context<Store>) =>
    f({
      store: Context.get(context, Store),
      settings: Context.get(context, Settings),
      hashing: Context.get(context, Hashing)
    })
  )

const missingKey = () => new InvalidApiKey({ message: "Send your API key as \"Authorization: Bearer <key>\"." })
const malformedKey = () => new InvalidApiKey({ message: "The API key is malformed." })
const refusedKey = () =>
  new InvalidApiKey({ message: "The API key is unknown, expired, revoked, or no longer valid for its workspace." })

/**
 * Checks 2 to 4 of the order with the given services: the key (401), the rate limit (429, counting every
 * authenticated request that is not refused with 429), the scope (403). The key and the rate limit are one store step.
 *
 * @since 0.1.0
 */
export const authenticateWith = (
  services: Services,
  request: ApiRequest,
  scope: Scope
): Effect.Effect<Principal, InvalidApiKey | ApiKeyRateLimited | InsufficientScope | StoreError> =>
  authenticateReading(services, request, scope, undefined)

/**
 * A principal, with what the store answered for it (`Store.authenticate`): the key, and what it read along, if it did.
 *
 * @since 0.1.0
 */
export interface PrincipalReading extends Principal {
  readonly read: Authenticated
}

/**
 * `authenticateWith`, asking the store to do `along`'s read in the same step (`Store.ReadAlong`). Its answer, if any,
 * is in `read` (`activeEntry`) once every check has passed; a store may not answer it.
 *
 * @since 0.1.0
 */
export const authenticateReading = (
  services: Services,
  request: ApiRequest,
  scope: Scope,
  along: ReadAlong | undefined
): Effect.Effect<PrincipalReading, InvalidApiKey | ApiKeyRateLimited | InsufficientScope | StoreError> =>
  Either.match(presentedDigest(services, request), {
    onLeft: Effect.fail,
    onRight: (digest) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          services.store.authenticate(digest, now, services.settings.rateLimit, along),
          (found) => admit(services, found, now, scope)
        ))
  })

/**
 * Check 2 before the store: the digest of the presented key, or the 401 of a missing or malformed one.
 *
 * @since 0.1.0
 */
export const presentedDigest = (services: Services, request: ApiRequest): Either.Either<string, InvalidApiKey> => {
  const presented = ApiKey.fromAuthorization(request.authorization)
  return Option.isNone(presented)
    ? Either.left(ApiKey.bearerToken(request.authorization) === undefined ? missingKey() : malformedKey())
    : Either.right(ApiKey.digestWith(services.hashing, presented.value))
}

/**
 * Checks 2 to 4 on what the store answered for the presented key at `now` (`Store.authenticate`).
 *
 * @since 0.1.0
 */
export const admit = (
  services: Services,
  found: Option.Option<Authenticated>,
  now: number,
  scope: Scope
): Effect.Effect<PrincipalReading, InvalidApiKey | ApiKeyRateLimited | InsufficientScope> => {
  if (Option.isNone(found)) return Effect.fail(refusedKey())
  const { accepted, key } = found.value
  const membership = key.membership
  // The core decides refusal itself too: a store that counted a refused key still never lets it in.
  if (membership === null || Option.isSome(ApiKey.refusal(key, now))) return Effect.fail(refusedKey())
  const policy = services.settings.rateLimit
  const refusal: ApiKeyRateLimited | InsufficientScope | undefined = !accepted
    ? new ApiKeyRateLimited({
      message: `At most ${policy.limit} requests per ${policy.windowMillis / 1000} seconds per API key.`
    })
    : !ApiKey.hasScope(key, scope)
    ? new InsufficientScope({
      message: `The API key lacks the "${scope}" scope.`,
      details: { requiredScope: scope }
    })
    : undefined
  const principal: PrincipalReading = {
    keyId: key.id,
    userId: key.userId,
    workspaceId: key.workspaceId,
    scopes: key.scopes,
    role: membership.role,
    payRateCents: membership.payRateCents,
    read: found.value
  }
  return Effect.zipRight(
    FiberRef.set(authenticatedKeyId, Option.some(key.id)),
    refusal === undefined ? Effect.succeed(principal) : Effect.fail(refusal)
  )
}

/**
 * Checks 2 to 4 of the order: the key (401), the rate limit (429, counting every authenticated request that is not
 * refused with 429), the scope (403).
 *
 * @since 0.1.0
 */
export const authenticate = (
  request: ApiRequest,
  scope: Scope
): Effect.Effect<Principal, InvalidApiKey | ApiKeyRateLimited | InsufficientScope | StoreError, Store> =>
  withServices((services) => authenticateWith(services, request, scope))
