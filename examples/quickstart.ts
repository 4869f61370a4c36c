/**
 * Quickstart: start an in-process Triton server on the test model repository, run add_sub, and
 * stream repeat_int32. Run it with `npm run demo` (which finds a core for you), or directly:
 * `deno run --allow-ffi --allow-env --allow-read --allow-write examples/quickstart.ts`,
 * `bun examples/quickstart.ts`, `node examples/quickstart.ts` (Node 22.18+).
 *
 * @module
 */
import { Server } from "../mod.ts";
// The models' inputs and outputs, typed: `npx tritonffi types tests/models > examples/models.d.ts`.
import type { Models } from "./models.d.ts";

const repository = decodeURIComponent(new URL("../tests/models", import.meta.url).pathname);

await using server = await new Server<Models>({
  modelRepository: repository,
  log: { info: false, warn: false },
}).start();
const { name, version } = server.metadata();
console.log(`${name} ${version}: server live=${server.live()} ready=${server.ready()}`);

const a = Float32Array.from({ length: 16 }, (_, i) => i);
const b = Float32Array.from({ length: 16 }, () => 1);
// INPUT0 and INPUT1 must be Float32Arrays (add_sub's inputs are FP32): the compiler checks it.
for await (const response of server.model("add_sub").infer({ inputs: { INPUT0: a, INPUT1: b } })) {
  console.log("add_sub OUTPUT0 (INPUT0 + INPUT1):", Array.from(response.output("OUTPUT0").data));
  console.log("add_sub OUTPUT1 (INPUT0 - INPUT1):", Array.from(response.output("OUTPUT1").data));
}

// repeat_int32 is decoupled: a response per element of IN, read with infer() (the compiler
// refuses inferOne() on it).
const stream = server.model("repeat_int32").infer({
  inputs: {
    IN: new Int32Array([10, 20, 30]),
    DELAY: new Uint32Array([5, 5, 5]),
    WAIT: new Uint32Array([0]),
  },
});
for await (const response of stream) {
  const out = response.output("OUT").data[0];
  const idx = response.output("IDX").data[0];
  console.log(`repeat_int32 response ${idx}: OUT=${out}`);
}
console.log("done");
