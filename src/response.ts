/**
 * `InferResponse`: one response of an inference, over a `TRITONSERVER_InferenceResponse` (see
 * `native_response.ts` for how long that lives).
 *
 * @module
 */
import { OUT_PARAM_SLOTS } from "../ffi/binding.ts";
import { CudaMemcpyKind } from "../ffi/cuda.ts";
import { type DataTypeName, type MemoryTypeName, ParameterType } from "../ffi/enums.ts";
import type { TritonLibrary } from "../ffi/loader.ts";
import type { OutParams } from "../ffi/out_params.ts";
import {
  MAX_DIMS,
  MAX_OUTPUTS,
  MAX_PARAMS,
  OutputRecord,
  ParamRecord,
  RecordLayout,
} from "../ffi/response_record.ts";
import type { ResponseReader } from "../ffi/response_reader.ts";
import type { Ptr } from "../ffi/types.ts";
import { dataTypeName } from "./dtypes.ts";
import { check, errorFromPtr, TritonError } from "./errors.ts";
import type { BytePool } from "./byte_pool.ts";
import type { CStringReader } from "./cstring_reader.ts";
import type { NativeResponse } from "./native_response.ts";
import { Tensor } from "./tensor.ts";

/** A response parameter's value: STRING → string, INT → bigint, BOOL → boolean, DOUBLE → number,
 * BYTES → Uint8Array (a copy). */
export type ParameterValue = string | bigint | boolean | number | Uint8Array;

const memoryTypeNames: readonly MemoryTypeName[] = ["CPU", "CPU_PINNED", "GPU"];

/** The fields of a response copied into JS. */
interface CopiedFields {
  readonly model: { readonly name: string; readonly version: number };
  readonly id: string;
  readonly outputs: Readonly<Record<string, Tensor>>;
  readonly parameters: Readonly<Record<string, ParameterValue>>;
}

/** What reading a response's outputs needs besides the response. */
export interface ResponseSource {
  readonly lib: TritonLibrary;
  /** Copies GPU memory to the host (for `toHost()` of GPU outputs). */
  readonly deviceToHost: DeviceToHost | undefined;
  /** Where small output copies go. */
  readonly pool: BytePool;
  /** Decodes the strings of the response record. */
  readonly strings: CStringReader;
}

/**
 * One response of an inference request.
 *
 * It stays readable for as long as you hold it: until `dispose()` (or `using`), until it is
 * garbage-collected, or until its server stops (`server.stop()` releases every response it
 * owns). Its fields are read from Triton on first use and kept. Host outputs are zero-copy
 * views of the buffers Triton filled, and a view you keep keeps its buffer alive even after the
 * response object itself is gone; once the response is released (disposed, or its server
 * stopped) every such view is detached (length 0), so nothing can read freed memory. `copy()`
 * gives a response that lives in JS memory only. `error` and `final` are always readable.
 */
export class InferResponse implements Disposable {
  /** The error the response carries, if any (see `raiseOnError`;
   * `TRITONSERVER_InferenceResponseError`). */
  readonly error?: TritonError;
  /** Whether this is the request's last response (`TRITONSERVER_RESPONSE_COMPLETE_FINAL`). */
  readonly final: boolean;
  #source: ResponseSource | undefined;
  #native: NativeResponse | undefined;
  #model: { readonly name: string; readonly version: number } | undefined;
  #id: string | undefined;
  #outputs: Readonly<Record<string, Tensor>> | undefined;
  #parameters: Readonly<Record<string, ParameterValue>> | undefined;
  /** Fields the native response reader read on arrival, not yet used. */
  #read: Partial<CopiedFields> | undefined;

  /** @internal Use {@link readResponse}. With `native`, `copied` holds the fields already read
   * from it, which the getters take on first use as they would read them (so a field first used
   * after `dispose()` throws either way); without, the response's fields. */
  constructor(
    final: boolean,
    error: TritonError | undefined,
    native?: { source: ResponseSource; response: NativeResponse },
    copied?: Partial<CopiedFields>,
  ) {
    this.final = final;
    if (error) this.error = error;
    if (native) {
      this.#source = native.source;
      this.#native = native.response;
      this.#read = copied;
      native.response.hold(this);
    } else if (copied) {
      this.#model = copied.model;
      this.#id = copied.id;
      this.#outputs = copied.outputs;
      this.#parameters = copied.parameters;
    }
  }

