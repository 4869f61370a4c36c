import assert from "node:assert/strict";
import { type TestContext } from "node:test";
import { test } from "./support/test.ts";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type ModelConfigOverride, type Server, TritonError } from "../mod.ts";
import { isTritonError } from "./support/assertions.ts";
import { collect, isFakeCore, liveCounter, startServer } from "./support/env.ts";
import { identityConfig, tempRepo } from "./support/temp_repo.ts";

/** Runs identity model `name` on `rows` rows of [1, 2, 3] and returns OUTPUT0's values. */
async function identity(server: Server, name: string, rows = 1): Promise<number[]> {
  const data = new Int32Array(rows * 3).map((_, i) => (i % 3) + 1);
  const [r] = await collect(
    server.model(name).infer({ inputs: { INPUT0: { dtype: "INT32", shape: [rows, 3], data } } }),
  );
  return Array.from(r.outputs.OUTPUT0.data as Int32Array);
}

/** Runs a 1-D identity model (max_batch_size 0) on [1, 2, 3]. */
async function identity1d(server: Server, name: string): Promise<number[]> {
  const [r] = await collect(
    server.model(name).infer({ inputs: { INPUT0: new Int32Array([1, 2, 3]) } }),
  );
  return Array.from(r.outputs.OUTPUT0.data as Int32Array);
}

/** Runs `step`; where the fake core fails it, marks test `t` skipped (the fake core lacks
 * `feature`) and resolves with undefined: the test then returns. */
async function unlessFakeCoreLacks<T>(
  t: TestContext,
  feature: string,
  step: () => Promise<T>,
): Promise<{ value: T } | undefined> {
  try {
    return { value: await step() };
  } catch (e) {
    if (e instanceof TritonError && await isFakeCore()) {
      t.skip(`the fake core does not implement ${feature} yet (${e.message})`);
      return undefined;
    }
    throw e;
  }
}

async function assertNoLiveParameters(): Promise<void> {
  const live = await liveCounter();
  if (!live) return;
  assert.equal(live("parameter"), 0, "live TRITONSERVER_Parameter objects");
  assert.equal(live("message"), 0, "live TRITONSERVER_Message objects");
}

test("explicit mode: load, infer, unload, reload with a config override, infer", async () => {
  const server = await startServer({ modelControlMode: "explicit" });
  try {
    const before = server.models().find((m) => m.name === "identity_int32");
    assert.deepEqual(before, { name: "identity_int32" }, "never loaded: name only");
    assert.equal(server.models({ readyOnly: true }).length, 0);

    const model = await server.loadModel("identity_int32");
    assert.equal(model.ready(), true);
    assert.deepEqual(server.models().find((m) => m.name === "identity_int32"), {
      name: "identity_int32",
      version: 1,
      state: "READY",
    });
    assert.deepEqual(server.models({ readyOnly: true }).map((m) => m.name), ["identity_int32"]);
    assert.deepEqual(await identity(server, "identity_int32", 5), [
      1,
      2,
      3,
      1,
      2,
      3,
      1,
      2,
      3,
      1,
      2,
      3,
      1,
      2,
      3,
    ]);
    const config = model.config();
    assert.equal(config.max_batch_size, 8);

    await server.unloadModel("identity_int32", { waitUntilUnloaded: true });
    assert.deepEqual(server.models().find((m) => m.name === "identity_int32"), {
      name: "identity_int32",
      version: 1,
      state: "UNAVAILABLE",
      reason: "unloaded",
    });
    assert.throws(() => model.infer({ inputs: { INPUT0: new Int32Array([1]) } }), TritonError);

    const override: ModelConfigOverride = { ...config, max_batch_size: 4 };
    await server.loadModel("identity_int32", { config: override });
    assert.equal(model.config().max_batch_size, 4);
    assert.deepEqual(model.metadata().inputs[0].shape, [-1, -1]);
    assert.deepEqual(await identity(server, "identity_int32", 4), [
      1,
      2,
      3,
      1,
      2,
      3,
      1,
      2,
      3,
      1,
      2,
      3,
    ]);
    // The override is in force: a batch of 5 is now too large.
    assert.throws(
      () =>
        model.infer({
          inputs: { INPUT0: { dtype: "INT32", shape: [5, 3], data: new Int32Array(15) } },
        }),
      isTritonError("INVALID_ARG", /batch/),
    );

    await server.unloadModel("identity_int32", { waitUntilUnloaded: true });
    assert.equal(server.models().find((m) => m.name === "identity_int32")?.state, "UNAVAILABLE");
    await assertNoLiveParameters();
  } finally {
    await server.stop();
  }
});

