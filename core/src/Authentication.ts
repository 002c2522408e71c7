/**
 * Checks 2 to 4 of the decisions page's order for every public operation: the API key (401), the rate limit (429),
 * the scope (403); and the authenticated key's id for transports to log.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as ApiKey from "./ApiKey.js"
import { ApiKeyRateLimited, InsufficientScope, InvalidApiKey, type StoreError } from "./Errors.js"
import type { UserScope } from "./Records.js"
import type { ApiRequest } from "./Request.js"
import type { Role, Scope } from "./Schemas.js"
import { Settings } from "./Settings.js"
import { Store } from "./Store.js"

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
 * Checks 2 to 4 of the order: the key (401), the rate limit (429, counting every authenticated request that is not
 * refused with 429), the scope (403).
 *
 * @since 0.1.0
 */
export const authenticate = (
  request: ApiRequest,
  scope: Scope
): Effect.Effect<Principal, InvalidApiKey | ApiKeyRateLimited | InsufficientScope | StoreError, Store> =>
  Effect.gen(function*() {
    const presented = ApiKey.fromAuthorization(request.authorization)
    if (Option.isNone(presented)) {
      return yield* new InvalidApiKey({
        message: request.authorization === undefined
          ? "Send your API key as \"Authorization: Bearer <key>\"."
          : "The API key is malformed."
      })
    }
    const store = yield* Store
    const found = yield* store.findApiKey(yield* ApiKey.digest(presented.value))
    const now = yield* Clock.currentTimeMillis
    const membership = Option.isSome(found) && Option.isNone(ApiKey.refusal(found.value, now))
      ? found.value.membership
      : null
    if (Option.isNone(found) || membership === null) {
      return yield* new InvalidApiKey({
        message: "The API key is unknown, expired, revoked, or no longer valid for its workspace."
      })
    }
    const key = found.value
    yield* FiberRef.set(authenticatedKeyId, Option.some(key.id))
    const settings = yield* Settings
    if (!(yield* store.consumeRateLimit(key.id, now, settings.rateLimit))) {
      return yield* new ApiKeyRateLimited({
        message: `At most ${settings.rateLimit.limit} requests per ${
          settings.rateLimit.windowMillis / 1000
        } seconds per API key.`
      })
    }
    if (!ApiKey.hasScope(key, scope)) {
      return yield* new InsufficientScope({
        message: `The API key lacks the "${scope}" scope.`,
        details: { requiredScope: scope }
      })
    }
    return {
      keyId: key.id,
      userId: key.userId,
      workspaceId: key.workspaceId,
      scopes: key.scopes,
      role: membership.role,
      payRateCents: membership.payRateCents
    }
  })
