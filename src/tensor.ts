/**
 * `Tensor`: a data type, a shape and the elements, as Triton sees them.
 *
 * @module
 */
import type { DataTypeName, MemoryTypeName } from "../ffi/mod.ts";
import { decodeBytes, encodeBytes } from "./bytes.ts";
import {
  DATA_TYPES,
  dataTypeOf,
  fitsDataType,
  isDataTypeName,
  type NumericArray,
  type TensorDataOf,
} from "./dtypes.ts";
import { describeValue, invalidArgument, isRecord } from "./value_checks.ts";
import { TritonError } from "./errors.ts";
import { numberToBf16, numberToFp16 } from "./half.ts";

/** Elements of a tensor: a TypedArray for numeric types, one Uint8Array per BYTES element. */
export type TensorData = NumericArray | Uint8Array[];

/** What `infer()` accepts as an input: a Tensor, a TypedArray (1-D, data type implied), strings
 * (1-D BYTES), booleans (1-D BOOL), or a `{ dtype, shape, data }` record whose `data` may also be
 * plain numbers (or bigints for INT64/UINT64), converted to the data type's TypedArray. */
export type TensorLike =
  | Tensor
  | NumericArray
  | readonly string[]
  | readonly boolean[]
  | {
    readonly dtype: DataTypeName;
    readonly shape?: readonly number[];
    readonly data:
      | NumericArray
      | readonly (string | Uint8Array)[]
      | readonly boolean[]
      | readonly number[]
      | readonly bigint[];
  };

const decoder = new TextDecoder();

/** What {@link Tensor.view} passes its constructor (through {@link TrustedTensor}): the
 * arguments need no checking. */
const CHECKED = Symbol("checked");

/** Stands in for the data of a tensor whose elements live in GPU memory. */
const DEVICE_DATA = new Uint8Array(0);

function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/**
 * A tensor: `dtype` (Triton data type name), `shape` (dimensions, batch dimension included where
 * the model batches) and `data`.
 *
 * Numeric data is a TypedArray (see {@link DATA_TYPES}: BOOL is a Uint8Array of 0/1, FP16 a
 * Float16Array where the runtime has one and otherwise Uint16Array half bits, BF16 Uint16Array
 * bfloat16 bits). BYTES data is one Uint8Array per element; {@link Tensor.strings} decodes UTF-8.
 *
 * @example
 * ```ts
 * import { Tensor } from "tritonffi";
 *
 * const t = new Tensor("FP32", [1, 4], new Float32Array([1, 2, 3, 4]));
 * const s = Tensor.fromStrings(["a", "é"]); // BYTES, shape [2]
 * console.log(t, s.strings()); // Tensor FP32 [1, 4] Float32Array(4) [ 1, 2, 3, 4 ] [ "a", "é" ]
 * ```
 */
export class Tensor<D extends DataTypeName = DataTypeName> {
  /** Triton data type name. */
  readonly dtype: D;
  /** Dimensions. A tensor made in JS holds a frozen copy of the shape it was given; an output's
   * array is its own, not frozen (freezing it cost Bun a fifth of its streamed responses/s):
   * read it, do not modify it. */
  readonly shape: readonly number[];
  /** Where the elements live (`"CPU"` for tensors made in JS). */
  readonly memoryType: MemoryTypeName = "CPU";
  /** Device id of that memory (0 for host memory). */
  readonly memoryTypeId: number = 0;
  #data: TensorDataOf<D>;
  #lease: { readonly disposed: boolean } | undefined;
  #device: { pointer: number; byteSize: number; toHost?: () => Uint8Array } | undefined;

