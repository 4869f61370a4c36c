/**
 * Triton data types and the TypedArrays that hold them.
 *
 * @module
 */
import { DataType, type DataTypeName } from "../ffi/mod.ts";

/** Constructor of a TypedArray. */
export interface TypedArrayConstructor<T> {
  new (buffer: ArrayBuffer, byteOffset?: number, length?: number): T;
  new (length: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** Any TypedArray a numeric tensor can hold. */
export type NumericArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | BigUint64Array
  | BigInt64Array
  | Float32Array
  | Float64Array
  | Float16Array;

/** The `data` of a tensor of each data type (see {@link DATA_TYPES}). */
export interface TensorDataTypes {
  BOOL: Uint8Array;
  UINT8: Uint8Array;
  UINT16: Uint16Array;
  UINT32: Uint32Array;
  UINT64: BigUint64Array;
  INT8: Int8Array;
  INT16: Int16Array;
  INT32: Int32Array;
  INT64: BigInt64Array;
  /** Float16Array where the runtime has it, else the half-precision bits. */
  FP16: Float16Array | Uint16Array;
  FP32: Float32Array;
  FP64: Float64Array;
  /** One element per Uint8Array. */
  BYTES: Uint8Array[];
  /** bfloat16 bits. */
  BF16: Uint16Array;
}

/** The `data` of a tensor of data type `D`. */
export type TensorDataOf<D extends DataTypeName> = TensorDataTypes[D];

/** How one data type is stored. */
export interface DataTypeInfo {
  /** `TRITONSERVER_DataType` value. */
  readonly code: number;
  /** Bytes per element (0 for BYTES, whose elements vary in size). */
  readonly byteSize: number;
  /** The TypedArray that holds its elements (BYTES: the serialized buffer, Uint8Array). */
  readonly array: TypedArrayConstructor<NumericArray>;
}

const Float16: TypedArrayConstructor<NumericArray> | undefined =
  (globalThis as { Float16Array?: TypedArrayConstructor<NumericArray> }).Float16Array;

/** Whether this runtime has `Float16Array` (FP16 tensors use it; Uint16Array bits otherwise). */
export const hasFloat16Array: boolean = Float16 !== undefined;

/** Storage of each data type: BOOL → Uint8Array (0/1), FP16 → Float16Array where the runtime has
 * it (else Uint16Array holding IEEE half bits), BF16 → Uint16Array (bfloat16 bits). */
export const DATA_TYPES: Readonly<Record<DataTypeName, DataTypeInfo>> = {
  BOOL: { code: DataType.BOOL, byteSize: 1, array: Uint8Array },
  UINT8: { code: DataType.UINT8, byteSize: 1, array: Uint8Array },
  UINT16: { code: DataType.UINT16, byteSize: 2, array: Uint16Array },
  UINT32: { code: DataType.UINT32, byteSize: 4, array: Uint32Array },
  UINT64: { code: DataType.UINT64, byteSize: 8, array: BigUint64Array },
  INT8: { code: DataType.INT8, byteSize: 1, array: Int8Array },
  INT16: { code: DataType.INT16, byteSize: 2, array: Int16Array },
  INT32: { code: DataType.INT32, byteSize: 4, array: Int32Array },
  INT64: { code: DataType.INT64, byteSize: 8, array: BigInt64Array },
  FP16: { code: DataType.FP16, byteSize: 2, array: Float16 ?? Uint16Array },
  FP32: { code: DataType.FP32, byteSize: 4, array: Float32Array },
  FP64: { code: DataType.FP64, byteSize: 8, array: Float64Array },
  BYTES: { code: DataType.BYTES, byteSize: 0, array: Uint8Array },
  BF16: { code: DataType.BF16, byteSize: 2, array: Uint16Array },
};

const byCode: ReadonlyMap<number, DataTypeName> = new Map<number, DataTypeName>(
  (Object.entries(DATA_TYPES) as [DataTypeName, DataTypeInfo][]).map(([n, i]) => [i.code, n]),
);

/** The data type name for a `TRITONSERVER_DataType` value (`undefined` for INVALID/unknown). */
export function dataTypeName(code: number): DataTypeName | undefined {
  return byCode.get(code);
}

/** Whether `array` is a TypedArray a `dtype` tensor can hold: the data type's own (see
 * {@link DATA_TYPES}), or for FP16 also Uint16Array half bits. */
export function fitsDataType(dtype: DataTypeName, array: ArrayBufferView): boolean {
  return array instanceof DATA_TYPES[dtype].array ||
    (dtype === "FP16" && array instanceof Uint16Array);
}

/** Whether `name` is a Triton data type name. */
export function isDataTypeName(name: string): name is DataTypeName {
  return Object.hasOwn(DATA_TYPES, name);
}

/** The data type a TypedArray implies when none is given (Uint8Array → UINT8, Uint16Array → UINT16,
 * Float16Array → FP16). */
export function dataTypeOf(array: ArrayBufferView): DataTypeName | undefined {
  if (Float16 && array instanceof Float16) return "FP16";
  if (array instanceof Uint8Array) return "UINT8";
  if (array instanceof Int8Array) return "INT8";
  if (array instanceof Uint16Array) return "UINT16";
  if (array instanceof Int16Array) return "INT16";
  if (array instanceof Uint32Array) return "UINT32";
  if (array instanceof Int32Array) return "INT32";
  if (array instanceof BigUint64Array) return "UINT64";
  if (array instanceof BigInt64Array) return "INT64";
  if (array instanceof Float32Array) return "FP32";
  if (array instanceof Float64Array) return "FP64";
  return undefined;
}
