/**
 * `InferResponse`: one response of an inference, read out of a `TRITONSERVER_InferenceResponse`.
 *
 * @module
 */
import type { TritonLibrary } from "../ffi/loader.ts";
import type { Ptr } from "../ffi/types.ts";
import { dataTypeName } from "./dtypes.ts";
import { errorFromPtr, TritonError } from "./errors.ts";
import { Tensor } from "./tensor.ts";

/** One response of an inference request. */
export interface InferResponse {
  /** Model that produced it. */
  readonly model: { readonly name: string; readonly version: number };
  /** The request id it answers (`""` where none was set). */
  readonly id: string;
  /** Output tensors by name (owned copies, valid after the response is gone). */
  readonly outputs: Readonly<Record<string, Tensor>>;
  /** The error the response carries, if any (see `raiseOnError`). */
  readonly error?: TritonError;
  /** Whether this is the request's last response (`TRITONSERVER_RESPONSE_COMPLETE_FINAL`). */
  readonly final: boolean;
}

/** Out-parameter words, reused for every response (all reads happen on the JS thread). */
const words = new BigUint64Array(8);
const u32 = new Uint32Array(2);
const i64 = new BigInt64Array(2);

/**
 * Reads `response` into an {@link InferResponse} (outputs are copied), then deletes it with
 * `TRITONSERVER_InferenceResponseDelete`, which returns the output buffers to the allocator.
 */
export function takeResponse(lib: TritonLibrary, response: Ptr, final: boolean): InferResponse {
  const { api, ffi } = lib;
  try {
    const errPtr = api.TRITONSERVER_InferenceResponseError(response);
    const error = ffi.isNull(errPtr) ? undefined : errorFromPtr(lib, errPtr, false);
    const modelName = new BigUint64Array(1);
    let model = { name: "", version: -1 };
    if (ffi.isNull(api.TRITONSERVER_InferenceResponseModel(response, modelName, i64))) {
      model = { name: ffi.cstring(ffi.fromAddress(modelName[0])), version: Number(i64[0]) };
    }
    let id = "";
    if (ffi.isNull(api.TRITONSERVER_InferenceResponseId(response, words))) {
      id = ffi.cstring(ffi.fromAddress(words[0]));
    }
    const outputs: Record<string, Tensor> = {};
    if (!error) {
      const countErr = api.TRITONSERVER_InferenceResponseOutputCount(response, u32);
      if (!ffi.isNull(countErr)) throw errorFromPtr(lib, countErr, true);
      const count = u32[0];
      for (let i = 0; i < count; i++) {
        const [name, tensor] = readOutput(lib, response, i);
        outputs[name] = tensor;
      }
    }
    return { model, id, outputs, error, final };
  } finally {
    api.TRITONSERVER_InferenceResponseDelete(response);
  }
}

const nameW = new BigUint64Array(1);
const dtypeW = new Uint32Array(1);
const shapeW = new BigUint64Array(1);
const dimsW = new BigUint64Array(1);
const baseW = new BigUint64Array(1);
const sizeW = new BigUint64Array(1);
const memW = new Uint32Array(1);
const memIdW = new BigInt64Array(1);
const userpW = new BigUint64Array(1);

function readOutput(lib: TritonLibrary, response: Ptr, index: number): [string, Tensor] {
  const { api, ffi } = lib;
  const err = api.TRITONSERVER_InferenceResponseOutput(
    response,
    index,
    nameW,
    dtypeW,
    shapeW,
    dimsW,
    baseW,
    sizeW,
    memW,
    memIdW,
    userpW,
  );
  if (!ffi.isNull(err)) throw errorFromPtr(lib, err, true);
  const name = ffi.cstring(ffi.fromAddress(nameW[0]));
  const dtype = dataTypeName(dtypeW[0]);
  if (!dtype) {
    throw new TritonError("INTERNAL", `output '${name}' has unknown data type ${dtypeW[0]}`);
  }
  const dims = Number(dimsW[0]);
  const shape: number[] = [];
  if (dims > 0) {
    const raw = new BigInt64Array(ffi.view(ffi.fromAddress(shapeW[0]), dims * 8));
    for (const d of raw) shape.push(Number(d));
  }
  const size = Number(sizeW[0]);
  if (memW[0] !== 0 && memW[0] !== 1) {
    throw new TritonError("UNSUPPORTED", `output '${name}' is in GPU memory`);
  }
  const bytes = new Uint8Array(ffi.view(ffi.fromAddress(baseW[0]), size));
  try {
    return [name, Tensor.fromBytes(dtype, shape, bytes)];
  } catch (e) {
    if (e instanceof TritonError) {
      throw new TritonError(e.code, `output '${name}': ${e.message}`);
    }
    throw e;
  }
}
