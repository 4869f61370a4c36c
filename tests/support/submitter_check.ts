/**
 * Run by request_submitter.test.ts in a child process, with `TRITONFFI_REQUEST_SUBMITTER` set by
 * the test: inferences with one input and two, of every size up to many rows, BYTES, a
 * zero-element input, concurrent requests and the errors a request can meet at each step of the
 * build, then whether the native submitter ran them and what was left live. Prints one JSON line.
 *
 * @module
 */
import process from "node:process";
import { TritonError } from "../../mod.ts";
import { loadTriton } from "../../ffi/mod.ts";
import { collect, idle, liveCounter, startServer } from "./env.ts";

const server = await startServer({
  modelControlMode: "explicit",
  startupModels: ["identity_int32", "identity_bytes"],
});
const lib = await loadTriton();
const live = await liveCounter();
const submitter = lib.binding.requestSubmitter;
const results: Record<string, unknown> = {};

/** The outputs of one inference as plain values, or the error's code and message. */
async function run(model: string, inputs: Record<string, unknown>) {
  try {
    const [r] = await collect(server.model(model).infer({ inputs } as never));
    return Object.fromEntries(
      Object.entries(r.outputs).map((
        [name, t],
      ) => [name, [t.shape, Array.from(t.data as ArrayLike<unknown>, text)]]),
    );
  } catch (e) {
    return e instanceof TritonError ? `${e.code}: ${e.message}` : `not a TritonError: ${e}`;
  }
}

const decoder = new TextDecoder();
/** A BYTES element as text, anything else as it is. */
const text = (v: unknown) => v instanceof Uint8Array ? decoder.decode(v) : v;

const int32 = (rows: number) => ({
  dtype: "INT32",
  shape: [rows, 16],
  data: Int32Array.from({ length: rows * 16 }, (_, i) => i * 7 - 50),
});
for (const rows of [1, 3, 8]) {
  results[`int32 [${rows},16]`] = await run("identity_int32", {
    INPUT0: int32(rows),
  });
}
results["zero elements"] = await run("identity_int32", {
  INPUT0: { dtype: "INT32", shape: [1, 0], data: new Int32Array(0) },
});
results.bytes = await run("identity_bytes", {
  INPUT0: { dtype: "BYTES", shape: [1, 3], data: ["a", "", "é€"] },
});
// Errors: an unknown model (RequestNew fails there or at submission), an unknown input, a
// wrong data type, two inputs to a one-input model (the request is made, then refused).
results["unknown model"] = await run("no_such_model", { INPUT0: int32(1) });
results["unknown input"] = await run("identity_int32", { NOPE: int32(1) });
results["wrong type"] = await run("identity_int32", {
  INPUT0: { dtype: "FP32", shape: [1, 2], data: new Float32Array(2) },
});
results["two inputs"] = await run("identity_int32", { INPUT0: int32(1), INPUT1: int32(1) });
try {
  await server.loadModel("add_sub");
  results.add_sub = await run("add_sub", {
    INPUT0: { dtype: "FP32", shape: [16], data: new Float32Array(16).fill(3) },
    INPUT1: { dtype: "FP32", shape: [16], data: Float32Array.from({ length: 16 }, (_, i) => i) },
  });
} catch {
  results.add_sub = "not loadable on this core";
}
// Concurrent requests, each seeing its own answer.
const sums = await Promise.all(Array.from({ length: 64 }, async (_, i) => {
  const [r] = await collect(
    server.model("identity_int32").infer({
      inputs: { INPUT0: { dtype: "INT32", shape: [1, 16], data: new Int32Array(16).fill(i) } },
    }),
  );
  return (r.outputs.OUTPUT0.data as Int32Array).reduce((a, b) => a + b, 0);
}));
results.concurrent = sums.every((s, i) => s === 16 * i);
// A request's release can come after its FINAL response (Triton releases it after sending):
// wait for both before counting what is live.
await idle(server);
const after = live && { request: live("request"), response: live("response") };
const submitted = submitter?.submitted ?? 0;
await server.stop();
console.log(JSON.stringify({
  results,
  submitted,
  noSubmitter: lib.binding.noRequestSubmitter ?? null,
  live: after ?? null,
}));
process.exit(0);
