/**
 * `ResponseFields`: reads a `TRITONSERVER_InferenceResponse` into plain JS values — its model, id,
 * parameters and outputs (name, data type, shape, bytes or a view of Triton's buffer, memory type
 * and device) — for `src/response.ts`, which makes the user's objects of them. One per binding,
 * reached as `binding.responses`; every read happens on the JS thread.
 *
 * Two readers sit side by side and give the same values (`tests/response_reader.test.ts` proves
 * it):
 *
 * - {@link ResponseFields.recorded}: the native response reader (`native/response_reader.ts`:
 *   x86-64 machine code, or Bun's C) reads everything in one call into the response record,
 *   decoded here; what the record could not hold (a long name, a large or GPU output, an unknown type) is
 *   read field by field;
 * - the field-by-field calls ({@link ResponseFields.model}, `id`, `parameters`, `outputs`), one
 *   Triton call per field: everything with the JS callbacks, and whatever the record left.
 *
 * @module
 */
import { DataType, type DataTypeName, type MemoryTypeName, ParameterType } from "./enums.ts";
import { BytePool } from "./byte_pool.ts";
import { CStringReader } from "./cstring_reader.ts";
import type { OutParams } from "./out_params.ts";
import {
  MAX_DIMS,
  MAX_OUTPUTS,
  MAX_PARAMS,
  OutputRecord,
  ParamRecord,
  RecordLayout,
} from "./native/response_record.ts";
import type { ResponseReader } from "./native/response_reader.ts";
import { check, TritonError } from "./triton_error.ts";
import type { NativeLibrary, Ptr } from "./types.ts";

/** A response parameter's value: STRING → string, INT → bigint, BOOL → boolean, DOUBLE → number,
 * BYTES → Uint8Array (a copy). */
export type ParameterValue = string | bigint | boolean | number | Uint8Array;

/** A response's model: its name and the version that ran. */
export interface ModelOf {
  readonly name: string;
  readonly version: number;
}

/** One output of a response, as plain values. */
export interface OutputFields {
  readonly name: string;
  readonly dtype: DataTypeName;
  /** Dimensions. */
  readonly shape: number[];
  /** Size of the buffer in bytes. */
  readonly byteSize: number;
  readonly memoryType: MemoryTypeName;
  /** The device (GPU id) or 0. */
  readonly memoryTypeId: number;
  /** The buffer's address (a device address in GPU memory). */
  readonly base: Ptr;
  /** The bytes: a copy in JS memory, or (`inPlace`) a view of Triton's buffer, valid only while
   * the response lives; `undefined` in GPU memory. */
  readonly bytes: Uint8Array | undefined;
  /** Whether {@link bytes} views Triton's buffer instead of copying it. */
  readonly inPlace: boolean;
}

/** What the native reader read of a response: each field `undefined` where it must be read field
 * by field. */
export interface RecordedFields {
  /** The error the response carries (owned by the response). */
  readonly error: Ptr | undefined;
  readonly model: ModelOf | undefined;
  readonly id: string | undefined;
  readonly outputs: OutputFields[] | undefined;
  readonly parameters: Record<string, ParameterValue> | undefined;
}

/** Host outputs up to this many bytes (64 KiB) are copied into JS memory when read; larger ones
 * are views of Triton's buffer. */
export const COPY_LIMIT = 64 * 1024;

/** The out-parameters of `TRITONSERVER_InferenceResponseOutput` in the binding's out-parameter
 * block (see {@link responseOutput}). */
export const Slot = {
  NAME: 0,
  DATATYPE: 1,
  SHAPE: 2,
  DIM_COUNT: 3,
  BASE: 4,
  BYTE_SIZE: 5,
  MEMORY_TYPE: 6,
  MEMORY_TYPE_ID: 7,
  USERP: 8,
  COUNT: 9,
} as const;

/** How many 8-byte slots {@link Slot} needs. */
export const SLOTS_NEEDED = Slot.COUNT + 1;

const memoryTypeNames: readonly MemoryTypeName[] = ["CPU", "CPU_PINNED", "GPU"];

/** `TRITONSERVER_DataType` → its name, INVALID left out. */
const dataTypeNames: ReadonlyMap<number, DataTypeName> = new Map<number, DataTypeName>(
  Object.entries(DataType).filter(([name]) => name !== "INVALID")
    .map(([name, code]) => [code, name as DataTypeName]),
);

/**
 * `TRITONSERVER_InferenceResponseOutput(response, index, …)` with its out-parameters in the slots
 * of `o` named by {@link Slot} (NAME to USERP); returns the call's `TRITONSERVER_Error*`.
 */
