/** The one helper of node-postgres the adapter uses that its type declarations leave out. */
declare module "pg/lib/utils.js" {
  const utils: {
    /** A parameter value as node-postgres sends it: text (arrays as array literals, objects as JSON), a Buffer, or null. */
    readonly prepareValue: (value: unknown) => string | Buffer | null
  }
  export default utils
}