  /**
   * @param dtype Triton data type name.
   * @param shape dimensions (non-negative integers).
   * @param data the elements: the data type's TypedArray (Uint8Array 0/1 for BOOL, Uint16Array
   *   bits for BF16, Float16Array or Uint16Array bits for FP16), or for BYTES one Uint8Array per
   *   element.
   * @throws {TritonError} INVALID_ARG when the element count does not match the shape, or the
   *   data's kind does not fit the data type (a Float32Array for INT32, a number as a BYTES
   *   element).
   */
  constructor(dtype: D, shape: readonly number[], data: TensorDataOf<D>);
  // The implementation's signature, which callers do not see: only this module can pass CHECKED.
  constructor(dtype: D, shape: readonly number[], data: TensorDataOf<D>, checked?: typeof CHECKED) {
    this.dtype = dtype;
    this.#data = data;
    if (checked === CHECKED) {
      // From view(): the caller made `shape` for this tensor and checked `data` (elementsOf).
      this.shape = shape;
      return;
    }
    checkDataType(dtype);
    checkShape(shape);
    this.shape = Object.freeze([...shape]);
    if (data === DEVICE_DATA) return;
    const isBytes = dtype === "BYTES";
    if (isBytes ? !Array.isArray(data) : !ArrayBuffer.isView(data)) {
      throw invalidArgument(
        "data",
        isBytes
          ? "an array of Uint8Array or string elements for BYTES"
          : `a ${DATA_TYPES[dtype].array.name} for ${dtype}`,
        data,
      );
    }
    if (!isBytes && !fitsDataType(dtype, data as NumericArray)) {
      throw new TritonError(
        "INVALID_ARG",
        `${dtype} data must be a ${DATA_TYPES[dtype].array.name}${
          dtype === "FP16" ? " or a Uint16Array of half-precision bits" : ""
        }, not ${describeValue(data)}`,
      );
    }
    const n = elementCount(shape);
    if (data.length !== n) {
      throw new TritonError(
        "INVALID_ARG",
        `shape [${shape.join(", ")}] needs ${n} elements, data has ${data.length}`,
      );
    }
    if (isBytes) {
      const elements = data as unknown[];
      for (let i = 0; i < elements.length; i++) {
        const e = elements[i];
        if (!(e instanceof Uint8Array)) {
          throw new TritonError(
            "INVALID_ARG",
            `BYTES element ${i} must be a Uint8Array or a string, not ${describeValue(e)}`,
          );
        }
      }
    }
  }

  /**
   * A tensor in GPU memory, given by its device address (an input Triton reads in place).
   * @param pointer device address (from cudaMalloc or another CUDA allocator).
   * @param byteSize size in bytes (serialized size for BYTES).
   * @param deviceId the GPU's id.
   */
  static onDevice<D extends DataTypeName>(
    dtype: D,
    shape: readonly number[],
    pointer: number | bigint,
    byteSize: number,
    deviceId = 0,
    toHost?: () => Uint8Array,
  ): Tensor<D> {
    if (
      !(typeof pointer === "bigint" ? pointer >= 0n : Number.isSafeInteger(pointer) && pointer >= 0)
    ) {
      throw invalidArgument("pointer", "a device address (a non-negative integer)", pointer);
    }
    if (!Number.isSafeInteger(byteSize) || byteSize < 0) {
      throw invalidArgument("byteSize", "a number of bytes (an integer >= 0)", byteSize);
    }
    if (!Number.isSafeInteger(deviceId) || deviceId < 0) {
      throw invalidArgument("deviceId", "a GPU id (an integer >= 0)", deviceId);
    }
    if (toHost !== undefined && typeof toHost !== "function") {
      throw invalidArgument("toHost", "a function", toHost);
    }
    const t = new Tensor(dtype, shape, DEVICE_DATA as TensorDataOf<D>);
    (t as { memoryType: MemoryTypeName }).memoryType = "GPU";
    (t as { memoryTypeId: number }).memoryTypeId = deviceId;
    t.#device = { pointer: Number(pointer), byteSize, toHost };
    return t;
  }

  /** The device address of a GPU tensor (`undefined` for host tensors). */
  get devicePointer(): number | undefined {
    return this.#device?.pointer;
  }

