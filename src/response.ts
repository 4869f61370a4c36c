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
import { check, errorFromPtr, TritonError } from "./errors.ts";
import { Tensor } from "./tensor.ts";

/** A response parameter's value: STRING → string, INT → bigint, BOOL → boolean, DOUBLE → number,
 * BYTES → Uint8Array (a copy). */
export type ParameterValue = string | bigint | boolean | number | Uint8Array;

const memoryTypeNames: readonly MemoryTypeName[] = ["CPU", "CPU_PINNED", "GPU"];

/** Deletes responses that JS dropped without disposing (a safety net, not the normal path). */
const unreleased = new FinalizationRegistry<{ lib: TritonLibrary; response: Ptr }>(
  ({ lib, response }) => lib.api.TRITONSERVER_InferenceResponseDelete(response),
);

/**
 * One response of an inference request.
 *
 * Host outputs are zero-copy views of the buffers Triton filled; they stay valid until the
 * response is disposed — by `dispose()`/`using`, or by the response generator moving on to the
 * next response. Reading an output after that throws; `copy()` keeps values longer.
 */
export class InferResponse implements Disposable {
  /** Model that produced it. */
  readonly model: { readonly name: string; readonly version: number };
  /** The request id it answers (`""` where none was set). */
  readonly id: string;
  /** Output tensors by name. */
  readonly outputs: Readonly<Record<string, Tensor>>;
  /** Response parameters by name (`TRITONSERVER_InferenceResponseParameter`). */
  readonly parameters: Readonly<Record<string, ParameterValue>>;
  /** The error the response carries, if any (see `raiseOnError`). */
  readonly error?: TritonError;
  /** Whether this is the request's last response (`TRITONSERVER_RESPONSE_COMPLETE_FINAL`). */
  readonly final: boolean;
  #lib: TritonLibrary | undefined;
  #native: Ptr | undefined;
  #lease = { disposed: false };
  #views: ArrayBuffer[] = [];

  /** @internal Use {@link readResponse}. */
  constructor(
    fields: {
      model: { name: string; version: number };
      id: string;
      outputs: Record<string, Tensor>;
      parameters: Record<string, ParameterValue>;
      error?: TritonError;
      final: boolean;
    },
    native?: {
      lib: TritonLibrary;
      response: Ptr;
      lease: { disposed: boolean };
      views: ArrayBuffer[];
    },
  ) {
    this.model = fields.model;
    this.id = fields.id;
    this.outputs = fields.outputs;
    this.parameters = fields.parameters;
    this.error = fields.error;
    this.final = fields.final;
    if (native) {
      this.#lib = native.lib;
      this.#native = native.response;
      this.#lease = native.lease;
      this.#views = native.views;
      unreleased.register(this, { lib: native.lib, response: native.response }, this);
    }
  }

