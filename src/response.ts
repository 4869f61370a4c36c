/**
 * `InferResponse`: one response of an inference, over a `TRITONSERVER_InferenceResponse` that it
 * owns until disposed.
 *
 * @module
 */
import { type MemoryTypeName, ParameterType } from "../ffi/enums.ts";
import type { TritonLibrary } from "../ffi/loader.ts";
import type { Ptr } from "../ffi/types.ts";
import { dataTypeName } from "./dtypes.ts";
import { deleteLater } from "./deferred_delete.ts";
import { check, errorFromPtr, TritonError } from "./errors.ts";
import { Tensor } from "./tensor.ts";
import { OutParams } from "../ffi/out_params.ts";

/** A response parameter's value: STRING → string, INT → bigint, BOOL → boolean, DOUBLE → number,
 * BYTES → Uint8Array (a copy). */
export type ParameterValue = string | bigint | boolean | number | Uint8Array;

const memoryTypeNames: readonly MemoryTypeName[] = ["CPU", "CPU_PINNED", "GPU"];

/** Deletes responses that JS dropped without disposing (a safety net, not the normal path). */
const unreleased = new FinalizationRegistry<
  { lib: TritonLibrary; response: Ptr; life: { readonly alive: boolean } }
>(({ lib, response, life }) => {
  if (life.alive) lib.api.TRITONSERVER_InferenceResponseDelete(response);
});

/** The life of a response read without a server's (see inflight.ts `ServerLife`). */
const IMMORTAL = { alive: true } as const;

/** What a response read from Triton needs until it is disposed. */
interface NativeResponse {
  readonly lib: TritonLibrary;
  readonly deviceToHost: DeviceToHost | undefined;
}

/** The fields of a response copied into JS. */
interface CopiedFields {
  readonly model: { readonly name: string; readonly version: number };
  readonly id: string;
  readonly outputs: Readonly<Record<string, Tensor>>;
  readonly parameters: Readonly<Record<string, ParameterValue>>;
}

/**
 * One response of an inference request.
 *
 * Its fields are read from Triton on first use and kept. Host outputs are zero-copy views of the
 * buffers Triton filled; they stay valid until the response is disposed — by `dispose()`/`using`,
 * or by the response generator moving on to the next response. Reading an output after that
 * throws, and so does reading a field (`model`, `id`, `parameters`, `outputs`) for the first
 * time; `copy()` keeps everything longer. `error` and `final` are always readable.
 */
export class InferResponse implements Disposable {
  /** The error the response carries, if any (see `raiseOnError`;
   * `TRITONSERVER_InferenceResponseError`). */
  readonly error?: TritonError;
  /** Whether this is the request's last response (`TRITONSERVER_RESPONSE_COMPLETE_FINAL`). */
  readonly final: boolean;
  #source: NativeResponse | undefined;
  #life: { readonly alive: boolean } = IMMORTAL;
  #native: Ptr | undefined;
  #lease: { disposed: boolean } | undefined;
  #views: ArrayBuffer[] | undefined;
  #model: { readonly name: string; readonly version: number } | undefined;
  #id: string | undefined;
  #outputs: Readonly<Record<string, Tensor>> | undefined;
  #parameters: Readonly<Record<string, ParameterValue>> | undefined;

