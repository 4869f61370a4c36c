/**
 * Run by memory.test.ts in a child process with TRITONFFI_CUDART=none: what outputMemory does
 * when no CUDA runtime can be loaded. Prints one JSON line.
 *
 * @module
 */
import process from "node:process";
import { TritonError } from "../../mod.ts";
import { collect, startServer } from "./env.ts";

const server = await startServer();
const result: Record<string, string> = {};
const inputs = { INPUT0: { dtype: "INT32" as const, shape: [1, 2], data: new Int32Array([5, 6]) } };
for (const outputMemory of ["gpu", "cpu_pinned"] as const) {
  try {
    server.model("identity_int32").infer({ inputs, outputMemory });
    result[outputMemory] = "accepted";
  } catch (e) {
    result[outputMemory] = e instanceof TritonError ? `${e.code}: ${e.message}` : String(e);
  }
  const [r] = await collect(
    server.model("identity_int32").infer({ inputs, outputMemory, allowMemoryFallback: true }),
  );
  const out = r.outputs.OUTPUT0;
  result[`${outputMemory}+fallback`] = `${out.memoryType} ${Array.from(out.data as Int32Array)}`;
}
const [auto] = await collect(
  server.model("identity_int32").infer({ inputs, outputMemory: "auto" }),
);
result.auto = auto.outputs.OUTPUT0.memoryType;
await server.stop();
console.log(JSON.stringify(result));
process.exit(0);
