/** One field of a message (`protobufWire.mjs`). */
export interface Field {
  readonly number: number
  /** Wire type 0. */
  readonly varint?: bigint
  /** Wire types 1 and 5 (the fixed value's 8 or 4 bytes, little-endian) and 2 (the field's bytes). */
  readonly bytes?: Uint8Array
}

export declare const fields: (message: Uint8Array) => ReadonlyArray<Field>
export declare const repeated: (message: Uint8Array, number: number) => ReadonlyArray<Uint8Array>
