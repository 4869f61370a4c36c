/**
 * The binding's native deletes (ffi/native/deletes.ts): a batch of at least OFFLOAD_MIN queued
 * responses and requests is deleted off the JS thread in one call and nothing of it is left
 * live; smaller batches are deleted on the JS thread; a stream read without disposing and many
 * concurrent inferences leave nothing live once the deletes drained; `stop()` right after a
 * burst leaves nothing live and does not wait for what it deleted; the JS callbacks keep every
 * delete on the JS thread; and the x86-64 comparator's bytes are what the GNU assembler makes of
 * tests/thunk_driver/x86_64_delete_each_reference.S.
 *
 * @module
 */
import assert from "node:assert/strict";
import { assembledReference, NO_ASSEMBLER } from "./support/assembled.ts";
import { test } from "./support/test.ts";
import { loadTriton } from "../ffi/mod.ts";
import { macrotask } from "../ffi/macrotask.ts";
import { NativeDeletes, OFFLOAD_MIN } from "../ffi/native/deletes.ts";
import { noNativePath } from "../ffi/native/platform.ts";
import { generateDeleteEachX8664 } from "../ffi/native/x86_64/delete_each.ts";
import { deferredDeletes, idle, liveCounter, sharedServer, startServer } from "./support/env.ts";

const live = await liveCounter();
const noFake = live ? undefined : "needs the fake core's live-object counts";

/** `n` requests made and never submitted (what Triton hands back on release). */
async function requests(n: number) {
  const shared = await sharedServer();
  // The tests count live requests: one an earlier test left in flight (its release still to come,
  // where files share the process) would be counted, then released, mid-test.
  await idle(shared);
  const { lib, server } = shared.native();
  const out = lib.binding.outParams;
  const made = [];
  for (let i = 0; i < n; i++) {
    const err = lib.api.TRITONSERVER_InferenceRequestNew(
      out.slots[0],
      server,
      "identity_int32",
      -1n,
    );
    assert.ok(lib.ffi.isNull(err));
    made.push(out.pointer(0));
  }
  return { lib, requests: made };
}

test("a batch of OFFLOAD_MIN or more leaves the JS thread, and all of it is deleted", {
  skip: noFake,
}, async () => {
  const { lib, requests: made } = await requests(OFFLOAD_MIN * 3);
  const deletes = lib.binding.nativeDeletes;
  const before = live!("request");
  const batches = deletes.batchesOffThread;
  for (const p of made) deletes.request(p);
  assert.equal(deletes.queued, made.length);
  assert.equal(live!("request"), before, "nothing is deleted before a later macrotask");
  await new Promise<void>((r) => macrotask(r)); // the batch goes out
  assert.equal(deletes.queued, 0, "the whole batch was taken at once");
  if (deletes.onJsThreadReason === undefined) {
    // Still on its thread, or already done: a small batch can finish before this line runs.
    assert.ok(deletes.inFlight || deletes.batchesOffThread > batches, "no batch went out");
  }
  await deletes.drain();
  assert.equal(deletes.queued, 0);
  assert.equal(deletes.inFlight, false);
  assert.equal(live!("request"), before - made.length);
  if (deletes.onJsThreadReason === undefined) {
    assert.ok(deletes.batchesOffThread > batches, "no batch left the JS thread");
  } else {
    assert.equal(deletes.batchesOffThread, batches, deletes.onJsThreadReason);
  }
});

test("a batch smaller than OFFLOAD_MIN is deleted on the JS thread", { skip: noFake }, async () => {
  const { lib, requests: made } = await requests(OFFLOAD_MIN - 1);
  const deletes = lib.binding.nativeDeletes;
  const before = live!("request");
  const batches = deletes.batchesOffThread;
  for (const p of made) deletes.request(p);
  await deferredDeletes();
  assert.equal(live!("request"), before - made.length);
  assert.equal(deletes.batchesOffThread, batches);
});

test("the JS callbacks keep deletes on the JS thread", async () => {
  const lib = await loadTriton();
  const deletes = new NativeDeletes(lib, noNativePath("TRITONFFI_CALLBACKS=js"));
  assert.equal(deletes.onJsThreadReason, "the JS callbacks");
  const mode = lib.binding.callbacks.mode;
  if (mode === "js") assert.equal(lib.binding.nativeDeletes.onJsThreadReason, "the JS callbacks");
});

test("a stream read without disposing and 256 concurrent inferences leave nothing live", {
  skip: noFake,
}, async () => {
  const server = await sharedServer();
  const before = { response: live!("response"), request: live!("request") };
  let n = 0;
  const stream = server.model("repeat_int32").infer({
    inputs: {
      IN: new Int32Array(2000).map((_, i) => i),
      DELAY: new Uint32Array(2000),
      WAIT: new Uint32Array(1),
    },
  });
  for await (const r of stream) {
    if (!r.final) assert.equal((r.outputs.OUT.data as Int32Array)[0], n++);
  }
  assert.equal(n, 2000);
  const outs = await Promise.all(
    Array.from({ length: 256 }, async (_, i) => {
      const r = await server.model("identity_int32").inferOne({
        inputs: { INPUT0: { dtype: "INT32", shape: [1, 16], data: new Int32Array(16).fill(i) } },
      });
      return (r.outputs.OUTPUT0.data as Int32Array)[15];
    }),
  );
  assert.deepEqual(outs, Array.from({ length: 256 }, (_, i) => i));
  // What is still held is what the test's own variables hold: let the collector take them.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    (globalThis as { gc?: () => void }).gc?.();
    await deferredDeletes();
    if (live!("request") === before.request && live!("response") <= before.response) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(live!("request"), before.request, "requests left live");
  assert.ok(live!("response") <= before.response + 1, "responses left live");
});

test("stop() right after a burst of deletes leaves nothing of its server live", {
  skip: noFake,
}, async () => {
  await sharedServer(); // started (and idle) before the counts are taken
  await deferredDeletes();
  const before = { response: live!("response"), request: live!("request") };
  const server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["identity_int32"],
  });
  const sums = await Promise.all(
    Array.from({ length: 300 }, async (_, i) => {
      const r = await server.model("identity_int32").inferOne({
        inputs: { INPUT0: { dtype: "INT32", shape: [1, 16], data: new Int32Array(16).fill(i) } },
      });
      return (r.outputs.OUTPUT0.data as Int32Array)[0];
    }),
  );
  assert.equal(sums[299], 299);
  await server.stop(); // the released requests are still queued or in flight here
  const { nativeDeletes } = (await loadTriton()).binding;
  assert.equal(nativeDeletes.queued, 0);
  assert.equal(nativeDeletes.inFlight, false);
  assert.equal(live!("request"), before.request);
  assert.equal(live!("response"), before.response);
});

test("x86-64 batch deleter: the generated bytes are what the GNU assembler makes of the reference", (t) => {
  const expected = assembledReference("x86_64_delete_each_reference");
  if (!expected) {
    t.skip(NO_ASSEMBLER);
    return;
  }
  assert.deepEqual(Array.from(generateDeleteEachX8664()), expected);
});
