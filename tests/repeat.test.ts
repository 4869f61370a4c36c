import assert from "node:assert/strict";
import { after } from "node:test";
import { test } from "./support/test.ts";
import { collect, idle, sharedServer, stopShared } from "./support/env.ts";

after(stopShared);

function repeatInputs(values: number[], delayMs = 0) {
  return {
    IN: new Int32Array(values),
    DELAY: new Uint32Array(values.length).fill(delayMs),
    WAIT: new Uint32Array([0]),
  };
}

test("repeat_int32 streams one response per element, in order, then ends", async () => {
  const server = await sharedServer();
  const values = [7, -3, 42, 0, 1000];
  const responses = await collect(
    server.model("repeat_int32").infer({ inputs: repeatInputs(values, 1) }),
  );
  assert.equal(responses.length, values.length);
  responses.forEach((r, i) => {
    assert.equal(r.error, undefined);
    assert.deepEqual(Array.from(r.outputs.OUT.data as Int32Array), [values[i]]);
    assert.deepEqual(Array.from(r.outputs.IDX.data as Uint32Array), [i]);
    assert.deepEqual(r.outputs.OUT.shape, [1]);
  });
  // The repeat backend sends FINAL alone, after the last response.
  assert.ok(responses.every((r) => !r.final));
});

test("repeat_int32 with an empty IN ends the stream with no response", async () => {
  const server = await sharedServer();
  const responses = await collect(server.model("repeat_int32").infer({ inputs: repeatInputs([]) }));
  assert.equal(responses.length, 0);
});

test("breaking out of a repeat_int32 stream early cancels it and frees the request", async () => {
  const server = await sharedServer();
  const values = Array.from({ length: 50 }, (_, i) => i);
  let seen = 0;
  for await (const r of server.model("repeat_int32").infer({ inputs: repeatInputs(values, 2) })) {
    assert.deepEqual(Array.from(r.outputs.IDX.data as Uint32Array), [seen]);
    if (++seen === 3) break;
  }
  assert.equal(seen, 3);
  await idle(server, 5000); // throws while requests are still in flight
});