test("a model loaded from files in memory: config and files as load parameters", async (t) => {
  const server = await startServer({ modelControlMode: "explicit" });
  try {
    const config: ModelConfigOverride = {
      name: "in_memory_identity",
      backend: "identity",
      max_batch_size: 0,
      input: [{ name: "INPUT0", data_type: "TYPE_INT32", dims: [-1] }],
      output: [{ name: "OUTPUT0", data_type: "TYPE_INT32", dims: [-1] }],
    };
    const files = { "1/README.txt": new TextEncoder().encode("identity needs no model file\n") };
    const loaded = await unlessFakeCoreLacks(
      t,
      "loading models from in-memory files",
      () => server.loadModel("in_memory_identity", { config, files }),
    );
    if (!loaded) return;
    const model = loaded.value;
    assert.equal(model.ready(), true);
    assert.equal(model.config().backend, "identity");
    assert.deepEqual(await identity1d(server, "in_memory_identity"), [1, 2, 3]);
    await server.unloadModel("in_memory_identity", { waitUntilUnloaded: true });
    await assertNoLiveParameters();
  } finally {
    await server.stop();
  }
});

test("bad load and unload arguments: INVALID_ARG before any C call", async () => {
  const server = await startServer({ modelControlMode: "explicit" });
  try {
    const data = new Uint8Array([1]);
    await assert.rejects(
      server.loadModel("m", { files: { "1/x": data } }),
      isTritonError("INVALID_ARG", /files need config/),
    );
    await assert.rejects(
      server.loadModel("m", { config: { backend: "identity" }, files: { "../escape": data } }),
      isTritonError("INVALID_ARG", /relative/),
    );
    await assert.rejects(
      server.loadModel("m", { config: { backend: "identity" }, files: { "1/x": "text" as never } }),
      isTritonError("INVALID_ARG", /Uint8Array/),
    );
    await assert.rejects(server.loadModel(""), isTritonError("INVALID_ARG", /model name/));
    await assert.rejects(server.unloadModel(""), isTritonError("INVALID_ARG", /model name/));
    await assert.rejects(
      server.registerModelRepository("/tmp", { a: "same", b: "same" }),
      isTritonError("INVALID_ARG", /two directories/),
    );
    // Triton's own answers.
    await assert.rejects(server.loadModel("no_such_model"), TritonError);
    await assert.rejects(
      server.loadModel("identity_int32", { config: { backend: "identity", max_batch_size: -3 } }),
      TritonError,
    );
    await assertNoLiveParameters();
  } finally {
    await server.stop();
  }
});

