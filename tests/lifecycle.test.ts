import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { collect, liveCounter, runScript, startServer } from "./support/env.ts";

test("server is live and ready after start, models report ready", async () => {
  const server = await startServer();
  try {
    assert.equal(server.live(), true);
    assert.equal(server.ready(), true);
    assert.equal(server.model("identity_int32").ready(), true);
    assert.equal(server.model("add_sub").ready(), true);
  } finally {
    await server.stop();
  }
});

test("start, infer, stop three times leaves no Triton object alive", async () => {
  const live = await liveCounter();
  const before = live?.("total"); // the shared server's objects, if it is running
  for (let round = 0; round < 3; round++) {
    const server = await startServer();
    const [r] = await collect(
      server.model("identity_int32").infer({
        inputs: { INPUT0: { dtype: "INT32", shape: [1, 3], data: new Int32Array([round, 2, 3]) } },
      }),
    );
    assert.equal((r.outputs.OUTPUT0.data as Int32Array)[0], round);
    await server.stop();
    if (live) assert.equal(live("total"), before, `live objects after round ${round}`);
  }
});

test("await using stops the server", async () => {
  const live = await liveCounter();
  const before = live?.("server");
  {
    await using server = await startServer();
    assert.equal(server.ready(), true);
    if (live) assert.equal(live("server"), before! + 1);
  }
  if (live) assert.equal(live("server"), before);
});

test("a response kept past stop() can still be disposed; its deleted server is not touched", async () => {
  // In a child process: the response is left alone on purpose, so the fake core's live counts
  // (process-wide) would show it to the other tests.
  const r = await runScript("support/kept_past_stop.ts", {});
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim().split("\n").at(-1)!), {
    value: 6,
    disposedBeforeStop: false,
    lazyAfterStop: "UNAVAILABLE",
    disposedAfter: true,
    readAfter: "UNAVAILABLE",
    misuse: 0,
  });
});

test("stop() and unloadModel() call Triton only once the last request's backend call has had time to return", async () => {
  const { loadTriton } = await import("../ffi/mod.ts");
  const { EXECUTE_GRACE_MS } = await import("../src/server_children.ts");
  const { ResponseFields } = await import("../ffi/response_fields.ts");
  const lib = await loadTriton();
  const api = lib.apiAsync as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const calls: Record<string, number> = {};
  const spied = ["TRITONSERVER_ServerStop", "TRITONSERVER_ServerUnloadModel"];
  const originals = spied.map((name) => api[name]);
  spied.forEach((name, i) => {
    api[name] = (...args: unknown[]) => {
      calls[name] = performance.now();
      return originals[i](...args);
    };
  });
  // Every response Triton delivers is read at once (both callback paths): when the last came.
  const recorded = ResponseFields.prototype.recorded;
  let lastResponse = 0;
  ResponseFields.prototype.recorded = function (response) {
    lastResponse = performance.now();
    return recorded.call(this, response);
  };
  try {
    const server = await startServer({
      modelControlMode: "explicit",
      startupModels: ["identity_int32"],
    });
    const model = server.model("identity_int32");
    const input = { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([1]) } } as const;
    (await model.inferOne({ inputs: input })).dispose();
    const beforeUnload = lastResponse;
    await server.unloadModel("identity_int32");
    await server.loadModel("identity_int32");
    (await model.inferOne({ inputs: input })).dispose();
    const beforeStop = lastResponse;
    await server.stop();
    assert.ok(calls.TRITONSERVER_ServerUnloadModel - beforeUnload >= EXECUTE_GRACE_MS - 1);
    assert.ok(calls.TRITONSERVER_ServerStop - beforeStop >= EXECUTE_GRACE_MS - 1);
  } finally {
    spied.forEach((name, i) => (api[name] = originals[i]));
    ResponseFields.prototype.recorded = recorded;
  }
});

test("stop() and unloadModel() call Triton only once a model load has had time to settle", async () => {
  // A load returns once each instance's backend thread ran its warm-up, and the thread is still
  // returning from it for a moment: tearing the instances down then can crash the real core (and
  // aborts the fake one). The spies time Triton's calls from the load's end.
  const { loadTriton } = await import("../ffi/mod.ts");
  const { EXECUTE_GRACE_MS } = await import("../src/server_children.ts");
  const lib = await loadTriton();
  const api = lib.apiAsync as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const called: Record<string, number> = {};
  const returned: Record<string, number> = {};
  const spied = [
    "TRITONSERVER_ServerNew",
    "TRITONSERVER_ServerLoadModelWithParameters",
    "TRITONSERVER_ServerStop",
    "TRITONSERVER_ServerUnloadModel",
  ];
  const originals = spied.map((name) => api[name]);
  spied.forEach((name, i) => {
    api[name] = async (...args: unknown[]) => {
      called[name] = performance.now();
      const result = await originals[i](...args);
      returned[name] = performance.now();
      return result;
    };
  });
  const waited = (from: string, to: string) => called[to] - returned[from];
  try {
    // stop() right after start(): the startup load ended inside TRITONSERVER_ServerNew.
    const first = await startServer({
      modelControlMode: "explicit",
      startupModels: ["identity_int32"],
    });
    await first.stop();
    const afterStart = waited("TRITONSERVER_ServerNew", "TRITONSERVER_ServerStop");
    assert.ok(afterStart >= EXECUTE_GRACE_MS - 1, `ServerStop ${afterStart} ms after ServerNew`);

    const server = await startServer({ modelControlMode: "explicit" });
    try {
      await new Promise((r) => setTimeout(r, EXECUTE_GRACE_MS));
      // unloadModel() right after loadModel().
      await server.loadModel("identity_int32");
      await server.unloadModel("identity_int32", { waitUntilUnloaded: true });
      const afterLoad = waited(
        "TRITONSERVER_ServerLoadModelWithParameters",
        "TRITONSERVER_ServerUnloadModel",
      );
      assert.ok(afterLoad >= EXECUTE_GRACE_MS - 1, `UnloadModel ${afterLoad} ms after the load`);
      assert.equal(server.modelReady("identity_int32"), false);

      // unloadModel() while loadModel() of the same model is still running waits for it first,
      // and the model ends unloaded.
      const loading = server.loadModel("identity_int32");
      await server.unloadModel("identity_int32", { waitUntilUnloaded: true });
      await loading;
      const afterRunning = waited(
        "TRITONSERVER_ServerLoadModelWithParameters",
        "TRITONSERVER_ServerUnloadModel",
      );
      assert.ok(
        afterRunning >= EXECUTE_GRACE_MS - 1,
        `UnloadModel ${afterRunning} ms after the load it was called during`,
      );
      assert.equal(server.modelReady("identity_int32"), false);

      // stop() right after loadModel().
      await server.loadModel("identity_int32");
    } finally {
      await server.stop();
    }
    const afterLastLoad = waited(
      "TRITONSERVER_ServerLoadModelWithParameters",
      "TRITONSERVER_ServerStop",
    );
    assert.ok(afterLastLoad >= EXECUTE_GRACE_MS - 1, `ServerStop ${afterLastLoad} ms after load`);
  } finally {
    spied.forEach((name, i) => (api[name] = originals[i]));
  }
});