  /** Model that produced it (`TRITONSERVER_InferenceResponseModel`): the version is the one that
   * ran, also when the request asked for -1.
   * @throws {TritonError} UNAVAILABLE when first read after the response was released. */
  get model(): { readonly name: string; readonly version: number } {
    return (this.#model ??= this.#take("model") ?? readModel(...this.#open("model")));
  }

  /** The request id it answers, `""` where none was set (`TRITONSERVER_InferenceResponseId`).
   * @throws {TritonError} UNAVAILABLE when first read after the response was released. */
  get id(): string {
    return (this.#id ??= this.#take("id") ?? readId(...this.#open("id")));
  }

  /** Response parameters by name (`TRITONSERVER_InferenceResponseParameter`).
   * @throws {TritonError} UNAVAILABLE when first read after the response was released;
   *   UNSUPPORTED for a parameter of a type the binding does not know. */
  get parameters(): Readonly<Record<string, ParameterValue>> {
    return (this.#parameters ??= this.#take("parameters") ??
      readParameters(...this.#open("parameters")));
  }

  /** Output tensors by name (`TRITONSERVER_InferenceResponseOutput`); none when `error` is set.
   * Host outputs are views of Triton's buffers, GPU outputs give their device address. See
   * {@link output} for one output with its data type checked and typed.
   * @throws {TritonError} UNAVAILABLE when first read after the response was released;
   *   INTERNAL for an output of an unknown data type or a size that does not fit its shape. */
  get outputs(): Readonly<Record<string, Tensor>> {
    if (this.#outputs) return this.#outputs;
    if (this.error) return (this.#outputs = {});
    const read = this.#take("outputs");
    if (read) return (this.#outputs = read);
    const [lib, response] = this.#open("outputs");
    return (this.#outputs = readOutputs(lib, response, this.#native!, this.#source!));
  }

  /**
   * One output, its data type checked: `data` is then typed (`Float32Array` for `"FP32"`,
   * `Uint8Array[]` for `"BYTES"`, …) without a cast.
   * @param name the output's name.
   * @param dtype the data type the caller expects.
   * @throws {TritonError} NOT_FOUND when the response has no such output; INVALID_ARG when its
   *   data type is another; as {@link outputs}.
   * @example
   * ```ts
   * const sum: Float32Array = response.output("OUTPUT0", "FP32").data;
   * ```
   */
  output<D extends DataTypeName>(name: string, dtype: D): Tensor<D> {
    const tensor = this.outputs[name];
    if (tensor === undefined) {
      throw new TritonError(
        "NOT_FOUND",
        `the response has no output '${name}' (it has ${
          Object.keys(this.outputs).map((n) => `'${n}'`).join(", ") || "none"
        })`,
      );
    }
    if (tensor.dtype !== dtype) {
      throw new TritonError("INVALID_ARG", `output '${name}' is ${tensor.dtype}, not ${dtype}`);
    }
    return tensor as Tensor<D>;
  }

  /** A field the reader read on arrival, as it would be read now (throws UNAVAILABLE once
   * released, as {@link #open}). */
  #take<K extends keyof CopiedFields>(field: K): CopiedFields[K] | undefined {
    const value = this.#read?.[field];
    if (value !== undefined) this.#open(field);
    return value;
  }

  /** The library and native response, to read a field from.
   * @throws {TritonError} UNAVAILABLE once released. */
  #open(field: string): [TritonLibrary, Ptr] {
    const native = this.#native;
    const response = native?.pointer;
    if (response === undefined) {
      throw new TritonError(
        "UNAVAILABLE",
        native?.owner.closed
          ? `the response's ${field} cannot be read: its server was stopped first (read its ` +
            "fields, or copy() it, before stop())"
          : `the response's ${field} cannot be read: the response was disposed first (read its ` +
            "fields, or copy() it, before dispose())",
      );
    }
    return [this.#source!.lib, response];
  }

  /** Whether the native response has been released (always true for a copy). */
  get disposed(): boolean {
    return this.#native === undefined || this.#native.disposed;
  }

  /**
   * Releases the native response now (`TRITONSERVER_InferenceResponseDelete`, which returns its
   * output buffers to the allocator and lets go of the model). Output views are detached.
   * Idempotent; after its server stopped, there is nothing left to release.
   */
  dispose(): void {
    this.#native?.release();
  }

  /** Same as {@link dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** A copy whose fields and outputs live in JS memory (its `disposed` is true: it holds nothing
   * native); this response is left as it is.
   * @throws {TritonError} UNAVAILABLE once this response is released (its outputs are gone). */
  copy(): InferResponse {
    const outputs: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(this.outputs)) outputs[name] = t.copy();
    return new InferResponse(this.final, this.error, undefined, {
      model: this.model,
      id: this.id,
      outputs,
      parameters: this.parameters,
    });
  }

  /**
   * @internal The stream moved past this response: when nothing reads Triton's buffers in place
   * (every output read is a copy, no large output), read the remaining fields and release the
   * native response — it holds the model and Triton's memory — while this object stays readable.
   * Otherwise it is left to `dispose()`, the garbage collector or the server's stop. Never throws:
   * a field that cannot be read keeps the native response.
   */
  settle(): void {
    const native = this.#native;
    if (native === undefined || native.disposed || native.viewing) return;
    try {
      this.model;
      this.id;
      this.parameters;
      this.outputs;
    } catch {
      return;
    }
    if (native.viewing) return;
    for (const t of Object.values(this.#outputs!)) if (t.memoryType === "GPU") return;
    native.release();
  }

  /**
   * @internal Reads every field now, copies the host outputs into JS memory and releases the
   * native response, which this object then no longer needs (`disposed` becomes true, as for a
   * copy). Left as it is when an output is in GPU memory.
   * @throws {TritonError} as the fields' getters.
   */
  materialize(): void {
    const native = this.#native;
    if (native === undefined || native.disposed) return;
    this.model;
    this.id;
    this.parameters;
    const outputs: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(this.outputs)) {
      if (t.memoryType === "GPU") return;
      outputs[name] = t.isView ? t.copy() : t;
    }
    this.#outputs = outputs;
    native.release();
  }

  /** @internal A response that Triton did not send, standing for the end of a request in a
   * response queue: FINAL with no outputs (a FINAL flag without a response), or the error the
   * request ended with (`stop()`, a cancel). */
  static end(
    model: { readonly name: string; readonly version: number },
    id: string,
    error?: TritonError,
  ): InferResponse {
    return new InferResponse(true, error, undefined, { model, id, outputs: {}, parameters: {} });
  }
}

/** Host outputs up to this many bytes (64 KiB) are copied into JS memory when read; larger ones
 * are zero-copy views of Triton's buffer. */
export const COPY_LIMIT = 64 * 1024;

/** Copies `byteSize` bytes of GPU memory at `pointer` on `deviceId` into host memory. */
export type DeviceToHost = (pointer: Ptr, byteSize: number, deviceId: number) => Uint8Array;

/** {@link DeviceToHost} through the library's CUDA runtime (`cudaSetDevice`, `cudaMemcpy`).
 * The copy throws UNAVAILABLE when no CUDA runtime is loaded, INTERNAL when the copy fails. */
export function deviceToHost(lib: TritonLibrary): DeviceToHost {
  return (pointer, byteSize, deviceId) => {
    const cuda = lib.binding.callbacks.cuda();
    if (!cuda) throw new TritonError("UNAVAILABLE", "no CUDA runtime is loaded");
    const out = new Uint8Array(byteSize);
    let rc = cuda.api.cudaSetDevice(deviceId);
    if (rc === 0 && byteSize > 0) {
      rc = cuda.api.cudaMemcpy(
        lib.ffi.addressOf(out),
        pointer,
        byteSize,
        CudaMemcpyKind.DeviceToHost,
      );
    }
    if (rc !== 0) {
      throw new TritonError(
        "INTERNAL",
        `cudaMemcpy to host failed: ${cuda.api.cudaGetErrorString(rc)}`,
      );
    }
    return out;
  };
}

/**
 * Out-parameters, reused for every response (all reads happen on the JS thread). Each has an
 * ArrayBuffer of its own: a small typed array made with a length lives in the JS heap, which
 * Deno's fast FFI path does not take (~0.3 µs more per call).
 */
const ptrW = new BigUint64Array(new ArrayBuffer(8));
const i64W = new BigInt64Array(new ArrayBuffer(8));
const nameW = new BigUint64Array(new ArrayBuffer(8));
const memW = new Uint32Array(new ArrayBuffer(4));
const u8W = new Uint8Array(new ArrayBuffer(1)); // copyInto copies its byteLength: one bool
const f64W = new Float64Array(new ArrayBuffer(8));
/** An output's dimensions as int32 pairs (low, high), copied out of Triton's shape array (grown
 * for higher ranks). */
let shapeW = new Int32Array(new ArrayBuffer(128));

/** The hot reads' out-parameters (model, id, outputs) in the binding's native out-parameter
 * block: `TRITONSERVER_InferenceResponseOutput` writes slots NAME to USERP (see
 * {@link responseOutput}). */
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
if (Slot.COUNT >= OUT_PARAM_SLOTS) {
  throw new Error("the binding's out-parameter block is too small");
}

/** The binding's out-parameter block, which holds the {@link Slot}s. */
export function outParams(lib: TritonLibrary): OutParams {
  return lib.binding.outParams;
}

/**
 * Wraps a response Triton delivered in an {@link InferResponse}, which becomes one of its
 * holders. With the native response reader, everything is read now in one call (see
 * `response_record.ts`) and what it copied is decoded; anything it left (a long name, a large or
 * GPU output, an unknown type) is read on first use, as every field is without the reader, where
 * only the error is read now (`TRITONSERVER_InferenceResponseError`).
 * @param inJs the response is to live in JS memory only (see `InferResponse.materialize`): when
 *   the reader copied all of it, the native response is released at once and the result holds
 *   nothing native; otherwise the caller materializes it.
 */
export function readResponse(
  source: ResponseSource,
  response: NativeResponse,
  final: boolean,
  inJs = false,
): InferResponse {
  const { lib } = source;
  const reader = lib.binding.responseReader;
  if (reader) {
    if (reader.read(response.pointer!)) return recorded(source, reader, response, final, inJs);
    // A call failed: its error is dropped here, and the getters meet it again on first use.
    lib.api.TRITONSERVER_ErrorDelete(reader.pointer(RecordLayout.CALL_ERROR));
  }
  const errPtr = lib.api.TRITONSERVER_InferenceResponseError(response.pointer!);
  const error = lib.ffi.isNull(errPtr) ? undefined : errorFromPtr(lib, errPtr, false);
  return new InferResponse(final, error, { source, response });
}

/** The response the reader just read into the record of `reader`. */
function recorded(
  source: ResponseSource,
  reader: ResponseReader,
  response: NativeResponse,
  final: boolean,
  inJs: boolean,
): InferResponse {
  const { lib } = source;
  const { u32 } = reader;
  const error = RecordLayout.RESPONSE_ERROR >> 2;
  if (u32[error] !== 0 || u32[error + 1] !== 0) { // tested first: a pointer read costs an op
    const errPtr = reader.pointer(RecordLayout.RESPONSE_ERROR);
    return new InferResponse(final, errorFromPtr(lib, errPtr, false), { source, response });
  }
  const model = {
    name: recordedString(
      source,
      reader,
      RecordLayout.MODEL_COPY,
      RecordLayout.STRING_CAP,
      RecordLayout.MODEL_NAME,
    ),
    version: reader.i64At(RecordLayout.MODEL_VERSION),
  };
  const id = recordedString(
    source,
    reader,
    RecordLayout.ID_COPY,
    RecordLayout.STRING_CAP,
    RecordLayout.ID,
  );
  const outputs = recordedOutputs(source, reader, response);
  const parameters = recordedParameters(source, reader);
  if (inJs && outputs && parameters && !response.viewing && allHost(outputs)) {
    response.release(); // everything is in JS memory: no holder needed
    return new InferResponse(final, undefined, undefined, { model, id, outputs, parameters });
  }
  return new InferResponse(final, undefined, { source, response }, {
    model,
    id,
    outputs,
    parameters,
  });
}

/** The string whose copy is at `copy` in the record (`cap` bytes of room), or, when it did not
 * fit, the one at the pointer the reader stored at `pointer`. */
function recordedString(
  source: ResponseSource,
  reader: ResponseReader,
  copy: number,
  cap: number,
  pointer: number,
): string {
  return source.strings.read(reader.u8, copy, cap) ??
    source.lib.ffi.cstring(reader.pointer(pointer));
}

/** Whether no output is in GPU memory. */
function allHost(outputs: Record<string, Tensor>): boolean {
  for (const name in outputs) if (outputs[name].memoryType === "GPU") return false;
  return true;
}

/** The outputs in the record; undefined (read on first use) when one cannot be decoded. */
function recordedOutputs(
  source: ResponseSource,
  reader: ResponseReader,
  native: NativeResponse,
): Record<string, Tensor> | undefined {
  const { lib, strings, pool } = source;
  const { u8, u32 } = reader;
  const count = u32[RecordLayout.OUTPUT_COUNT >> 2];
  const outputs: Record<string, Tensor> = {};
  try {
    for (let i = 0; i < count; i++) {
      const o = RecordLayout.OUTPUTS + i * RecordLayout.OUTPUT_SIZE;
      // Past MAX_OUTPUTS the record holds nothing of the output: none of it is read there.
      const copied = i < MAX_OUTPUTS ? reader.u64(o + OutputRecord.DATA) : 0;
      const dims = copied === 0 ? 0 : reader.u64(o + OutputRecord.DIM_COUNT);
      const name = copied === 0 || dims > MAX_DIMS
        ? undefined
        : strings.read(u8, o + OutputRecord.NAME_COPY, RecordLayout.NAME_CAP);
      const dtype = name === undefined
        ? undefined
        : dataTypeName(u32[(o + OutputRecord.DATATYPE) >> 2]);
      if (name === undefined || dtype === undefined) {
        // Not copied (large, in GPU memory, past MAX_OUTPUTS), or odd: read as without the reader.
        const read = readOutput(lib, outParams(lib), native.pointer!, i, native, source);
        outputs[read[0]] = read[1];
        continue;
      }
      const shape: number[] = [];
      for (let d = 0; d < dims; d++) shape.push(reader.i64At(o + OutputRecord.SHAPE_COPY + 8 * d));
      const size = reader.u64(o + OutputRecord.BYTE_SIZE);
      const data = Tensor.elementsOf(dtype, shape, pool.copy(u8, copied, size));
      const memoryType = memoryTypeNames[u32[(o + OutputRecord.MEMORY_TYPE) >> 2]] ?? "CPU";
      const memoryTypeId = reader.i32[(o + OutputRecord.MEMORY_TYPE_ID) >> 2];
      outputs[name] = Tensor.view(dtype, shape, data, undefined, memoryType, memoryTypeId);
    }
  } catch {
    return undefined;
  }
  return outputs;
}

/** The parameters in the record; undefined (read on first use) when the reader left one. */
function recordedParameters(
  source: ResponseSource,
  reader: ResponseReader,
): Record<string, ParameterValue> | undefined {
  const { u8, u32 } = reader;
  const count = u32[RecordLayout.PARAM_COUNT >> 2];
  if (count > MAX_PARAMS) return undefined;
  const out: Record<string, ParameterValue> = {};
  for (let i = 0; i < count; i++) {
    const p = RecordLayout.PARAMS + i * RecordLayout.PARAM_SIZE;
    const name = recordedString(
      source,
      reader,
      p + ParamRecord.NAME_COPY,
      RecordLayout.NAME_CAP,
      p + ParamRecord.NAME,
    );
    switch (u32[(p + ParamRecord.TYPE) >> 2]) {
      case ParameterType.STRING:
        out[name] = recordedString(
          source,
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
        return undefined; // read on first use, which reports the type
    }
  }
  return out;
}

function readModel(lib: TritonLibrary, response: Ptr): { name: string; version: number } {
  const o = outParams(lib);
  const { slots } = o;
  check(lib, lib.api.TRITONSERVER_InferenceResponseModel(response, slots[0], slots[1]));
  return { name: lib.ffi.cstring(o.pointer(0)), version: o.i64(1) };
}

function readId(lib: TritonLibrary, response: Ptr): string {
  const o = outParams(lib);
  check(lib, lib.api.TRITONSERVER_InferenceResponseId(response, o.slots[0]));
  return lib.ffi.cstring(o.pointer(0));
}

function readOutputs(
  lib: TritonLibrary,
  response: Ptr,
  native: NativeResponse,
  source: ResponseSource,
): Record<string, Tensor> {
  const o = outParams(lib);
  const outputs: Record<string, Tensor> = {};
  check(lib, lib.api.TRITONSERVER_InferenceResponseOutputCount(response, o.slots[Slot.COUNT]));
  const count = o.u32(Slot.COUNT);
  for (let i = 0; i < count; i++) {
    const [name, tensor] = readOutput(lib, o, response, i, native, source);
    outputs[name] = tensor;
  }
  return outputs;
}

function readParameters(lib: TritonLibrary, response: Ptr): Record<string, ParameterValue> {
  const { api, ffi } = lib;
  const out: Record<string, ParameterValue> = {};
  check(lib, api.TRITONSERVER_InferenceResponseParameterCount(response, memW));
  const count = memW[0];
  for (let i = 0; i < count; i++) {
    check(lib, api.TRITONSERVER_InferenceResponseParameter(response, i, nameW, memW, ptrW));
    const name = ffi.cstring(ffi.fromAddress(nameW[0]));
    const value = ffi.fromAddress(ptrW[0]);
    switch (memW[0]) {
      case ParameterType.STRING:
        out[name] = ffi.cstring(value);
        break;
      case ParameterType.INT:
        ffi.copyInto(value, i64W);
        out[name] = i64W[0];
        break;
      case ParameterType.BOOL:
        ffi.copyInto(value, u8W);
        out[name] = u8W[0] !== 0;
        break;
      case ParameterType.DOUBLE:
        ffi.copyInto(value, f64W);
        out[name] = f64W[0];
        break;
      default:
        throw new TritonError("UNSUPPORTED", `response parameter '${name}' has type ${memW[0]}`);
    }
  }
  return out;
}

/**
 * `TRITONSERVER_InferenceResponseOutput(response, index, …)` with its out-parameters in the slots
 * of `o` named by {@link Slot} (NAME to USERP); returns the call's `TRITONSERVER_Error*`.
 */
export function responseOutput(
  lib: TritonLibrary,
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

function readOutput(
  lib: TritonLibrary,
  o: OutParams,
  response: Ptr,
  index: number,
  native: NativeResponse,
  source: ResponseSource,
): [string, Tensor] {
  const { ffi } = lib;
  const { deviceToHost } = source;
  check(lib, responseOutput(lib, o, response, index));
  const name = ffi.cstring(o.pointer(Slot.NAME));
  const dtype = dataTypeName(o.u32(Slot.DATATYPE));
  if (!dtype) {
    throw new TritonError(
      "INTERNAL",
      `output '${name}' has unknown data type ${o.u32(Slot.DATATYPE)}`,
    );
  }
  const dims = o.u64(Slot.DIM_COUNT);
  const shape: number[] = [];
  if (dims > 0) {
    if (dims * 2 > shapeW.length) shapeW = new Int32Array(new ArrayBuffer(dims * 8));
    const raw = dims * 2 === shapeW.length ? shapeW : shapeW.subarray(0, dims * 2);
    ffi.copyInto(o.pointer(Slot.SHAPE), raw);
    for (let d = 0; d < dims; d++) shape.push((raw[2 * d] >>> 0) + raw[2 * d + 1] * 4294967296);
  }
  const size = o.u64(Slot.BYTE_SIZE);
  const memoryType = memoryTypeNames[o.u32(Slot.MEMORY_TYPE)] ?? "CPU";
  const memoryTypeId = o.i32(Slot.MEMORY_TYPE_ID);
  const base = o.pointer(Slot.BASE);
  if (memoryType === "GPU") {
    const toHost = () => {
      if (!deviceToHost) {
        throw new TritonError(
          "UNAVAILABLE",
          `output '${name}' is in GPU memory and no CUDA runtime is loaded`,
        );
      }
      return deviceToHost(base, size, memoryTypeId);
    };
    const device = { pointer: ffi.address(base), byteSize: size, toHost };
    const tensor = Tensor.view(dtype, shape, [], native, memoryType, memoryTypeId, device);
    native.hold(tensor); // it carries the device address: the buffer lives while it does
    return [name, tensor];
  }
  try {
    if (size <= COPY_LIMIT) {
      // Small: a copy in JS memory, so that the native response can go as soon as the stream
      // moves past it (see InferResponse.settle).
      const bytes = source.pool.take(size);
      if (size > 0) ffi.copyInto(base, bytes);
      const data = Tensor.elementsOf(dtype, shape, bytes);
      return [name, Tensor.view(dtype, shape, data, undefined, memoryType, memoryTypeId)];
    }
    const buffer = ffi.view(base, size);
    const data = Tensor.elementsOf(dtype, shape, new Uint8Array(buffer));
    // A view in place (not a copy: BYTES, or an unaligned buffer) keeps its buffer alive.
    if (!Array.isArray(data) && data.buffer === buffer) native.holdView(buffer);
    return [name, Tensor.view(dtype, shape, data, native, memoryType, memoryTypeId)];
  } catch (e) {
    if (e instanceof TritonError) {
      throw new TritonError(e.code, `output '${name}': ${e.message}`);
    }
    throw e;
  }
}
