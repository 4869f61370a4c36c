/**
 * Behaviours of the real core that the fake core imitates, checked at the C API: these run
 * against whichever core `TRITONSERVER_LIB` names (on a real one they confirm what the fake
 * imitates). Without `TRITONSERVER_LIB` they use the fake core built by
 * `node tests/fake_core/build.mjs`.
 *
 * `deno test -A tests/fake_core_behaviour.test.ts`, `bun test tests/fake_core_behaviour.test.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import process from "node:process";
import { test } from "./support/test.ts";
import { fileURLToPath } from "node:url";
import type { InferResponse, Server } from "../mod.ts";
import { errorFromPtr, TritonError } from "../src/errors.ts";
import { EXECUTE_GRACE_MS } from "../src/server_children.ts";
import { deferredDeletes, startServer } from "./support/env.ts";

// Read when the first server starts.
const fakeCore = fileURLToPath(new URL("../.build/fake_core/libtritonserver.so", import.meta.url));
if (!process.env.TRITONSERVER_LIB && existsSync(fakeCore)) {
  process.env.TRITONSERVER_LIB = fakeCore;
}

/** Runs identity_int32 once and keeps its response: the reader never moves past it, so the
 * binding keeps Triton's response (a reader that moves on lets the binding release it). */
async function keepOneResponse(server: Server): Promise<InferResponse> {
  const stream = server.model("identity_int32").infer({
    inputs: { INPUT0: { dtype: "INT32", shape: [1, 2], data: new Int32Array([5, 6]) } },
  });
  const { value: r } = await stream.next();
  assert.ok(r !== undefined);
  assert.deepEqual(Array.from(r.outputs.OUTPUT0.data as Int32Array), [5, 6]);
  assert.equal(r.disposed, false, "Triton's response is still held");
  return r;
}

/** Calls `TRITONSERVER_ServerStop` directly; returns its error (or undefined) and the time taken.
 * It first waits as `stop()` does (`EXECUTE_GRACE_MS`): the model's backend threads may still be
 * returning from their warm-up or from the last execute, and tearing the model down then can crash
 * the real core (the fake core aborts when a stop comes that soon after a load). */
async function serverStop(server: Server): Promise<{ error?: TritonError; ms: number }> {
  const { lib, server: ptr } = server.native();
  await new Promise((r) => setTimeout(r, EXECUTE_GRACE_MS));
  const start = Date.now();
  const err = await lib.apiAsync.TRITONSERVER_ServerStop(ptr);
  const ms = Date.now() - start;
  return { error: lib.ffi.isNull(err) ? undefined : errorFromPtr(lib, err, true), ms };
}

/** A server with identity_int32 alone (quick to unload on a real core too). */
function identityServer(exitTimeoutSecs: number): Promise<Server> {
  return startServer({
    modelControlMode: "explicit",
    startupModels: ["identity_int32"],
    exitTimeoutSecs,
  });
}

test("a live response holds its model: ServerStop waits the exit timeout, then fails", async () => {
  const server = await identityServer(1);
  const response = await keepOneResponse(server);
  try {
    const { error, ms } = await serverStop(server);
    assert.ok(ms >= 900, `ServerStop returned after ${ms} ms, before the 1 s exit timeout`);
    assert.ok(error instanceof TritonError, "ServerStop fails after the exit timeout");
    assert.equal(error.code, "INTERNAL");
    assert.match(error.message, /Exit timeout expired/);
    // The model is still alive: the response still reads it and its outputs.
    assert.equal(response.model.name, "identity_int32");
    assert.deepEqual(Array.from(response.outputs.OUTPUT0.data as Int32Array), [5, 6]);
  } finally {
    response.dispose(); // the model now unloads on a thread of Triton's
    await deferredDeletes();
    // A second ServerStop would return at once and ServerDelete free the server under that
    // unload (the real core crashed so; the fake core aborts): stop() leaves it undeleted.
    await assert.rejects(server.stop(), stoppedOutside);
  }
});

/** What `stop()` throws for a server stopped behind its back: INTERNAL, and not deleted. */
function stoppedOutside(e: unknown): boolean {
  return e instanceof TritonError && e.code === "INTERNAL" &&
    /stopped outside this Server .* not\s+deleted/.test(e.message);
}

test("with every response deleted, ServerStop unloads the model and succeeds", async () => {
  const server = await identityServer(1); // the same exit timeout as above
  const response = await keepOneResponse(server);
  response.dispose();
  await deferredDeletes(); // the binding deletes disposed responses on a later macrotask
  try {
    const { error, ms } = await serverStop(server);
    assert.equal(error, undefined, `ServerStop failed after ${ms} ms: ${error?.message}`);
  } finally {
    await assert.rejects(server.stop(), stoppedOutside); // it cannot tell this stop succeeded
  }
});

/** `TRITONSERVER_ServerModelIsReady` called directly: its error (thrown) or the flag. */
function modelIsReady(server: Server, name: string, version = -1): boolean {
  const { lib, server: ptr } = server.native();
  const flag = new Uint8Array([7]);
  const err = lib.api.TRITONSERVER_ServerModelIsReady(ptr, name, BigInt(version), flag);
  if (!lib.ffi.isNull(err)) throw errorFromPtr(lib, err, true);
  return flag[0] !== 0;
}

test("ServerModelIsReady after an unload returns false, not an error", async () => {
  const server = await startServer({ modelControlMode: "explicit" });
  try {
    assert.equal(modelIsReady(server, "identity_int32"), false, "never loaded");
    await server.loadModel("identity_int32");
    assert.equal(modelIsReady(server, "identity_int32"), true);
    assert.equal(modelIsReady(server, "identity_int32", 1), true);
    await server.unloadModel("identity_int32");
    const deadline = Date.now() + 10_000;
    while (server.models().find((m) => m.name === "identity_int32")?.state !== "UNAVAILABLE") {
      assert.ok(Date.now() < deadline, "the unload did not finish");
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(modelIsReady(server, "identity_int32"), false, "latest version, unloaded");
    assert.equal(modelIsReady(server, "identity_int32", 1), false, "version 1, unloaded");
    assert.equal(modelIsReady(server, "no_such_model"), false, "unknown model");
  } finally {
    await server.stop();
  }
});

test("a response held past unloadModel keeps its model UNLOADING until it is deleted", async () => {
  const server = await identityServer(5);
  try {
    const response = await keepOneResponse(server);
    await server.unloadModel("identity_int32");
    const state = () => server.models().find((m) => m.name === "identity_int32")?.state;
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(state(), "UNLOADING", "the held response keeps the model");
    response.dispose();
    const deadline = Date.now() + 5000;
    while (state() !== "UNAVAILABLE") {
      assert.ok(Date.now() < deadline, `still ${state()} 5 s after the response was deleted`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    await server.stop();
  }
});