  /** Whether the native response has been released. */
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
    this.#native = undefined;
    this.#lease.disposed = true;
    unreleased.unregister(this);
    // Detach the views where the runtime can, so a kept TypedArray cannot read freed memory.
    for (const buffer of this.#views) {
      (buffer as { transfer?: (n: number) => ArrayBuffer }).transfer?.(0);
    }
    this.#views = [];
    this.#lib!.api.TRITONSERVER_InferenceResponseDelete(response);
  }

  /** Same as {@link dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** A copy whose outputs live in JS memory; this response is left as it is.
   * @throws {TritonError} UNAVAILABLE once this response is disposed. */
  copy(): InferResponse {
    const outputs: Record<string, Tensor> = {};
    for (const [name, t] of Object.entries(this.outputs)) outputs[name] = t.copy();
    return new InferResponse({
      model: this.model,
      id: this.id,
      outputs,
      parameters: this.parameters,
      error: this.error,
      final: this.final,
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
const u32W = new Uint32Array(new ArrayBuffer(4));
const nameW = new BigUint64Array(new ArrayBuffer(8));
const dtypeW = new Uint32Array(new ArrayBuffer(4));
const shapePtrW = new BigUint64Array(new ArrayBuffer(8));
const u8W = new Uint8Array(new ArrayBuffer(1)); // copyInto copies its byteLength: one bool
const f64W = new Float64Array(new ArrayBuffer(8));
/** An output's dimensions, copied out of Triton's shape array (grown for higher ranks). */
let shapeW = new BigInt64Array(new ArrayBuffer(64));
const dimsW = new BigUint64Array(new ArrayBuffer(8));
const baseW = new BigUint64Array(new ArrayBuffer(8));
const sizeW = new BigUint64Array(new ArrayBuffer(8));
const memW = new Uint32Array(new ArrayBuffer(4));
const memIdW = new BigInt64Array(new ArrayBuffer(8));
const userpW = new BigUint64Array(new ArrayBuffer(8));

/**
 * Reads `response` into an {@link InferResponse} that takes ownership of it. On failure the native
 * response is deleted and the error thrown.
 * @throws {TritonError} when Triton's accessors fail or an output is malformed.
 */
export function readResponse(
  lib: TritonLibrary,
  response: Ptr,
  final: boolean,
  deviceToHost?: DeviceToHost,
): InferResponse {
  const { api, ffi } = lib;
  const lease = { disposed: false };
  const views: ArrayBuffer[] = [];
  try {
    const errPtr = api.TRITONSERVER_InferenceResponseError(response);
    const error = ffi.isNull(errPtr) ? undefined : errorFromPtr(lib, errPtr, false);
    let model = { name: "", version: -1 };
    if (ffi.isNull(api.TRITONSERVER_InferenceResponseModel(response, ptrW, i64W))) {
      model = { name: ffi.cstring(ffi.fromAddress(ptrW[0])), version: Number(i64W[0]) };
    }
    let id = "";
    if (ffi.isNull(api.TRITONSERVER_InferenceResponseId(response, ptrW))) {
      id = ffi.cstring(ffi.fromAddress(ptrW[0]));
    }
    const parameters = readParameters(lib, response);
    const outputs: Record<string, Tensor> = {};
    if (!error) {
      check(lib, api.TRITONSERVER_InferenceResponseOutputCount(response, u32W));
      const count = u32W[0];
      for (let i = 0; i < count; i++) {
        const tensor = readOutput(lib, response, i, lease, views, deviceToHost);
        outputs[tensor[0]] = tensor[1];
      }
    }
    return new InferResponse({ model, id, outputs, parameters, error, final }, {
      lib,
      response,
      lease,
      views,
    });
  } catch (e) {
    api.TRITONSERVER_InferenceResponseDelete(response);
    throw e;
  }
}

function readParameters(lib: TritonLibrary, response: Ptr): Record<string, ParameterValue> {
  const { api, ffi } = lib;
  const out: Record<string, ParameterValue> = {};
  check(lib, api.TRITONSERVER_InferenceResponseParameterCount(response, u32W));
  const count = u32W[0];
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

function readOutput(
  lib: TritonLibrary,
  response: Ptr,
  index: number,
  lease: { disposed: boolean },
  views: ArrayBuffer[],
  deviceToHost: DeviceToHost | undefined,
): [string, Tensor] {
  const { api, ffi } = lib;
  check(
    lib,
    api.TRITONSERVER_InferenceResponseOutput(
      response,
      index,
      nameW,
      dtypeW,
      shapePtrW,
      dimsW,
      baseW,
      sizeW,
      memW,
      memIdW,
      userpW,
    ),
  );
  const name = ffi.cstring(ffi.fromAddress(nameW[0]));
  const dtype = dataTypeName(dtypeW[0]);
  if (!dtype) {
    throw new TritonError("INTERNAL", `output '${name}' has unknown data type ${dtypeW[0]}`);
  }
  const dims = Number(dimsW[0]);
  const shape: number[] = [];
  if (dims > 0) {
    if (dims > shapeW.length) shapeW = new BigInt64Array(new ArrayBuffer(dims * 8));
    const raw = dims === shapeW.length ? shapeW : shapeW.subarray(0, dims);
    ffi.copyInto(ffi.fromAddress(shapePtrW[0]), raw);
    for (let d = 0; d < dims; d++) shape.push(Number(raw[d]));
  }
  const size = Number(sizeW[0]);
  const memoryType = memoryTypeNames[memW[0]] ?? "CPU";
  const memoryTypeId = Number(memIdW[0]);
  const base = ffi.fromAddress(baseW[0]);
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
