/**
 * A server shared with worker threads (`Server.share()`, `Server.attach()`): workers infer on the
 * owner's Triton, the owner's stop() ends their streams UNAVAILABLE and waits for them, attaching
 * after the stop fails. On Deno and Bun the workers are `Worker`s, on Node `node:worker_threads`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { Server, TritonError } from "../mod.ts";
import { test } from "./support/test.ts";
import { runScript, startServer } from "./support/env.ts";
import { EXECUTE_GRACE_MS } from "../src/server_children.ts";
import { nativeCallbacks, startWorker, type TestWorker } from "./support/workers.ts";

const native = await nativeCallbacks();
const needsNative = native ? false : "attaching needs the native callbacks";

function expected(values: number[]): [number, number][] {
  return values.map((v, i) => [v, i]);
}

async function withWorkers<T>(n: number, body: (ws: TestWorker[]) => Promise<T>): Promise<T> {
  const ws = await Promise.all(Array.from({ length: n }, () => startWorker()));
  try {
    return await body(ws);
  } finally {
    await Promise.all(ws.map((w) => w.terminate()));
  }
}

test("a worker attaches and infers add_sub, identity_int32 and a repeat_int32 stream, byte-exact", {
  skip: needsNative,
}, async () => {
  const server = await startServer();
  try {
    const handle = server.share();
    assert.equal(handle.kind, "tritonffi.SharedServer");
    assert.equal(server.attachments, 0);
    await withWorkers(1, async ([w]) => {
      w.post({ handle, task: "infer", n: 40 });
      const attached = await w.next("attached");
      assert.equal(attached.attached, true);
      assert.equal((attached.info as { callbacks: string }).callbacks, "native");
      const r = await w.next("result");
      const in0 = Array.from(new Float32Array(16).map((_, i) => i * 0.5));
      const in1 = Array.from(new Float32Array(16).map((_, i) => 100 - i));
      assert.deepEqual(r.sum, in0.map((a, i) => Math.fround(a + in1[i])));
      assert.deepEqual(r.diff, in0.map((a, i) => Math.fround(a - in1[i])));
      assert.equal(r.identityEqual, true);
      assert.deepEqual(r.pairs, expected(Array.from({ length: 40 }, (_, i) => i * 3 - 10)));
      assert.equal(r.cancelCode, "CANCELLED");
      assert.equal(r.metadata, "add_sub");
      assert.equal(r.serverName, server.metadata().name);
      assert.equal(r.statistics, 1);
      assert.equal(r.ready, true);
      const done = await w.next("done");
      assert.equal(done.inflight, 0);
    });
    assert.equal(server.attachments, 0);
    // The owner still serves after its worker detached.
    using own = await server.model("add_sub").inferOne({
      inputs: { INPUT0: new Float32Array(16).fill(1), INPUT1: new Float32Array(16).fill(2) },
    });
    assert.equal((own.outputs.OUTPUT0.data as Float32Array)[0], 3);
  } finally {
    await server.stop();
  }
});

test("several workers infer at once on one server", { skip: needsNative }, async () => {
  const server = await startServer();
  try {
    const handle = server.share();
    await withWorkers(3, async (ws) => {
      for (const w of ws) w.post({ handle, task: "infer", n: 200 });
      const results = await Promise.all(ws.map((w) => w.next("result")));
      const want = expected(Array.from({ length: 200 }, (_, i) => i * 3 - 10));
      for (const r of results) {
        assert.deepEqual(r.pairs, want);
        assert.equal(r.identityEqual, true);
      }
      await Promise.all(ws.map((w) => w.next("done")));
    });
    assert.equal(server.attachments, 0);
  } finally {
    await server.stop();
  }
});

test("the owner's stop() ends a worker's stream UNAVAILABLE and resolves", {
  skip: needsNative,
}, async () => {
  const server = await startServer();
  const handle = server.share();
  await withWorkers(2, async (ws) => {
    // 2,000 responses 1 ms apart: the fake core ends the stream when cancelled, the real repeat
    // backend sends it to its end (about 2 s), which stop() waits for.
    for (const w of ws) w.post({ handle, task: "stream-until-stop", n: 2000 });
    await Promise.all(ws.map((w) => w.next("streaming")));
    assert.equal(server.attachments, 2);
    // It resolves: had a worker kept a use past the exit timeout, it would throw INTERNAL.
    await server.stop();
    for (const w of ws) {
      const ended = await w.next("stream-ended");
      assert.equal(ended.ok, true);
      assert.ok((ended.count as number) >= 3);
      assert.equal((ended.error as { code: string }).code, "UNAVAILABLE");
      const done = await w.next("done");
      // A call after the owner stopped: UNAVAILABLE, naming why.
      assert.equal((done.after as { code: string }).code, "UNAVAILABLE");
      assert.match((done.after as { message: string }).message, /owner stopped/);
    }
  });
  assert.equal(server.attachments, 0);
});

test("a model loaded or unloaded through any thread is so for every thread", {
  skip: needsNative,
}, async () => {
  const server = await startServer({ modelControlMode: "explicit", startupModels: [] });
  try {
    const handle = server.share();
    await withWorkers(1, async ([w]) => {
      assert.equal(server.modelReady("identity_fp32"), false);
      w.post({ handle, task: "load", model: "identity_fp32" });
      assert.equal((await w.next("done")).ready, true);
      assert.equal(server.modelReady("identity_fp32"), true); // loaded by the worker
      await server.unloadModel("identity_fp32", { waitUntilUnloaded: true });
      w.post({ handle, task: "ready", model: "identity_fp32" }); // a second attachment
      assert.equal((await w.next("done")).ready, false); // unloaded by the owner
    });
    assert.equal(server.attachments, 0);
  } finally {
    await server.stop();
  }
});

test("the owner's unloadModel() waits out the workers' last callbacks too (EXECUTE_GRACE_MS)", {
  skip: needsNative,
}, async () => {
  const server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["add_sub", "identity_int32", "repeat_int32"],
  });
  try {
    const handle = server.share();
    await withWorkers(1, async ([w]) => {
      w.post({ handle, task: "infer", n: 5 });
      await w.next("done");
    });
    // The owner itself had no callback: only the workers' make it wait before the unload.
    const t0 = Date.now();
    await server.unloadModel("add_sub", { waitUntilUnloaded: true });
    assert.ok(Date.now() - t0 >= EXECUTE_GRACE_MS - 5, `unloaded after ${Date.now() - t0} ms`);
    assert.equal(server.modelReady("add_sub"), false);
  } finally {
    await server.stop();
  }
});

test("attaching after the owner stopped fails UNAVAILABLE", { skip: needsNative }, async () => {
  const server = await startServer();
  const handle = server.share();
  await server.stop();
  await assert.rejects(Server.attach(handle), (e: unknown) => {
    assert.ok(e instanceof TritonError);
    assert.equal(e.code, "UNAVAILABLE");
    return true;
  });
  await withWorkers(1, async ([w]) => {
    w.post({ handle, task: "attach" });
    const m = await w.next("attach-failed");
    assert.equal((m.error as { code: string }).code, "UNAVAILABLE");
  });
});

test("Server.attach() refuses what share() did not make, INVALID_ARG", async () => {
  for (const bad of [undefined, 1, {}, { kind: "tritonffi.SharedServer" }]) {
    await assert.rejects(
      // deno-lint-ignore no-explicit-any
      Server.attach(bad as any),
      (e: unknown) => e instanceof TritonError && e.code === "INVALID_ARG",
    );
  }
});

test("Server.attach() on Bun needs allowBunWorkers; bad options are INVALID_ARG", async () => {
  const server = await startServer();
  try {
    const handle = server.share();
    const isBun = "Bun" in globalThis;
    for (const bad of [null, 1, [], { allowBunWorkers: "yes" }]) {
      await assert.rejects(
        // deno-lint-ignore no-explicit-any
        Server.attach(handle, bad as any),
        (e: unknown) => e instanceof TritonError && e.code === "INVALID_ARG",
      );
    }
    if (isBun) {
      await assert.rejects(Server.attach(handle, { allowBunWorkers: false }), (e: unknown) => {
        assert.ok(e instanceof TritonError);
        assert.equal(e.code, "UNSUPPORTED");
        assert.match(e.message, /allowBunWorkers: true.*TRITONFFI_ALLOW_BUN_WORKERS=1/);
        return true;
      });
    }
    assert.equal(server.attachments, 0);
  } finally {
    await server.stop();
  }
});

test("Server.attach() refuses the JS callbacks, UNSUPPORTED", {
  skip: native ? "the native callbacks run here" : false,
}, async () => {
  const server = await startServer();
  try {
    await withWorkers(1, async ([w]) => {
      w.post({ handle: server.share(), task: "attach" });
      const m = await w.next("attach-failed");
      assert.equal((m.error as { code: string }).code, "UNSUPPORTED");
    });
    assert.equal(server.attachments, 0);
  } finally {
    await server.stop();
  }
});

test("workers terminated mid-stream under load: no crash, their streams cancelled at stop()", {
  skip: needsNative,
}, async () => {
  // Each round terminates two workers streaming 60,000 responses, 1 ms apart, while the owner
  // infers. Terminated workers never give their uses back (see docs/api.md, "Workers"): the
  // owner's stop() cancels their requests, then leaves the server undeleted and says so.
  const r = await runScript("support/workers_terminate.ts", {
    TERMINATE_ROUNDS: "4",
    TERMINATE_STREAM: "60000",
  });
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  const last = JSON.parse(r.stdout.trim().split("\n").at(-1)!);
  assert.equal(last.rounds, 4);
  assert.ok(last.ownerResponses > 0);
  // Deno's terminate() returns before the worker stops running: one that still runs when the
  // stop begins ends its stream and gives its use back, as any worker does (seen under load).
  assert.match(last.stop, /^INTERNAL: attached workers still held [1-8] use\(s\)/);
  assert.match(last.stop, /not stopped or deleted/);
  assert.equal(last.attachments, 8);
  const [atStop, later] = last.liveResponses;
  if (atStop !== null && atStop !== undefined) {
    // The fake core: its streams were cancelled, no response comes any more.
    assert.equal(later, atStop, "Triton still sends responses to the terminated workers");
  }
});

test("examples/workers.ts: three workers infer on the owner's server, then it stops", {
  skip: needsNative,
}, async () => {
  const r = await runScript("../examples/workers.ts", { WORKERS: "3" });
  assert.equal(r.code, 0, `exit ${r.code}\n${r.stdout}\n${r.stderr}`);
  assert.deepEqual(r.stdout.trim().split("\n"), [
    "worker 0: add_sub 16 sums, first 3",
    "worker 1: add_sub 16 sums, first 4",
    "worker 2: add_sub 16 sums, first 5",
    "stopped",
  ]);
});