  /**
   * A host copy of the tensor: for GPU outputs a `cudaMemcpy` device-to-host, otherwise
   * {@link copy}.
   * @throws {TritonError} UNSUPPORTED for a GPU tensor made in JS (no CUDA runtime attached).
   */
  toHost(): Tensor<D> {
    const device = this.#device;
    if (!device) return this.copy();
    if (this.#lease?.disposed) this.data; // throws: released with its response
    if (!device.toHost) {
      throw new TritonError("UNSUPPORTED", "toHost() works on GPU outputs, not on inputs");
    }
    return Tensor.fromBytes(this.dtype, this.shape, device.toHost()) as Tensor<D>;
  }

  /**
   * @internal A tensor whose data is a zero-copy view of memory a response owns; it becomes
   * unreadable once `lease.disposed` is true. Trusts its caller: `shape` is made for this tensor
   * (it is kept, not copied) and `data` was checked by {@link elementsOf}.
   */
  static view(
    dtype: DataTypeName,
    shape: readonly number[],
    data: TensorData,
    lease: { readonly disposed: boolean } | undefined,
    memoryType: MemoryTypeName = "CPU",
    memoryTypeId = 0,
    device?: { pointer: number; byteSize: number; toHost: () => Uint8Array },
  ): Tensor {
    const t = new TrustedTensor(dtype, shape, device ? DEVICE_DATA : data, CHECKED);
    t.#lease = lease;
    if (device) t.#device = device;
    (t as { memoryType: MemoryTypeName }).memoryType = memoryType;
    (t as { memoryTypeId: number }).memoryTypeId = memoryTypeId;
    return t;
  }

  /**
   * Elements. For a host output over 64 KiB this is a zero-copy view of the response's buffer
   * ({@link isView}), valid until the response is released (disposed, or its server stopped);
   * use {@link copy} to keep the values longer. A smaller output is a copy in JS memory; one of up
   * to 4 KiB views a 32 KiB `ArrayBuffer` shared with other small copies (read it through
   * `byteOffset`/`byteLength`; {@link copy} gives one with a buffer of its own, to transfer).
   * @throws {TritonError} UNAVAILABLE once the owning response is released.
   */
  get data(): TensorDataOf<D> {
    if (this.#device) {
      throw new TritonError(
        "UNSUPPORTED",
        `${this.dtype} tensor [${this.shape.join(", ")}] is in GPU memory; use toHost()`,
      );
    }
    if (this.#lease?.disposed) {
      throw new TritonError(
        "UNAVAILABLE",
        `${this.dtype} tensor [${this.shape.join(", ")}] was released with its response ` +
          "(disposed, or its server stopped): copy() it before then",
      );
    }
    return this.#data;
  }

  /** Whether {@link data} is a view of memory owned by a response (not by JS). */
  get isView(): boolean {
    return this.#lease !== undefined;
  }

  /** An owned copy in JS memory, valid for as long as JS holds it.
   * @throws {TritonError} UNAVAILABLE once the owning response is disposed. */
  copy(): Tensor<D> {
    if (this.#device) return this.toHost();
    const data = this.data;
    const copied = Array.isArray(data) ? data.map((e) => copyOf(e)) : copyOf(data as NumericArray);
    return new Tensor(this.dtype, this.shape, copied as TensorDataOf<D>);
  }

  /** A 1-D (or `shape`d) BYTES tensor of UTF-8 strings. */
  static fromStrings(strings: readonly string[], shape?: readonly number[]): Tensor<"BYTES"> {
    elementsAre("strings", strings, "string");
    const enc = new TextEncoder();
    return new Tensor("BYTES", shape ?? [strings.length], strings.map((s) => enc.encode(s)));
  }

  /** A BOOL tensor from booleans. */
  static fromBooleans(values: readonly boolean[], shape?: readonly number[]): Tensor<"BOOL"> {
    elementsAre("values", values, "boolean");
    return new Tensor(
      "BOOL",
      shape ?? [values.length],
      Uint8Array.from(values, (b) => (b ? 1 : 0)),
    );
  }

  /**
   * Builds a tensor from anything {@link TensorLike}: a `Tensor` as it is, a TypedArray as a 1-D
   * tensor of the type it implies, `string[]` as 1-D BYTES, `boolean[]` as 1-D BOOL, and a
   * `{ dtype, shape, data }` record, whose `data` may also be plain numbers (or bigints for the
   * 64-bit integer types), converted to the data type's TypedArray, and `shape` defaults to
   * `[data.length]`.
   * @throws {TritonError} INVALID_ARG naming what is wrong: a value of another kind, an unknown
   *   data type, a bad shape, elements that do not fit the data type or do not fill the shape.
   */
  static from(value: TensorLike): Tensor {
    if (value instanceof Tensor) return value;
    if (ArrayBuffer.isView(value)) {
      const dtype = dataTypeOf(value);
      if (!dtype) {
        throw new TritonError(
          "INVALID_ARG",
          `${describeValue(value)} is not a tensor's data: pass one of Triton's TypedArrays`,
        );
      }
      return new Tensor(dtype, [(value as NumericArray).length], value as NumericArray);
    }
    if (Array.isArray(value)) {
      if (value.length > 0 && value.every((v) => typeof v === "boolean")) {
        return Tensor.fromBooleans(value as boolean[]);
      }
      if (value.every((v) => typeof v === "string")) return Tensor.fromStrings(value as string[]);
      throw new TritonError(
        "INVALID_ARG",
        "an array input holds strings (BYTES) or booleans (BOOL); for numbers pass a TypedArray " +
          "(e.g. new Float32Array([1, 2])) or { dtype, shape, data }" +
          (value.some((v) => typeof v === "number") ? "" : `, not ${describeValue(value[0])}`),
      );
    }
    if (!isRecord(value)) {
      throw invalidArgument(
        "an input",
        "a Tensor, a TypedArray, string[], boolean[] or { dtype, shape, data }",
        value,
      );
    }
    const rec = value as Record<string, unknown>;
    const dtype = rec.dtype;
    checkDataType(dtype);
    const data = rec.data;
    if (!ArrayBuffer.isView(data) && !Array.isArray(data)) {
      throw invalidArgument(
        "data",
        dtype === "BYTES" ? "an array of strings or Uint8Arrays" : "a TypedArray or an array",
        data,
      );
    }
    const shape = rec.shape ?? [(data as ArrayLike<unknown>).length];
    checkShape(shape);
    if (ArrayBuffer.isView(data)) return new Tensor(dtype, shape, data as NumericArray);
    if (dtype === "BYTES") {
      const enc = new TextEncoder();
      return new Tensor(
        "BYTES",
        shape,
        data.map((e) => (typeof e === "string" ? enc.encode(e) : e)),
      );
    }
    return new Tensor(dtype, shape, numericFrom(dtype, data));
  }

  /**
   * Reads elements laid out as Triton lays them (BYTES: length-prefixed elements, decoded into
   * copies). Numeric elements are a view of `bytes` (no copy) when it is suitably aligned.
   * @throws {TritonError} INVALID_ARG when the size does not match the shape, or BYTES is
   *   malformed.
   */
  static elementsOf(dtype: DataTypeName, shape: readonly number[], bytes: Uint8Array): TensorData {
    const n = elementCount(shape);
    if (dtype === "BYTES") return decodeBytes(bytes, n, "output");
    const info = DATA_TYPES[dtype];
    if (bytes.byteLength !== n * info.byteSize) {
      throw new TritonError(
        "INVALID_ARG",
        `${dtype} shape [${shape.join(", ")}] needs ${n * info.byteSize} bytes, ` +
          `got ${bytes.byteLength}`,
      );
    }
    if (bytes.byteOffset % info.byteSize !== 0) {
      return new info.array(copyOf(bytes).buffer as ArrayBuffer, 0, n);
    }
    return new info.array(bytes.buffer as ArrayBuffer, bytes.byteOffset, n);
  }

  /** Reads a tensor out of bytes laid out as Triton lays them; the result owns a copy. */
  static fromBytes(dtype: DataTypeName, shape: readonly number[], bytes: Uint8Array): Tensor {
    return new Tensor(dtype, shape, Tensor.elementsOf(dtype, shape, copyOf(bytes)));
  }

  /** Size in bytes as Triton sees it (BYTES: serialized, prefixes included). */
  get byteSize(): number {
    if (this.#device) return this.#device.byteSize;
    const data: TensorData = this.data;
    if (Array.isArray(data)) {
      let total = 0;
      for (const e of data) total += 4 + e.byteLength;
      return total;
    }
    return (data as NumericArray).byteLength;
  }

  /** The bytes Triton reads: a view of numeric data (no copy), serialized elements for BYTES. */
  toBytes(): Uint8Array {
    const data = this.data;
    if (Array.isArray(data)) return encodeBytes(data);
    const d = data as NumericArray;
    return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
  }

  /** BYTES elements decoded as UTF-8 strings.
   * @throws {TritonError} INVALID_ARG for a non-BYTES tensor. */
  strings(): string[] {
    if (!Array.isArray(this.data)) {
      throw new TritonError(
        "INVALID_ARG",
        `strings() needs a BYTES tensor, this one is ${this.dtype}`,
      );
    }
    return this.data.map((e) => decoder.decode(e));
  }
}

/** `Tensor` with the signature of its implementation, which takes {@link CHECKED}: for
 * {@link Tensor.view} alone (the same constructor, called with one argument more). */
const TrustedTensor = Tensor as unknown as new (
  dtype: DataTypeName,
  shape: readonly number[],
  data: TensorData,
  checked: typeof CHECKED,
) => Tensor;

/** What a tensor shows in `console.log` (and `util.inspect`, `Deno.inspect`, `Bun.inspect`): its
 * data type, shape, memory and data — or, where the data cannot be read, why. */
function describeTensor(t: Tensor, inspect: (value: unknown) => string): string {
  const head = `Tensor ${t.dtype} [${t.shape.join(", ")}]`;
  if (t.memoryType === "GPU") {
    return `${head} GPU:${t.memoryTypeId} at 0x${(t.devicePointer ?? 0).toString(16)}`;
  }
  const where = t.memoryType === "CPU" ? "" : ` ${t.memoryType}`;
  let data: unknown;
  try {
    data = t.data;
  } catch {
    return `${head}${where} (released with its response)`;
  }
  return `${head}${where} ${inspect(data)}`;
}

type Inspect = (value: unknown, options?: unknown) => string;
Object.defineProperty(Tensor.prototype, Symbol.for("nodejs.util.inspect.custom"), {
  value(this: Tensor, _depth: number, options: unknown, inspect: Inspect): string {
    return describeTensor(this, (v) => inspect(v, options));
  },
});
Object.defineProperty(Tensor.prototype, Symbol.for("Deno.customInspect"), {
  value(this: Tensor, inspect: Inspect, options: unknown): string {
    return describeTensor(this, (v) => inspect(v, options));
  },
});

/** A copy of `array` in memory of its own. Not `array.slice()`: a Node `Buffer` (a Uint8Array)
 * overrides it to give a view of the same memory. */
function copyOf<T extends NumericArray>(array: T): T {
  return typedArraySlice.call(array) as T;
}

/** `%TypedArray%.prototype.slice`, which copies for every TypedArray. */
const typedArraySlice: (this: NumericArray) => NumericArray =
  Object.getPrototypeOf(Uint8Array.prototype).slice;

/** Checks that `values` is an array of `kind` elements (`"string"`, `"boolean"`).
 * @throws {TritonError} INVALID_ARG naming the first element of another kind. */
function elementsAre(field: string, values: unknown, kind: "string" | "boolean"): void {
  if (!Array.isArray(values)) throw invalidArgument(field, `an array of ${kind}s`, values);
  const ofKind = kind === "string"
    ? (v: unknown) => typeof v === "string"
    : (v: unknown) => typeof v === "boolean";
  const i = values.findIndex((v) => !ofKind(v));
  if (i >= 0) throw invalidArgument(`${field}[${i}]`, `a ${kind}`, values[i]);
}

/** Checks that `dtype` is a Triton data type name.
 * @throws {TritonError} INVALID_ARG listing the names. */
function checkDataType(dtype: unknown): asserts dtype is DataTypeName {
  if (typeof dtype !== "string" || !isDataTypeName(dtype)) {
    throw invalidArgument(
      "dtype",
      `one of ${Object.keys(DATA_TYPES).join(", ")}`,
      dtype,
    );
  }
}

/** Checks that `shape` is an array of non-negative integer dimensions.
 * @throws {TritonError} INVALID_ARG naming the dimension. */
function checkShape(shape: unknown): asserts shape is readonly number[] {
  if (!Array.isArray(shape)) {
    throw invalidArgument("shape", "an array of dimensions (non-negative integers)", shape);
  }
  for (let i = 0; i < shape.length; i++) {
    const d: unknown = shape[i];
    if (typeof d !== "number" || !Number.isSafeInteger(d) || d < 0) {
      throw new TritonError(
        "INVALID_ARG",
        `invalid dimension ${i} of shape [${shape.map(String).join(", ")}]: ${
          describeValue(d)
        }, not a non-negative integer`,
      );
    }
  }
}

/** Integer ranges of the integer data types that take numbers. */
const INT_RANGES: Partial<Record<DataTypeName, readonly [number, number]>> = {
  UINT8: [0, 0xff],
  UINT16: [0, 0xffff],
  UINT32: [0, 0xffffffff],
  INT8: [-0x80, 0x7f],
  INT16: [-0x8000, 0x7fff],
  INT32: [-0x80000000, 0x7fffffff],
};

/** Plain elements as the TypedArray of numeric data type `dtype` (BOOL from booleans, FP16 and
 * BF16 from numbers, 64-bit integers from bigints or safe integers).
 * @throws {TritonError} INVALID_ARG naming the first element that does not fit. */
function numericFrom(dtype: DataTypeName, data: readonly unknown[]): NumericArray {
  const bad = (i: number, expected: string): never => {
    throw invalidArgument(`${dtype} element ${i}`, expected, data[i]);
  };
  if (dtype === "BOOL") {
    return Uint8Array.from(
      data,
      (b, i) => (typeof b === "boolean" ? (b ? 1 : 0) : bad(i, "a boolean")),
    );
  }
  if (dtype === "INT64" || dtype === "UINT64") {
    const [lo, hi] = dtype === "INT64" ? [-(2n ** 63n), 2n ** 63n - 1n] : [0n, 2n ** 64n - 1n];
    const values = data.map((e, i) => {
      const v = typeof e === "bigint"
        ? e
        : typeof e === "number" && Number.isSafeInteger(e)
        ? BigInt(e)
        : bad(i, "a bigint or a safe integer");
      return v < lo || v > hi ? bad(i, `an integer in [${lo}, ${hi}]`) : v;
    });
    return dtype === "INT64" ? BigInt64Array.from(values) : BigUint64Array.from(values);
  }
  const range = INT_RANGES[dtype];
  const numbers = data.map((e, i) => {
    if (typeof e !== "number") return bad(i, "a number");
    if (range && (!Number.isInteger(e) || e < range[0] || e > range[1])) {
      return bad(i, `an integer in [${range[0]}, ${range[1]}]`);
    }
    return e;
  });
  if (dtype === "BF16") return Uint16Array.from(numbers, numberToBf16);
  if (dtype === "FP16" && DATA_TYPES.FP16.array === Uint16Array) {
    return Uint16Array.from(numbers, numberToFp16);
  }
  const array = DATA_TYPES[dtype].array as unknown as { from(v: number[]): NumericArray };
  return array.from(numbers);
}
