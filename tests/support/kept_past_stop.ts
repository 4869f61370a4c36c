/**
 * Run by lifecycle.test.ts in a child process: a response its user kept (through a response
 * queue) past `server.stop()` is disposed afterwards. The binding must not call into the deleted
 * server; the response becomes unreadable. Prints one JSON line.
 *
 * @module
 */
import process from "node:process";
import { type InferResponse, TritonError } from "../../mod.ts";
import { fakeProbe, startServer } from "./env.ts";

// The kept response holds its model, so stop() waits the whole exit timeout (as on the real core):
// a short one, and identity_int32 alone, which a real core unloads within it (a model still
// unloading when the timeout expires is not safe to delete the server under).
const server = await startServer({
  modelControlMode: "explicit",
  startupModels: ["identity_int32"],
  exitTimeout: 1,
});
const kept: InferResponse[] = [];
let value = -1;
for await (
  const r of server.model("identity_int32").infer({
    inputs: { INPUT0: { dtype: "INT32", shape: [1, 2], data: new Int32Array([5, 6]) } },
    responseQueue: kept, // the queue's consumer owns the response: the stream leaves it alone
  })
) {
  value = (r.outputs.OUTPUT0.data as Int32Array)[1];
}
const [response] = kept;
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
