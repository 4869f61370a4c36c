/**
 * Run by thunks.test.ts in a child process (with TRITONFFI_POLL_US=0): with nothing else keeping
 * the event loop alive, the binding must keep the process alive while a request is in flight —
 * also after its completion consumer went idle while waiting (a request Triton refused took the
 * in-flight count back to 0) and busy again (a regression: the wait stayed unref'd). Prints "ok"
 * and exits 0, or exits early (the unsettled await) without printing it.
 *
 * @module
 */
import process from "node:process";
import { startServer } from "./env.ts";

const server = await startServer({
  modelControlMode: "explicit",
  startupModels: ["identity_int32"],
});
const inputs = { INPUT0: { dtype: "INT32" as const, shape: [1, 2], data: new Int32Array([1, 2]) } };
const refused = { INPUT0: { dtype: "FP32" as const, shape: [1, 2], data: new Float32Array(2) } };
for (let round = 0; round < 3; round++) {
  // Long enough for every completion to arrive and the consumer to go idle.
  await new Promise((resolve) => setTimeout(resolve, 100));
  try {
    server.model("identity_int32").infer({ inputs: refused }); // wrong data type: refused
  } catch {
    // expected
  }
  for await (const r of server.model("identity_int32").infer({ inputs })) void r;
}
await server.stop();
console.log("ok");
process.exit(0);
