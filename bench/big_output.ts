/**
 * A 64 MiB FP32 output (identity_fp32, INPUT0 [1, 16 Mi]) read zero-copy versus copied: the
 * view is what `readResponse` builds for an output (`ffi.view` + a Float32Array over it), the copy
 * is `tensor.copy()`. The C client times libc `memcpy` of the same buffer. Median µs (mitata).
 *
 * @module
 */
import { measure } from "mitata";
import type { Server } from "../mod.ts";
import type { TritonLibrary } from "../ffi/mod.ts";

/** µs per read. */
export interface BigOutputResults {
  bytes: number;
  view_us: number;
  copy_us: number;
}

/** Elements of the output: 16 Mi FP32 = 64 MiB. */
export const BIG_ELEMENTS = 16 * 1024 * 1024;

/** Runs one inference and times reading its output both ways. */
export async function bigOutput(server: Server, lib: TritonLibrary): Promise<BigOutputResults> {
  const input = new Float32Array(BIG_ELEMENTS);
  const stream = server.model("identity_fp32").infer({
    inputs: { INPUT0: { dtype: "FP32", shape: [1, BIG_ELEMENTS], data: input } },
  });
  const { value: response } = await stream.next();
  if (!response) throw new Error("identity_fp32 gave no response");
  try {
    const tensor = response.outputs.OUTPUT0;
    const data = tensor.data as Float32Array;
    const base = lib.ffi.addressOf(data);
    let sink = 0;
    const view = await measure(() => {
      const a = new Float32Array(lib.ffi.view(base, data.byteLength));
      sink += a[a.length - 1];
    }, { min_cpu_time: 100e6 });
    const copy = await measure(() => {
      const c = tensor.copy().data as Float32Array;
      sink += c[c.length - 1];
    }, { min_cpu_time: 500e6, max_samples: 20 });
    if (sink === 0.5) console.log(sink);
    return { bytes: data.byteLength, view_us: view.p50 / 1000, copy_us: copy.p50 / 1000 };
  } finally {
    await stream.return(undefined);
  }
}