export function responseOutput(
  lib: NativeLibrary,
  o: OutParams,
  response: Ptr,
  index: number,
): Ptr {
  const w = o.slots;
  return lib.api.TRITONSERVER_InferenceResponseOutput(
    response,
    index,
    w[Slot.NAME],
    w[Slot.DATATYPE],
    w[Slot.SHAPE],
    w[Slot.DIM_COUNT],
    w[Slot.BASE],
    w[Slot.BYTE_SIZE],
    w[Slot.MEMORY_TYPE],
    w[Slot.MEMORY_TYPE_ID],
    w[Slot.USERP],
  );
}

/** See the module documentation. */
export class ResponseFields {
  readonly #lib: NativeLibrary;
  readonly #out: OutParams;
  readonly #reader: ResponseReader | undefined;
  /** Where small output copies go. */
  readonly #pool = new BytePool();
  readonly #strings = new CStringReader();
  // Scratch for the parameter reads. Each has an ArrayBuffer of its own: a small typed array
  // made with a length lives in the JS heap, which Deno's fast FFI path does not take.
  readonly #ptr = new BigUint64Array(new ArrayBuffer(8));
  readonly #name = new BigUint64Array(new ArrayBuffer(8));
  readonly #u32 = new Uint32Array(new ArrayBuffer(4));
  readonly #i64 = new BigInt64Array(new ArrayBuffer(8));
  readonly #bool = new Uint8Array(new ArrayBuffer(1)); // copyInto copies its byteLength
  readonly #f64 = new Float64Array(new ArrayBuffer(8));
  /** An output's dimensions as int32 pairs (low, high), grown for higher ranks. */
  #shape = new Int32Array(new ArrayBuffer(128));

  /**
   * @param out the binding's out-parameter block, at least {@link SLOTS_NEEDED} slots.
   * @param reader the native response reader, where there is one.
   */
  constructor(lib: NativeLibrary, out: OutParams, reader: ResponseReader | undefined) {
    if (out.slots.length < SLOTS_NEEDED) throw new Error("the out-parameter block is too small");
    this.#lib = lib;
    this.#out = out;
    this.#reader = reader;
  }

  /** Whether {@link recorded} reads responses (the native reader exists). */
  get hasReader(): boolean {
    return this.#reader !== undefined;
  }

  /** The error `response` carries (`TRITONSERVER_InferenceResponseError`; owned by it). */
  error(response: Ptr): Ptr | undefined {
    const err = this.#lib.api.TRITONSERVER_InferenceResponseError(response);
    return this.#lib.ffi.isNull(err) ? undefined : err;
  }

