/**
 * The helpers the kit's own checks are written with, for checks of your own beside the kit's (durability, say, which
 * the kit cannot judge): requests as a key (`as`, `json`), the common calls (`startOk`, `stopOk`, `history`), and the
 * spec's answers asserted with vitest's `expect` (`expectSuccess`, `expectError`, `checkHeaders`).
 *
 * @since 0.1.0
 */
export {
  as,
  checkHeaders,
  expectError,
  expectSuccess,
  history,
  json,
  type Responses,
  startOk,
  stopOk
} from "./internal/Check.js"
