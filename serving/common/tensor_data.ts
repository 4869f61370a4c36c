/**
 * KServe v2 tensor data: the `data` array of a JSON tensor and the bytes of a binary one, read
 * into a {@link Tensor} after checking every element against the data type and the shape, and a
 * tensor's elements written back as JSON.
 *
 * @module
 */
import type { DataTypeName } from "../../ffi/mod.ts";
import { decodeBytes } from "../../src/bytes.ts";
import { DATA_TYPES, isDataTypeName, type NumericArray } from "../../src/dtypes.ts";
import { Tensor, type TensorData } from "../../src/tensor.ts";
import { invalid } from "./refusals.ts";
import { describe, flatten, type Json } from "./json.ts";

/** Integer data types by their range (64-bit ones as bigint bounds). */
const INT_RANGE: Partial<Record<DataTypeName, readonly [number, number]>> = {
  INT8: [-128, 127],
  INT16: [-32768, 32767],
  INT32: [-2147483648, 2147483647],
  UINT8: [0, 255],
  UINT16: [0, 65535],
  UINT32: [0, 4294967295],
};
const INT64_RANGE: Partial<Record<DataTypeName, readonly [bigint, bigint]>> = {
  INT64: [-(2n ** 63n), 2n ** 63n - 1n],
  UINT64: [0n, 2n ** 64n - 1n],
};

const encoder = new TextEncoder();

/** `value` as a data type name.
 * @throws {TritonError} INVALID_ARG for anything else. */
export function dataType(value: Json | undefined, what: string): DataTypeName {
  if (typeof value !== "string" || !isDataTypeName(value)) {
    invalid(`${what} has invalid datatype ${describe(value)}`);
  }
  return value;
}

/**
 * `value` as a shape: dimensions that are integers >= 0 whose product stays exact (<= 2^53).
 * @throws {TritonError} INVALID_ARG otherwise.
 */
export function shapeOf(value: Json | undefined, what: string): number[] {
  if (!Array.isArray(value)) invalid(`${what} needs a 'shape' array, not ${describe(value)}`);
  let count = 1;
  for (const d of value) {
    if (typeof d !== "number" || !Number.isInteger(d) || d < 0) {
      invalid(`${what} has invalid dimension ${describe(d)} in its shape`);
    }
    count *= d;
  }
  if (count > Number.MAX_SAFE_INTEGER) {
    invalid(`${what}: shape [${value.join(", ")}] holds more than 2^53 elements`);
  }
  return value as number[];
}

/**
 * The shape of an input holding `count` elements given as a flat list: the model's shape, each
 * variable dimension (-1) set to 1 except the innermost one, which takes what the fixed dimensions
 * leave (Triton's rule for its generate extension; the OpenAI front end shapes its inputs by it
 * too).
 * @throws {TritonError} INVALID_ARG when the fixed dimensions do not divide `count`.
 */
export function shapeHolding(
  what: string,
  modelShape: readonly number[],
  count: number,
): number[] {
  let left = count;
  for (const d of modelShape) {
    if (d !== -1) {
      if (d === 0 ? left !== 0 : left % d !== 0) {
        invalid(
          `${what}: ${count} elements do not fit the model's shape [${modelShape.join(", ")}]`,
        );
      }
      left = d === 0 ? 0 : left / d;
    }
  }
  const shape = [...modelShape];
  for (let i = shape.length - 1; i >= 0; i--) {
    if (shape[i] === -1) {
      shape[i] = left;
      left = 1;
    }
  }
  if (left !== 1) {
    invalid(`${what}: ${count} elements do not fit the model's shape [${modelShape.join(", ")}]`);
  }
  return shape;
}

/** The number of elements a shape holds. */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

function halfNotJson(dtype: DataTypeName, what: string): never {
  invalid(`${what}: ${dtype} data cannot be sent as JSON; use the binary data extension`);
}

/**
 * A tensor from the `data` of a JSON input (nested or flat, row-major). Each element must be of
 * the data type's JSON kind (BOOL: boolean; integers: integers in the type's range; FP32/FP64:
 * numbers; BYTES: strings, UTF-8 encoded) and there must be exactly as many as the shape holds.
 * FP16 and BF16 have no JSON form (as in Triton).
 * @throws {TritonError} INVALID_ARG otherwise.
 */
