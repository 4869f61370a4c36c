/**
 * What the property tests of the front ends generate tensors from: the element values of the data
 * types they fuzz (as JSON and protobuf carry them) and those values as raw tensor bytes.
 *
 * @module
 */
import fc from "fast-check";
import { encodeBytes } from "../../src/bytes.ts";

const encoder = new TextEncoder();

/** The element values of each data type fuzzed. */
export const ELEMENTS = {
  INT32: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  UINT8: fc.integer({ min: 0, max: 255 }),
  INT64: fc.maxSafeInteger(),
  FP32: fc.float({ noNaN: true, noDefaultInfinity: true }).map((v) => (Object.is(v, -0) ? 0 : v)),
  BOOL: fc.boolean(),
  BYTES: fc.string({ maxLength: 8 }),
} as const;

/** A data type fuzzed. */
export type Dtype = keyof typeof ELEMENTS;

/** The data types fuzzed. */
export const DTYPES = Object.keys(ELEMENTS) as Dtype[];

/** The raw bytes of `values` in Triton's layout (little-endian; BYTES length-prefixed). */
export function rawBytes(dtype: Dtype, values: unknown[]): Uint8Array {
  switch (dtype) {
    case "INT32":
      return new Uint8Array(Int32Array.from(values as number[]).buffer);
    case "UINT8":
      return Uint8Array.from(values as number[]);
    case "INT64":
      return new Uint8Array(BigInt64Array.from(values as number[], BigInt).buffer);
    case "FP32":
      return new Uint8Array(Float32Array.from(values as number[]).buffer);
    case "BOOL":
      return Uint8Array.from(values as boolean[], (b) => (b ? 1 : 0));
    case "BYTES":
      return encodeBytes((values as string[]).map((s) => encoder.encode(s)));
  }
}