test("a config replaces the whole configuration: a partial one fails, saying why", async () => {
  const server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["identity_int32"],
  });
  try {
    const ready = server.models().find((m) => m.name === "identity_int32");
    // Triton finds no backend in { max_batch_size: 4 } (identity_int32's folder names none) and
    // fails polling; its reason goes to its log only, so the binding says what it can.
    await assert.rejects(
      server.loadModel("identity_int32", { config: { max_batch_size: 4 } }),
      isTritonError(
        "INTERNAL",
        new RegExp(
          "^failed to load 'identity_int32', failed to poll from model repository: a config " +
            "replaces the whole configuration \\(config\\.pbtxt is not read\\).*" +
            "neither backend nor platform.*Poll failed for model directory 'identity_int32'",
        ),
      ),
    );
    // As in the real core: a poll failure leaves the model as it was, with no reason in the index.
    assert.deepEqual(server.models().find((m) => m.name === "identity_int32"), ready);
    assert.deepEqual(await identity(server, "identity_int32"), [1, 2, 3]);
    // Given whole, the same change loads.
    const config = server.model("identity_int32").config();
    await server.loadModel("identity_int32", { config: { ...config, max_batch_size: 4 } });
    assert.equal(server.model("identity_int32").config().max_batch_size, 4);

    await assert.rejects(
      server.loadModel("no_such_model"),
      isTritonError(
        "INTERNAL",
        /failed to poll from model repository: no model directory 'no_such_model' in the server's model repositories$/,
      ),
    );
    assert.equal(server.models().find((m) => m.name === "no_such_model"), undefined);
    await assertNoLiveParameters();
  } finally {
    await server.stop();
  }
});

test("register a repository with a name mapping, load from it, unregister it", async (t) => {
  const repo = tempRepo();
  repo.add("some_directory", { "config.pbtxt": identityConfig(), "1/README.txt": "" });
  const server = await startServer({ modelControlMode: "explicit" });
  try {
    const registered = await unlessFakeCoreLacks(
      t,
      "repository name mappings",
      () => server.registerModelRepository(repo.path, { some_directory: "mapped_identity" }),
    );
    if (!registered) return;
    const model = await server.loadModel("mapped_identity");
    assert.equal(model.config().name, "mapped_identity");
    assert.deepEqual(await identity1d(server, "mapped_identity"), [1, 2, 3]);
    await server.unloadModel("mapped_identity", { waitUntilUnloaded: true });
    await server.unregisterModelRepository(repo.path);
    await assert.rejects(server.loadModel("mapped_identity"), TritonError);
    await assert.rejects(server.unregisterModelRepository(repo.path), TritonError);
    await assertNoLiveParameters();
  } finally {
    await server.stop();
    repo.remove();
  }
});

test("poll mode: pollModelRepository() loads new models and unloads removed ones", async () => {
  const repo = tempRepo();
  repo.add("poll_a", { "config.pbtxt": identityConfig("poll_a"), "1/README.txt": "" });
  const server = await startServer({ modelRepository: repo.path, modelControlMode: "poll" });
  try {
    assert.deepEqual(server.models().map((m) => [m.name, m.state]), [["poll_a", "READY"]]);
    repo.add("poll_b", { "config.pbtxt": identityConfig("poll_b"), "1/README.txt": "" });
    rmSync(join(repo.path, "poll_a"), { recursive: true });
    await server.pollModelRepository();
    const index = Object.fromEntries(server.models().map((m) => [m.name, m.state]));
    assert.equal(index.poll_b, "READY");
    assert.notEqual(index.poll_a, "READY");
    assert.deepEqual(await identity1d(server, "poll_b"), [1, 2, 3]);
  } finally {
    await server.stop();
    repo.remove();
  }
});

test("polling and loading need the matching control mode", async () => {
  const server = await startServer({ modelControlMode: "explicit" });
  try {
    await assert.rejects(server.pollModelRepository(), isTritonError("UNAVAILABLE", /poll/));
  } finally {
    await server.stop();
  }
  const repo = tempRepo();
  repo.add("fixed", { "config.pbtxt": identityConfig("fixed"), "1/README.txt": "" });
  const none = await startServer({ modelRepository: repo.path, modelControlMode: "none" });
  try {
    await assert.rejects(none.loadModel("fixed"), TritonError);
    await assert.rejects(none.unloadModel("fixed"), TritonError);
  } finally {
    await none.stop();
    repo.remove();
  }
});
