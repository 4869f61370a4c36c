import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { collect, sharedServer, stopShared } from "./support/env.ts";

after(stopShared);

test("add_sub: OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1", async () => {
  const server = await sharedServer();
  const a = Float32Array.from({ length: 16 }, (_, i) => i);
  const b = Float32Array.from({ length: 16 }, (_, i) => 0.5 * i + 1);
  const [response, ...rest] = await collect(
    server.model("add_sub").infer({ inputs: { INPUT0: a, INPUT1: b }, id: "req-42" }),
  );
  assert.equal(rest.length, 0);
  assert.equal(response.id, "req-42");
  assert.equal(response.error, undefined);
  assert.deepEqual(Object.keys(response.outputs).sort(), ["OUTPUT0", "OUTPUT1"]);
  const sum = response.outputs.OUTPUT0;
  const diff = response.outputs.OUTPUT1;
  assert.equal(sum.dtype, "FP32");
  assert.deepEqual(sum.shape, [16]);
  assert.deepEqual(Array.from(sum.data as Float32Array), Array.from(a, (x, i) => x + b[i]));
  assert.deepEqual(Array.from(diff.data as Float32Array), Array.from(a, (x, i) => x - b[i]));
});

test("add_sub: requested outputs limit what comes back", async () => {
  const server = await sharedServer();
  const a = new Float32Array(16).fill(2);
  const b = new Float32Array(16).fill(3);
  const [response] = await collect(
    server.model("add_sub").infer({ inputs: { INPUT0: a, INPUT1: b }, outputs: ["OUTPUT1"] }),
  );
  assert.deepEqual(Object.keys(response.outputs), ["OUTPUT1"]);
  assert.deepEqual(
    Array.from(response.outputs.OUTPUT1.data as Float32Array),
    new Array(16).fill(-1),
  );
});

test("add_sub: 64 concurrent requests each get their own answer", async () => {
  const server = await sharedServer();
  const runs = Array.from({ length: 64 }, async (_, k) => {
    const a = new Float32Array(16).fill(k);
    const b = new Float32Array(16).fill(1);
    const [r] = await collect(server.model("add_sub").infer({ inputs: { INPUT0: a, INPUT1: b } }));
    return (r.outputs.OUTPUT0.data as Float32Array)[0];
  });
  assert.deepEqual(await Promise.all(runs), Array.from({ length: 64 }, (_, k) => k + 1));
});