  /**
   * Everything of `response` in one native call, decoded; `undefined` without a reader or when
   * one of its calls failed (its error is dropped: the field-by-field reads meet it again).
   */
  recorded(response: Ptr): RecordedFields | undefined {
    const reader = this.#reader;
    if (!reader) return undefined;
    if (!reader.read(response)) {
      this.#lib.api.TRITONSERVER_ErrorDelete(reader.pointer(RecordLayout.CALL_ERROR));
      return undefined;
    }
    const { u32 } = reader;
    const e = RecordLayout.RESPONSE_ERROR >> 2;
    if (u32[e] !== 0 || u32[e + 1] !== 0) { // tested first: a pointer read costs an op
      const error = reader.pointer(RecordLayout.RESPONSE_ERROR);
      const none = undefined;
      return { error, model: none, id: none, outputs: none, parameters: none };
    }
    return {
      error: undefined,
      model: {
        name: this.#recordedString(
          reader,
          RecordLayout.MODEL_COPY,
          RecordLayout.STRING_CAP,
          RecordLayout.MODEL_NAME,
        ),
        version: reader.i64At(RecordLayout.MODEL_VERSION),
      },
      id: this.#recordedString(
        reader,
        RecordLayout.ID_COPY,
        RecordLayout.STRING_CAP,
        RecordLayout.ID,
      ),
      outputs: this.#recordedOutputs(reader, response),
      parameters: this.#recordedParameters(reader),
    };
  }

  /** `TRITONSERVER_InferenceResponseModel`.
   * @throws {TritonError} what Triton reports. */
  model(response: Ptr): ModelOf {
    const lib = this.#lib;
    const o = this.#out;
    check(lib, lib.api.TRITONSERVER_InferenceResponseModel(response, o.slots[0], o.slots[1]));
    return { name: lib.ffi.cstring(o.pointer(0)), version: o.i64(1) };
  }

  /** `TRITONSERVER_InferenceResponseId` (`""` where none was set).
   * @throws {TritonError} what Triton reports. */
  id(response: Ptr): string {
    const lib = this.#lib;
    check(lib, lib.api.TRITONSERVER_InferenceResponseId(response, this.#out.slots[0]));
    return lib.ffi.cstring(this.#out.pointer(0));
  }

  /** Every output (`TRITONSERVER_InferenceResponseOutputCount`, `…Output`).
   * @throws {TritonError} what Triton reports; INTERNAL for an unknown data type or a size that
   *   does not fit the shape. */
  outputs(response: Ptr): OutputFields[] {
    const lib = this.#lib;
    const o = this.#out;
    check(lib, lib.api.TRITONSERVER_InferenceResponseOutputCount(response, o.slots[Slot.COUNT]));
    const count = o.u32(Slot.COUNT);
    const outputs: OutputFields[] = [];
    for (let i = 0; i < count; i++) outputs.push(this.output(response, i));
    return outputs;
  }

  /** Output `index` (`TRITONSERVER_InferenceResponseOutput`): a copy up to {@link COPY_LIMIT}
   * bytes, a view of Triton's buffer past it, nothing read in GPU memory.
   * @throws {TritonError} as {@link outputs}. */
  output(response: Ptr, index: number): OutputFields {
    const lib = this.#lib;
    const { ffi } = lib;
    const o = this.#out;
    check(lib, responseOutput(lib, o, response, index));
    const name = ffi.cstring(o.pointer(Slot.NAME));
    const code = o.u32(Slot.DATATYPE);
    const dtype = dataTypeNames.get(code);
    if (dtype === undefined) {
      throw new TritonError("INTERNAL", `output '${name}' has unknown data type ${code}`);
    }
    const dims = o.u64(Slot.DIM_COUNT);
    const shape: number[] = [];
    if (dims > 0) {
      if (dims * 2 > this.#shape.length) this.#shape = new Int32Array(new ArrayBuffer(dims * 8));
      const raw = dims * 2 === this.#shape.length ? this.#shape : this.#shape.subarray(0, dims * 2);
      ffi.copyInto(o.pointer(Slot.SHAPE), raw);
      for (let d = 0; d < dims; d++) shape.push((raw[2 * d] >>> 0) + raw[2 * d + 1] * 4294967296);
    }
    const byteSize = o.u64(Slot.BYTE_SIZE);
    const memoryType = memoryTypeNames[o.u32(Slot.MEMORY_TYPE)] ?? "CPU";
    const memoryTypeId = o.i32(Slot.MEMORY_TYPE_ID);
    const base = o.pointer(Slot.BASE);
    const fields = { name, dtype, shape, byteSize, memoryType, memoryTypeId, base };
    if (memoryType === "GPU") return { ...fields, bytes: undefined, inPlace: false };
    if (byteSize <= COPY_LIMIT) {
      // Small: a copy in JS memory, so that the native response can go as soon as the stream
      // moves past it.
      const bytes = this.#pool.take(byteSize);
      if (byteSize > 0) ffi.copyInto(base, bytes);
      return { ...fields, bytes, inPlace: false };
    }
    return { ...fields, bytes: new Uint8Array(ffi.view(base, byteSize)), inPlace: true };
  }

  /**
   * The label of class `classIndex` of output `index`
   * (`TRITONSERVER_InferenceResponseOutputClassificationLabel`): the line of that number in the
   * output's label file (`label_filename` in its configuration); `undefined` where the output has
   * no label file, the file no such line, or the line is empty.
   * @throws {TritonError} INVALID_ARG for an output index past the response's outputs.
   */
  classificationLabel(response: Ptr, index: number, classIndex: number): string | undefined {
    const lib = this.#lib;
    const o = this.#out;
    check(
      lib,
      lib.api.TRITONSERVER_InferenceResponseOutputClassificationLabel(
        response,
        index,
        classIndex,
        o.slots[0],
      ),
    );
    const label = o.pointer(0);
    return lib.ffi.isNull(label) ? undefined : lib.ffi.cstring(label);
  }

  /** Every parameter (`TRITONSERVER_InferenceResponseParameterCount`, `…Parameter`).
   * @throws {TritonError} what Triton reports; UNSUPPORTED for a type the binding does not
   *   know. */
  parameters(response: Ptr): Record<string, ParameterValue> {
    const { api, ffi } = this.#lib;
    const lib = this.#lib;
    const type = this.#u32;
    const out: Record<string, ParameterValue> = {};
    check(lib, api.TRITONSERVER_InferenceResponseParameterCount(response, type));
    const count = type[0];
    for (let i = 0; i < count; i++) {
      check(
        lib,
        api.TRITONSERVER_InferenceResponseParameter(response, i, this.#name, type, this.#ptr),
      );
      const name = ffi.cstring(ffi.fromAddress(this.#name[0]));
      const value = ffi.fromAddress(this.#ptr[0]);
      switch (type[0]) {
        case ParameterType.STRING:
          out[name] = ffi.cstring(value);
          break;
        case ParameterType.INT:
          ffi.copyInto(value, this.#i64);
          out[name] = this.#i64[0];
          break;
        case ParameterType.BOOL:
          ffi.copyInto(value, this.#bool);
          out[name] = this.#bool[0] !== 0;
          break;
        case ParameterType.DOUBLE:
          ffi.copyInto(value, this.#f64);
          out[name] = this.#f64[0];
          break;
        default:
          throw new TritonError("UNSUPPORTED", `response parameter '${name}' has type ${type[0]}`);
      }
    }
    return out;
  }

  /** The string whose copy is at `copy` in the record (`cap` bytes of room), or, when it did not
   * fit, the one at the pointer the reader stored at `pointer`. */
  #recordedString(reader: ResponseReader, copy: number, cap: number, pointer: number): string {
    return this.#strings.read(reader.u8, copy, cap) ??
      this.#lib.ffi.cstring(reader.pointer(pointer));
  }

  /** The outputs in the record; undefined (read field by field) when one cannot be decoded. */
  #recordedOutputs(reader: ResponseReader, response: Ptr): OutputFields[] | undefined {
    const { u8, u32 } = reader;
    const count = u32[RecordLayout.OUTPUT_COUNT >> 2];
    const outputs: OutputFields[] = [];
    try {
      for (let i = 0; i < count; i++) {
        const o = RecordLayout.OUTPUTS + i * RecordLayout.OUTPUT_SIZE;
        // Past MAX_OUTPUTS the record holds nothing of the output: none of it is read there.
        const copied = i < MAX_OUTPUTS ? reader.u64(o + OutputRecord.DATA) : 0;
        const dims = copied === 0 ? 0 : reader.u64(o + OutputRecord.DIM_COUNT);
        const name = copied === 0 || dims > MAX_DIMS
          ? undefined
          : this.#strings.read(u8, o + OutputRecord.NAME_COPY, RecordLayout.NAME_CAP);
        const dtype = name === undefined
          ? undefined
          : dataTypeNames.get(u32[(o + OutputRecord.DATATYPE) >> 2]);
        if (name === undefined || dtype === undefined) {
          // Not copied (large, in GPU memory, past MAX_OUTPUTS), or odd: read field by field.
          outputs.push(this.output(response, i));
          continue;
        }
        const shape: number[] = [];
        for (let d = 0; d < dims; d++) {
          shape.push(reader.i64At(o + OutputRecord.SHAPE_COPY + 8 * d));
        }
        const byteSize = reader.u64(o + OutputRecord.BYTE_SIZE);
        outputs.push({
          name,
          dtype,
          shape,
          byteSize,
          memoryType: memoryTypeNames[u32[(o + OutputRecord.MEMORY_TYPE) >> 2]] ?? "CPU",
          memoryTypeId: reader.i32[(o + OutputRecord.MEMORY_TYPE_ID) >> 2],
          base: reader.pointer(o + OutputRecord.BASE),
          bytes: this.#pool.copy(u8, copied, byteSize),
          inPlace: false,
        });
      }
    } catch {
      return undefined;
    }
    return outputs;
  }

  /** The parameters in the record; undefined (read field by field) when the reader left one. */
  #recordedParameters(reader: ResponseReader): Record<string, ParameterValue> | undefined {
    const { u8, u32 } = reader;
    const count = u32[RecordLayout.PARAM_COUNT >> 2];
    if (count > MAX_PARAMS) return undefined;
    const out: Record<string, ParameterValue> = {};
    for (let i = 0; i < count; i++) {
      const p = RecordLayout.PARAMS + i * RecordLayout.PARAM_SIZE;
      const name = this.#recordedString(
        reader,
        p + ParamRecord.NAME_COPY,
        RecordLayout.NAME_CAP,
        p + ParamRecord.NAME,
      );
      switch (u32[(p + ParamRecord.TYPE) >> 2]) {
        case ParameterType.STRING:
          out[name] = this.#recordedString(
            reader,
            p + ParamRecord.STRING_COPY,
            RecordLayout.VALUE_CAP,
            p + ParamRecord.VALUE,
          );
          break;
        case ParameterType.INT:
          out[name] = reader.i64[(p + ParamRecord.SCALAR) >> 3];
          break;
        case ParameterType.BOOL:
          out[name] = u8[p + ParamRecord.SCALAR] !== 0;
          break;
        case ParameterType.DOUBLE:
          out[name] = reader.f64[(p + ParamRecord.SCALAR) >> 3];
          break;
        default:
          return undefined; // read field by field, which reports the type
      }
    }
    return out;
  }
}
