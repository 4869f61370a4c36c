/**
 * The FFI layer alone: the C client's loop written against `lib.api` and the process-wide
 * callback table (native thunks and ring, or JS callbacks), with no `src/` API in between — no
 * async generator, no response or tensor objects. It shows what the hot path in `ffi/` costs, and
 * so how much of the public API's figures is the API's own work.
 *
 * Same scenarios as the C client: identity_int32 INT32 [1,16]; concurrency 1 latency and
 * concurrency 128 throughput. Each completion reads the output like the C client (error, output
 * count, output, one element) and deletes the response; releases delete the request.
 *
 * `latency_1x16_late10` is the concurrency-1 loop again with the next request issued only after
 * 10 µs of busy waiting, as if the JS between a completion and the next request took that long:
 * on a machine whose idle CPUs sleep, Triton's instance thread is asleep by then and
 * `TRITONSERVER_ServerInferAsync` pays for waking it, so the round trip jumps. It measures the
 * budget the public API's own JS has at concurrency 1.
 *
 * @module
 */
import {
  type CompletionHandler,
  type Ptr,
  responseOutput,
  Slot,
  type TritonLibrary,
} from "../ffi/mod.ts";
import type { InferTarget } from "../src/request.ts";
import type { Latency } from "./inference.ts";

/** Results keyed like the scenarios. */
export interface FloorResults {
  latency_1x16: Latency;
  latency_1x16_late10: Latency;
  throughput_c128_1x16: number;
}

/** Runs the two scenarios on the FFI layer. */
export async function floor(
  lib: TritonLibrary,
  target: InferTarget,
  ms: number,
): Promise<FloorResults> {
  const { api, ffi } = lib;
  const { server, allocator } = target;
  const callbacks = lib.binding.callbacks;
  const out = new BigUint64Array(new ArrayBuffer(8));
  const shape = new BigInt64Array(new ArrayBuffer(16)); // [1, 16], off the JS heap
  shape.set([1n, 16n]);
  const data = new Int32Array(new ArrayBuffer(64)); // off the moving JS heap: its address is kept
  const dataPtr = ffi.addressOf(data);
  const outs = lib.binding.outParams; // the out-parameters responses are read with
  const element = new Int32Array(new ArrayBuffer(4));
  const workers: { t0: number; done: () => void }[] = [];
  const userps: Ptr[] = [];
  let sink = 0;

  let lateMs = 0;
  const issue = (w: number) => {
    if (lateMs > 0) {
      const until = performance.now() + lateMs;
      while (performance.now() < until);
    }
    workers[w].t0 = performance.now(); // the latency spans building the request, as in C
    api.TRITONSERVER_InferenceRequestNew(out, server, "identity_int32", -1n);
    const req = ffi.fromAddress(out[0]);
    api.TRITONSERVER_InferenceRequestAddInput(req, "INPUT0", 8, shape, 2n);
    api.TRITONSERVER_InferenceRequestAppendInputData(req, "INPUT0", dataPtr, 64n, 0, 0n);
    api.TRITONSERVER_InferenceRequestSetReleaseCallback(req, callbacks.requestRelease, userps[w]);
    api.TRITONSERVER_InferenceRequestSetResponseCallback(
      req,
      allocator,
      ffi.NULL,
      callbacks.responseComplete,
      userps[w],
    );
    api.TRITONSERVER_ServerInferAsync(server, req, ffi.NULL);
  };

  const handler: CompletionHandler = (kind, object, flags, userp) => {
    if (kind === 2) {
      api.TRITONSERVER_InferenceRequestDelete(object);
      return;
    }
    if (!ffi.isNull(object)) {
      api.TRITONSERVER_InferenceResponseError(object);
      api.TRITONSERVER_InferenceResponseOutputCount(object, outs.slots[Slot.COUNT]);
      const count = outs.u32(Slot.COUNT);
      for (let i = 0; i < count; i++) {
        responseOutput(lib, outs, object, i);
        ffi.copyInto(outs.pointer(Slot.BASE), element);
        sink += element[0];
      }
      api.TRITONSERVER_InferenceResponseDelete(object);
    }
    if ((flags & 1) !== 0) workers[userp - FIRST_USERP].done();
  };

  const run = async (concurrency: number, duration: number, latencies?: number[]) => {
    const end = performance.now() + duration;
    let inferences = 0;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, (_, w) =>
        new Promise<void>((resolve) => {
          workers[w] = {
            t0: 0,
            done: () => {
              inferences++;
              const now = performance.now();
              latencies?.push(now - workers[w].t0);
              if (now < end) issue(w);
              else resolve();
            },
          };
          userps[w] = ffi.fromAddress(FIRST_USERP + w);
          issue(w);
        })),
    );
    return { inferences, seconds: (performance.now() - start) / 1000 };
  };

  const route = callbacks.setHandler(handler);
  lib.binding.keepalive.hold();
  try {
    await run(1, ms / 4);
    const lat: number[] = [];
    await run(1, ms, lat);
    lat.sort((a, b) => a - b);
    lateMs = 0.01;
    const late: number[] = [];
    await run(1, ms / 2, late);
    late.sort((a, b) => a - b);
    lateMs = 0;
    await run(128, ms / 4);
    const { inferences, seconds } = await run(128, ms);
    // Let the last releases arrive before handing completions back to the binding.
    await new Promise((r) => setTimeout(r, 50));
    if (sink === 0.5) console.log(sink);
    return {
      latency_1x16: {
        p50: lat[lat.length >> 1] * 1000,
        p99: lat[Math.floor((lat.length * 99) / 100)] * 1000,
        count: lat.length,
      },
      latency_1x16_late10: {
        p50: late[late.length >> 1] * 1000,
        p99: late[Math.floor((late.length * 99) / 100)] * 1000,
        count: late.length,
      },
      throughput_c128_1x16: inferences / seconds,
    };
  } finally {
    lib.binding.keepalive.release();
    callbacks.setHandler(route);
  }
}

/** userp of worker 0 (ids the binding's router never hands out this high). */
const FIRST_USERP = 0x7fff0000;