  /** @internal Use {@link readResponse}. */
  constructor(
    final: boolean,
    error: TritonError | undefined,
    native?: { source: NativeResponse; response: Ptr; life?: { readonly alive: boolean } },
    copied?: CopiedFields,
  ) {
    this.final = final;
    if (error) this.error = error;
    if (native) {
      this.#source = native.source;
      this.#native = native.response;
      if (native.life) this.#life = native.life;
      unreleased.register(
        this,
        { lib: native.source.lib, response: native.response, life: this.#life },
        this,
      );
    } else if (copied) {
      this.#model = copied.model;
      this.#id = copied.id;
      this.#outputs = copied.outputs;
      this.#parameters = copied.parameters;
    }
  }

  /** Model that produced it (`TRITONSERVER_InferenceResponseModel`): the version is the one that
   * ran, also when the request asked for -1.
   * @throws {TritonError} UNAVAILABLE when first read after the response was disposed. */
  get model(): { readonly name: string; readonly version: number } {
    return (this.#model ??= readModel(...this.#open("model")));
  }

  /** The request id it answers, `""` where none was set (`TRITONSERVER_InferenceResponseId`).
   * @throws {TritonError} UNAVAILABLE when first read after the response was disposed. */
  get id(): string {
    return (this.#id ??= readId(...this.#open("id")));
  }

  /** Response parameters by name (`TRITONSERVER_InferenceResponseParameter`).
   * @throws {TritonError} UNAVAILABLE when first read after the response was disposed;
   *   UNSUPPORTED for a parameter of a type the binding does not know. */
  get parameters(): Readonly<Record<string, ParameterValue>> {
    return (this.#parameters ??= readParameters(...this.#open("parameters")));
  }

  /** Output tensors by name (`TRITONSERVER_InferenceResponseOutput`); none when `error` is set.
   * Host outputs are views of Triton's buffers, GPU outputs give their device address.
   * @throws {TritonError} UNAVAILABLE when first read after the response was disposed;
   *   INTERNAL for an output of an unknown data type or a size that does not fit its shape. */
  get outputs(): Readonly<Record<string, Tensor>> {
    if (this.#outputs) return this.#outputs;
    if (this.error) return (this.#outputs = {});
    const [lib, response] = this.#open("outputs");
    this.#lease ??= { disposed: false };
    this.#views ??= [];
    return (this.#outputs = readOutputs(
      lib,
      response,
      this.#lease,
      this.#views,
      this.#source!.deviceToHost,
    ));
  }

  /** The library and native response, to read a field from.
   * @throws {TritonError} UNAVAILABLE once disposed. */
  #open(field: string): [TritonLibrary, Ptr] {
    const response = this.#native;
    if (response !== undefined && !this.#life.alive) {
      throw new TritonError(
        "UNAVAILABLE",
        `the response's ${field} cannot be read: its server was stopped first (read its fields, ` +
          "or copy() it, before stop())",
      );
    }
    if (response === undefined) {
      throw new TritonError(
        "UNAVAILABLE",
        `the response's ${field} cannot be read: the response was disposed first (read its ` +
          "fields, or copy() it, before the generator moves on or dispose() is called)",
      );
    }
    return [this.#source!.lib, response];
  }

  /** Whether the native response has been released (always true for a copy). */
  get disposed(): boolean {
    return this.#native === undefined;
  }

  /**
   * Releases the native response (`TRITONSERVER_InferenceResponseDelete`, which returns its
   * output buffers to the allocator). Output views become unreadable. Idempotent.
   */
  dispose(): void {
    const response = this.#native;
    if (response === undefined) return;
    this.#close();
    this.#delete(response);
  }

  /** @internal {@link dispose}, with the native delete (and the detaching of the output views) on
   * a later macrotask: reads through this object throw at once. */
  disposeSoon(): void {
    const response = this.#native;
    if (response === undefined) return;
    this.#close();
    deleteLater((r) => this.#delete(r), response);
  }

  /** Makes this object's fields and outputs unreadable. */
  #close(): void {
    this.#native = undefined;
    if (this.#lease) this.#lease.disposed = true;
  }

  #delete(response: Ptr): void {
    unreleased.unregister(this);
    // Detach the views where the runtime can, so a kept TypedArray cannot read freed memory.
    const views = this.#views;
    if (views) {
      for (const buffer of views) {
        try {
          (buffer as { transfer?: (n: number) => ArrayBuffer }).transfer?.(0);
        } catch {
          // Already detached (the user transferred it): nothing left to protect.
        }
      }
      this.#views = undefined;
    }
    // After its server was deleted the response is left alone (deleting it would touch freed
    // server state).
    if (this.#life.alive) this.#source!.lib.api.TRITONSERVER_InferenceResponseDelete(response);
  }

  /** Same as {@link dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** A copy whose fields and outputs live in JS memory (its `disposed` is true: it holds nothing
   * native); this response is left as it is. Copy before the generator moves on.
   * @throws {TritonError} UNAVAILABLE once this response is disposed (its outputs are gone). */
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
}

/** Copies `byteSize` bytes of GPU memory at `pointer` on `deviceId` into host memory. */
export type DeviceToHost = (pointer: Ptr, byteSize: number, deviceId: number) => Uint8Array;

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

/** The hot reads' out-parameters (model, id, outputs), in native memory: see out_params.ts.
 * `TRITONSERVER_InferenceResponseOutput` writes slots NAME to USERP (see {@link responseOutput}). */
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
let outs: OutParams | undefined;

/** The process-wide block of {@link Slot}s, mapped on first use. */
export function outParams(lib: TritonLibrary): OutParams {
  return (outs ??= new OutParams(lib.ffi, Slot.COUNT + 1));
}

/**
 * Wraps `response` in an {@link InferResponse} that takes ownership of it. Only the error is read
 * now (`TRITONSERVER_InferenceResponseError`); the other fields on first use.
 */
export function readResponse(
  lib: TritonLibrary,
  response: Ptr,
  final: boolean,
  deviceToHost?: DeviceToHost,
): InferResponse {
  return readResponseFrom({ lib, deviceToHost }, response, final);
}

/** {@link readResponse} with the library and CUDA copy shared by every response of a table. */
export function readResponseFrom(
  source: NativeResponse,
  response: Ptr,
  final: boolean,
  life?: { readonly alive: boolean },
): InferResponse {
  const { lib } = source;
  const errPtr = lib.api.TRITONSERVER_InferenceResponseError(response);
  const error = lib.ffi.isNull(errPtr) ? undefined : errorFromPtr(lib, errPtr, false);
  return new InferResponse(final, error, { source, response, life });
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
  lease: { disposed: boolean },
  views: ArrayBuffer[],
  deviceToHost: DeviceToHost | undefined,
): Record<string, Tensor> {
  const o = outParams(lib);
  const outputs: Record<string, Tensor> = {};
  check(lib, lib.api.TRITONSERVER_InferenceResponseOutputCount(response, o.slots[Slot.COUNT]));
  const count = o.u32(Slot.COUNT);
  for (let i = 0; i < count; i++) {
    const [name, tensor] = readOutput(lib, o, response, i, lease, views, deviceToHost);
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
  lease: { disposed: boolean },
  views: ArrayBuffer[],
  deviceToHost: DeviceToHost | undefined,
): [string, Tensor] {
  const { ffi } = lib;
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
    return [
      name,
      Tensor.view(dtype, shape, [], lease, memoryType, memoryTypeId, device),
    ];
  }
  const buffer = ffi.view(base, size);
  views.push(buffer);
  try {
    const data = Tensor.elementsOf(dtype, shape, new Uint8Array(buffer));
    return [name, Tensor.view(dtype, shape, data, lease, memoryType, memoryTypeId)];
  } catch (e) {
    if (e instanceof TritonError) {
      throw new TritonError(e.code, `output '${name}': ${e.message}`);
    }
    throw e;
  }
}