export function tensorFromJson(
  what: string,
  dtype: DataTypeName,
  shape: readonly number[],
  data: Json[],
): Tensor {
  if (dtype === "FP16" || dtype === "BF16") halfNotJson(dtype, what);
  const leaves = flatten(data, `${what} 'data'`);
  const n = elementCount(shape);
  if (leaves.length !== n) {
    invalid(
      `${what}: shape [${shape.join(", ")}] holds ${n} elements, 'data' has ${leaves.length}`,
    );
  }
  const bad = (i: number, kind: string): never =>
    invalid(`${what}: element ${i} of 'data' is ${describe(leaves[i])}, not ${kind}`);
  if (dtype === "BYTES") {
    const elements: Uint8Array[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const v = leaves[i];
      if (typeof v !== "string") bad(i, "a string");
      elements[i] = encoder.encode(v as string);
    }
    return new Tensor("BYTES", shape, elements);
  }
  const out = new DATA_TYPES[dtype].array(n) as NumericArray;
  if (dtype === "BOOL") {
    for (let i = 0; i < n; i++) {
      const v = leaves[i];
      if (typeof v !== "boolean") bad(i, "a boolean");
      out[i] = v ? 1 : 0;
    }
  } else if (dtype === "FP32" || dtype === "FP64") {
    for (let i = 0; i < n; i++) {
      const v = leaves[i];
      if (typeof v === "number") out[i] = v;
      else if (typeof v === "bigint") out[i] = Number(v);
      else bad(i, "a number");
    }
  } else if (INT64_RANGE[dtype]) {
    const [lo, hi] = INT64_RANGE[dtype];
    const kind = `an ${dtype} (an integer in [${lo}, ${hi}])`;
    for (let i = 0; i < n; i++) {
      const v = leaves[i];
      let b: bigint;
      if (typeof v === "bigint") b = v;
      else if (typeof v === "number" && Number.isSafeInteger(v)) b = BigInt(v);
      else bad(i, kind);
      if (b! < lo || b! > hi) bad(i, kind);
      out[i] = b!;
    }
  } else {
    const [lo, hi] = INT_RANGE[dtype]!;
    const kind = `a${dtype.startsWith("I") ? "n" : ""} ${dtype} (an integer in [${lo}, ${hi}])`;
    for (let i = 0; i < n; i++) {
      const v = leaves[i];
      if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi) bad(i, kind);
      out[i] = v as number;
    }
  }
  return new Tensor<DataTypeName>(dtype, shape, out as TensorData);
}

/**
 * Checks that `byteSize` bytes are what a `dtype` tensor of `shape` holds (any size for BYTES,
 * whose elements have their own lengths).
 * @throws {TritonError} INVALID_ARG naming `what` and `sizeName` otherwise.
 */
export function checkBinarySize(
  what: string,
  dtype: DataTypeName,
  shape: readonly number[],
  byteSize: number,
  sizeName: string,
): void {
  if (dtype === "BYTES") return;
  const need = elementCount(shape) * DATA_TYPES[dtype].byteSize;
  if (byteSize !== need) {
    invalid(
      `${what}: ${dtype} shape [${shape.join(", ")}] needs ${need} bytes, ` +
        `${sizeName} is ${byteSize}`,
    );
  }
}

/**
 * A tensor from the binary data of an input: the shape's elements in Triton's layout (little
 * endian, row-major; BYTES as 4-byte length prefixes and their bytes). Numeric data is a view of
 * `bytes` where it is aligned (a copy otherwise); BYTES elements are copied out.
 * @throws {TritonError} INVALID_ARG when the size does not fit the shape, or BYTES is malformed.
 */
export function tensorFromBinary(
  what: string,
  dtype: DataTypeName,
  shape: readonly number[],
  bytes: Uint8Array,
  sizeName = "binary_data_size",
): Tensor {
  const n = elementCount(shape);
  if (dtype === "BYTES") return new Tensor("BYTES", shape, decodeBytes(bytes, n, what));
  checkBinarySize(what, dtype, shape, bytes.byteLength, sizeName);
  return new Tensor<DataTypeName>(dtype, shape, Tensor.elementsOf(dtype, shape, bytes));
}

/**
 * A tensor's elements as the text of a JSON array, flat and row-major: BOOL as booleans, integers
 * exactly (64-bit ones too), FP32/FP64 in the shortest form that reads back the same value (NaN and
 * infinities as `NaN`, `Infinity`, `-Infinity`, as Triton writes them), BYTES as strings (UTF-8
 * decoded; invalid sequences become U+FFFD).
 * @throws {TritonError} INVALID_ARG for FP16 and BF16, which have no JSON form (as in Triton).
 */
export function jsonElements(what: string, tensor: Tensor): string {
  const { dtype } = tensor;
  if (dtype === "FP16" || dtype === "BF16") {
    invalid(`${what}: ${dtype} data cannot be sent as JSON; ask for it as binary_data`);
  }
  if (dtype === "BYTES") return `[${tensor.strings().map((s) => JSON.stringify(s)).join(",")}]`;
  const data = tensor.data as NumericArray;
  if (dtype === "BOOL") {
    let text = "[";
    for (let i = 0; i < data.length; i++) text += (i ? "," : "") + (data[i] ? "true" : "false");
    return text + "]";
  }
  return `[${Array.prototype.join.call(data, ",")}]`;
}
