/**
 * `@stint/core`: Stint's pure domain on Effect. Schemas, rules, the storage port, the seven public operations, the
 * admin operations and an in-memory store.
 *
 * @since 0.1.0
 */

/** Who sees what: role visibility, readiness for tracking, list order. @since 0.1.0 */
export * as Access from "./Access.js"
/** Operator and website operations: create, archive, revoke, void, move, load. @since 0.1.0 */
export * as Admin from "./Admin.js"
/** Authentication, rate limit and scope: checks 2 to 4 of every operation. @since 0.1.0 */
export * as Authentication from "./Authentication.js"
/** API key format, digest, `Authorization` parsing, expiry and scopes. @since 0.1.0 */
export * as ApiKey from "./ApiKey.js"
/** Signed keyset cursors bound to key, workspace, filter and limit. @since 0.1.0 */
export * as Cursor from "./Cursor.js"
/** One tagged error per spec error code, plus storage and admin errors. @since 0.1.0 */
export * as Errors from "./Errors.js"
/** Effect's root fibers in a linked list: no finished request kept for V8's old generation. @since 0.1.0 */
export * as FiberRoots from "./FiberRoots.js"
/** The fixture file: schema, rules, defaults, all-or-nothing loading. @since 0.1.0 */
export * as Fixture from "./Fixture.js"
/** Where a fixture is read from, a member at a time (streamed files, values in memory). @since 0.1.0 */
export * as FixtureSource from "./FixtureSource.js"
/** The hashing port (SHA-256, HMAC-SHA-256), synchronous; a portable default. @since 0.1.0 */
export * as Hashing from "./Hashing.js"
/** Idempotency keys, fingerprints and the replay/conflict decision. @since 0.1.0 */
export * as Idempotency from "./Idempotency.js"
/** The id generator (UUIDv7 by default). @since 0.1.0 */
export * as Ids from "./Ids.js"
/** The in-memory store and its inspection driver. @since 0.1.0 */
export * as MemoryStore from "./MemoryStore.js"
/** Exact earnings arithmetic. @since 0.1.0 */
export * as Money from "./Money.js"
/** The seven public operations. @since 0.1.0 */
export * as Operations from "./Operations.js"
/** The exact sliding-window rate limit. @since 0.1.0 */
export * as RateLimit from "./RateLimit.js"
/** Rows exchanged with storage adapters. @since 0.1.0 */
export * as Records from "./Records.js"
/** Raw request input and its validation. @since 0.1.0 */
export * as Request from "./Request.js"
/** The spec's types as Schemas. @since 0.1.0 */
export * as Schemas from "./Schemas.js"
/** Tunable policies (rate limit, idempotency retention). @since 0.1.0 */
export * as Settings from "./Settings.js"
/** The storage port. @since 0.1.0 */
export * as Store from "./Store.js"
/** Timer state transitions and derived fields. @since 0.1.0 */
export * as TimerRules from "./TimerRules.js"
