/**
 * Ids as the core writes them (lowercase UUIDs). Ids are stored in `uuid` columns, which would reject anything else
 * with an error; a lookup by a string that is not a lowercase UUID simply finds nothing, as in the memory store.
 */

const LOWERCASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Whether `id` can name a stored record. */
export const isId = (id: string): boolean => LOWERCASE_UUID.test(id)
