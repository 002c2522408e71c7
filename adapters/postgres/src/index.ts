/**
 * Placeholder until the package is built.
 *
 * @since 0.1.0
 */
export {}
