/**
 * Run by lifecycle.test.ts in a child process: a response its user kept past `server.stop()`
 * is disposed afterwards. The binding must not call into the deleted
 * server; the response becomes unreadable. Prints one JSON line.
 *
 * @module
 */
import process from "node:process";
import { type InferResponse, TritonError } from "../../mod.ts";
import { fakeProbe, startServer } from "./env.ts";

// Triton's response is kept: the reader does not move past it (one that moves on lets the
// binding release it). stop() releases it first, so it does not make the stop wait.
const server = await startServer({
  modelControlMode: "explicit",
  startupModels: ["identity_int32"],
  exitTimeoutSecs: 1,
});
// 20,000 INT32 (80,000 bytes, past the copy limit): the output is a view of Triton's buffer.
const n = 20_000;
const stream = server.model("identity_int32").infer({
  inputs: { INPUT0: { dtype: "INT32", shape: [1, n], data: new Int32Array(n).fill(6) } },
});
const response: InferResponse = (await stream.next()).value!;
const value = (response.outputs.OUTPUT0.data as Int32Array)[n - 1];
const disposedBeforeStop = response.disposed;
await server.stop();
let lazyAfterStop = "readable";
try {
  void response.model; // never read before: reading it now would call into the deleted server
} catch (e) {
  lazyAfterStop = e instanceof TritonError ? e.code : String(e);
}
response.dispose();
let readAfter = "readable";
try {
  void response.outputs.OUTPUT0.data;
} catch (e) {
  readAfter = e instanceof TritonError ? e.code : String(e);
}
// The fake core counts calls into a deleted allocator (the real core would read freed memory).
const misuse = (await fakeProbe())?.misuse() ?? 0;
console.log(
  JSON.stringify({
    value,
    disposedBeforeStop,
    lazyAfterStop,
    disposedAfter: response.disposed,
    readAfter,
    misuse,
  }),
);
process.exit(0);
