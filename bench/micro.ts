/**
 * Raw FFI cost of the hot calls, made the way the binding makes them (`lib.api`, strings encoded
 * per call, BigInt for 64-bit arguments, preallocated out-parameters), measured with mitata: the
 * median ns per call. The C reference client measures the same pairs (bench/native/client.c).
 *
 * @module
 */
import { measure } from "mitata";
import {
  type CompletionHandler,
  type Ptr,
  responseOutput,
  type TritonLibrary,
} from "../ffi/mod.ts";
import type { InferTarget } from "../src/request.ts";

/** Median ns per call of each measured pair. */
export interface MicroResults {
  requestNewDelete: number;
  addInput: number;
  appendInputData: number;
  responseOutput: number;
  inferAsync: number;
}

const opts = { min_cpu_time: 300e6 };

/** A userp no request uses: the binding's router deletes whatever arrives for it. */
const STRAY = 0x7ffffff0;

/** Runs the micro benchmarks against a running server's `target`. */
export async function micro(lib: TritonLibrary, target: InferTarget): Promise<MicroResults> {
  const { api, ffi } = lib;
  const { server, allocator } = target;
  const callbacks = lib.binding.callbacks;
  const out = new BigUint64Array(new ArrayBuffer(8));
  const shape = new BigInt64Array(new ArrayBuffer(16)); // [1, 16], off the JS heap
  shape.set([1n, 16n]);
  const data = new Int32Array(new ArrayBuffer(64)); // off the moving JS heap: its address is kept
  const dataPtr = ffi.addressOf(data);
  const newRequest = (): Ptr => {
    check(api.TRITONSERVER_InferenceRequestNew(out, server, "identity_int32", -1n));
    return ffi.fromAddress(out[0]);
  };
  const check = (err: Ptr) => {
    if (!ffi.isNull(err)) throw new Error(api.TRITONSERVER_ErrorMessage(err));
  };

  const requestNewDelete = await measure(() => {
    check(api.TRITONSERVER_InferenceRequestNew(out, server, "identity_int32", -1n));
    check(api.TRITONSERVER_InferenceRequestDelete(ffi.fromAddress(out[0])));
  }, opts);

  let req = newRequest();
  const addInput = await measure(() => {
    check(api.TRITONSERVER_InferenceRequestAddInput(req, "INPUT0", 8, shape, 2n));
    check(api.TRITONSERVER_InferenceRequestRemoveInput(req, "INPUT0"));
  }, opts);
  check(api.TRITONSERVER_InferenceRequestAddInput(req, "INPUT0", 8, shape, 2n));
  const appendInputData = await measure(() => {
    check(api.TRITONSERVER_InferenceRequestAppendInputData(req, "INPUT0", dataPtr, 64n, 0, 0n));
    check(api.TRITONSERVER_InferenceRequestRemoveAllInputData(req, "INPUT0"));
  }, opts);
  check(api.TRITONSERVER_InferenceRequestDelete(req));

  // InferAsync: batches of 64 prepared requests, only the calls timed. Completions are counted
  // by a handler of our own, then handed back to the binding's router (which deletes them).
  let finals = 0;
  let held: Ptr | undefined;
  const route = callbacks.setHandler(() => {});
  const count: CompletionHandler = (kind, object, flags, userp) => {
    if (kind === 1 && (flags & 1) !== 0) finals++;
    if (kind === 1 && held === undefined && !ffi.isNull(object)) held = object;
    else route(kind, object, flags, userp);
  };
  callbacks.setHandler(count);
  lib.binding.keepalive.hold();
  const perCall: number[] = [];
  const userp = ffi.fromAddress(STRAY);
  try {
    for (let b = 0; b < 16; b++) {
      const batch: Ptr[] = [];
      for (let i = 0; i < 64; i++) {
        req = newRequest();
        check(api.TRITONSERVER_InferenceRequestAddInput(req, "INPUT0", 8, shape, 2n));
        check(
          api.TRITONSERVER_InferenceRequestAppendInputData(req, "INPUT0", dataPtr, 64n, 0, 0n),
        );
        check(
          api.TRITONSERVER_InferenceRequestSetReleaseCallback(req, callbacks.requestRelease, userp),
        );
        check(
          api.TRITONSERVER_InferenceRequestSetResponseCallback(
            req,
            allocator,
            ffi.NULL,
            callbacks.responseComplete,
            userp,
          ),
        );
        batch.push(req);
      }
      finals = 0;
      const t0 = performance.now();
      for (const r of batch) check(api.TRITONSERVER_ServerInferAsync(server, r, ffi.NULL));
      perCall.push(((performance.now() - t0) * 1e6) / 64);
      while (finals < 64) await new Promise((r) => setTimeout(r, 1));
    }
  } finally {
    lib.binding.keepalive.release();
    callbacks.setHandler(route);
  }
  perCall.sort((a, b) => a - b);

  // ResponseOutput on one held response, called as ffi/response_fields.ts calls it.
  const response = held!;
  const outs = lib.binding.outParams; // the out-parameters responses are read with
  const outputCall = await measure(() => {
    check(responseOutput(lib, outs, response, 0));
  }, opts);
  api.TRITONSERVER_InferenceResponseDelete(response);

  return {
    requestNewDelete: requestNewDelete.p50,
    addInput: addInput.p50,
    appendInputData: appendInputData.p50,
    responseOutput: outputCall.p50,
    inferAsync: perCall[perCall.length >> 1],
  };
}
