/**
 * `@stint/conformance`: the property-based conformance kit for Stint adapters.
 *
 * @since 0.1.0
 */

/** The helpers the kit's checks are written with, for checks of your own. @since 0.1.0 */
export * as Check from "./Check.js"
/** A stack that drives the core's operations directly over a Store layer. @since 0.1.0 */
export * as CoreStack from "./CoreStack.js"
/** Stacks that speak HTTP: Stint's server in process, or servers started elsewhere. @since 0.1.0 */
export * as HttpStack from "./HttpStack.js"
/** A clock that moves only when told to. @since 0.1.0 */
export * as ManualClock from "./ManualClock.js"
/** The spec's statuses and scopes, as the kit knows them. @since 0.1.0 */
export * as SpecTable from "./SpecTable.js"
/** What a stack provides and declares. @since 0.1.0 */
export * as Stack from "./Stack.js"
/** `suite(name, makeStack, options)`: the one call a test file makes. @since 0.1.0 */
export * as Suite from "./Suite.js"
/** The standard world of the example checks. @since 0.1.0 */
export * as World from "./World.js"
