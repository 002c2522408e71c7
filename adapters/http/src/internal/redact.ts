/**
 * What looks like an API key (or most of one) in text Stint writes back: an error may quote what a client or an
 * operator sent in the wrong place (`?clientId=stint_…`, a key pasted into a path or given as `--key-id`), and an
 * error is no place for a secret. Base64url characters need no escaping in JSON, so JSON text is matched as it is.
 */
const KEY_PREFIX = "stint_"
const KEY_LIKE = /stint_[A-Za-z0-9_-]{8,}/g

/** `text` with every key-like run replaced by `stint_[redacted]`. */
export const keys = (text: string): string => text.includes(KEY_PREFIX) ? text.replace(KEY_LIKE, "stint_[redacted]") : text
