/**
 * Inference requests: the options a caller gives, the `TRITONSERVER_InferenceRequest` built from
 * them, and the async generator of responses.
 *
 * @module
 */
import { MemoryType } from "../ffi/enums.ts";
import type { Ptr } from "../ffi/types.ts";
import { DATA_TYPES } from "./dtypes.ts";
import { check, TritonError } from "./errors.ts";
import { InflightRequest, type InflightTable } from "./inflight.ts";
import type { InferResponse } from "./response.ts";
import { Tensor, type TensorLike } from "./tensor.ts";

/** What to infer. */
export interface InferRequest {
  /** Input tensors by input name. Inputs are read in place (no copy) until Triton releases the
   * request; do not modify them while the request is in flight. */
  readonly inputs: Readonly<Record<string, TensorLike>>;
  /** Outputs to return (all of the model's outputs when omitted). */
  readonly outputs?: readonly string[];
  /** Request id (`TRITONSERVER_InferenceRequestSetId`), echoed by responses. */
  readonly id?: string;
  /** With `false`, a response carrying an error is yielded with its `error` set instead of thrown. */
  readonly raiseOnError?: boolean;
}

/** What the server gives `infer()`. */
export interface InferTarget {
  readonly table: InflightTable;
  readonly server: Ptr;
  readonly allocator: Ptr;
  readonly requests: Set<InflightRequest>;
  readonly model: string;
  readonly version: number;
}

const out = new BigUint64Array(1);

/**
 * Builds the native request, submits it with `TRITONSERVER_ServerInferAsync` and returns the
 * async generator of its responses. On any failure before Triton accepts the request the request
 * is deleted and the error thrown.
 * @throws {TritonError} for bad input (INVALID_ARG), an unknown model (NOT_FOUND), etc.
 */
export function submit(target: InferTarget, req: InferRequest): AsyncGenerator<InferResponse> {
  const { table, server } = target;
  const { lib } = table;
  const { api, ffi } = lib;
  if (req === null || typeof req !== "object" || typeof req.inputs !== "object") {
    throw new TritonError("INVALID_ARG", "infer() needs { inputs: { name: tensor, ... } }");
  }
  const tensors: [string, Tensor][] = Object.entries(req.inputs).map(([name, value]) => {
    try {
      return [name, Tensor.from(value)];
    } catch (e) {
      if (e instanceof TritonError) throw new TritonError(e.code, `input '${name}': ${e.message}`);
      throw e;
    }
  });
  check(
    lib,
    api.TRITONSERVER_InferenceRequestNew(out, server, target.model, BigInt(target.version)),
  );
  const request = ffi.fromAddress(out[0]);
  const id = table.reserveId();
  const keep: unknown[] = [];
  try {
    if (req.id !== undefined) check(lib, api.TRITONSERVER_InferenceRequestSetId(request, req.id));
    for (const [name, tensor] of tensors) {
      const shape = BigInt64Array.from(tensor.shape, (d) => BigInt(d));
      check(
        lib,
        api.TRITONSERVER_InferenceRequestAddInput(
          request,
          name,
          DATA_TYPES[tensor.dtype].code,
          shape,
          BigInt(shape.length),
        ),
      );
      const bytes = tensor.toBytes();
      keep.push(bytes);
      if (bytes.byteLength > 0) {
        check(
          lib,
          api.TRITONSERVER_InferenceRequestAppendInputData(
            request,
            name,
            ffi.addressOf(bytes),
            BigInt(bytes.byteLength),
            MemoryType.CPU,
            0n,
          ),
        );
      }
    }
    for (const name of req.outputs ?? []) {
      check(lib, api.TRITONSERVER_InferenceRequestAddRequestedOutput(request, name));
    }
    const userp = ffi.fromAddress(id);
    check(
      lib,
      api.TRITONSERVER_InferenceRequestSetReleaseCallback(
        request,
        table.callbacks.requestRelease,
        userp,
      ),
    );
    check(
      lib,
      api.TRITONSERVER_InferenceRequestSetResponseCallback(
        request,
        target.allocator,
        ffi.NULL,
        table.callbacks.responseComplete,
        userp,
      ),
    );
    // Track before submitting: a completion can be drained only on a later macrotask, but the
    // state must exist by then.
    const state = new InflightRequest(id, request, keep, target.requests);
    table.add(state);
    const err = api.TRITONSERVER_ServerInferAsync(server, request, ffi.NULL);
    if (!ffi.isNull(err)) {
      table.abort(state);
      check(lib, err);
    }
    return stream(table, state, req.raiseOnError ?? true);
  } catch (e) {
    api.TRITONSERVER_InferenceRequestDelete(request);
    throw e;
  }
}

async function* stream(
  table: InflightTable,
  state: InflightRequest,
  raiseOnError: boolean,
): AsyncGenerator<InferResponse> {
  try {
    while (true) {
      const item = await state.next();
      if ("end" in item) {
        if (item.error) throw item.error;
        return;
      }
      if (item.error && raiseOnError) throw item.error;
      yield item;
    }
  } finally {
    if (!state.final) table.cancel(state);
  }
}
