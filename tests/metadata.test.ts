import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { TritonError } from "../mod.ts";
import { createTrace, traceSettings } from "../src/trace.ts";
import { isTritonError } from "./support/assertions.ts";
import { collect, idle, liveCounter, startServer } from "./support/env.ts";

const statsModels = {
  modelControlMode: "explicit",
  startupModels: ["identity_int32", "repeat_int32"],
} as const;

async function assertNoLiveMessages(): Promise<void> {
  const live = await liveCounter();
  if (live) assert.equal(live("message"), 0, "live TRITONSERVER_Message objects");
}

test("server metadata: name, version, extensions", async () => {
  const server = await startServer(statsModels);
  try {
    const meta = server.metadata();
    assert.equal(meta.name, "triton");
    assert.equal(typeof meta.version, "string");
    assert.ok(Array.isArray(meta.extensions));
    assert.ok(meta.extensions.includes("model_repository"), meta.extensions.join(","));
    await assertNoLiveMessages();
  } finally {
    await server.stop();
  }
});

test("server metadata lists the extensions the real core lists, in its order", async () => {
  const server = await startServer(statsModels);
  try {
    // A core built without tracing (TRITON_ENABLE_TRACING off) neither traces nor lists "trace".
    let traces = true;
    try {
      createTrace(server.native().lib, traceSettings({ onActivity: () => {} })).notSubmitted();
    } catch (e) {
      if (!(e instanceof TritonError && e.code === "UNSUPPORTED")) throw e;
      traces = false;
    }
    // InferenceServer's constructor (the core's server.cc), with statistics and logging built in.
    assert.deepEqual(server.metadata().extensions, [
      "classification",
      "sequence",
      "model_repository",
      "model_repository(unload_dependents)",
      "schedule_policy",
      "model_configuration",
      "system_shared_memory",
      "cuda_shared_memory",
      "binary_tensor_data",
      "parameters",
      "statistics",
      ...(traces ? ["trace"] : []),
      "logging",
    ]);
  } finally {
    await server.stop();
  }
});

test("model metadata, config, batch and transaction properties", async () => {
  const server = await startServer(statsModels);
  try {
    const identity = server.model("identity_int32");
    assert.deepEqual(identity.metadata(), {
      name: "identity_int32",
      versions: ["1"],
      platform: "identity",
      inputs: [{ name: "INPUT0", datatype: "INT32", shape: [-1, -1] }],
      outputs: [{ name: "OUTPUT0", datatype: "INT32", shape: [-1, -1] }],
    });
    const config = identity.config();
    assert.equal(config.name, "identity_int32");
    assert.equal(config.backend, "identity");
    assert.equal(config.max_batch_size, 8);
    assert.deepEqual(
      config.input.map((i) => [i.name, i.data_type, i.dims]),
      [["INPUT0", "TYPE_INT32", [-1]]],
    );
    assert.deepEqual(
      config.output.map((o) => [o.name, o.data_type, o.dims]),
      [["OUTPUT0", "TYPE_INT32", [-1]]],
    );
    assert.deepEqual(config.instance_group.map((g) => [g.kind, g.count]), [["KIND_CPU", 2]]);
    assert.deepEqual(identity.batchProperties(), { firstDim: true, flags: 2 });
    assert.deepEqual(identity.transactionProperties(), {
      decoupled: false,
      oneToOne: true,
      flags: 1,
    });

    const repeat = server.model("repeat_int32");
    assert.equal(repeat.config().model_transaction_policy?.decoupled, true);
    assert.deepEqual(repeat.batchProperties(), { firstDim: false, flags: 1 });
    assert.deepEqual(repeat.transactionProperties(), {
      decoupled: true,
      oneToOne: false,
      flags: 2,
    });
    assert.deepEqual(repeat.metadata().inputs.map((i) => i.name), ["IN", "DELAY", "WAIT"]);

    assert.throws(() => identity.config(2), TritonError, "config version 2 is not supported");
    assert.throws(() => identity.config(0), isTritonError("INVALID_ARG", /configVersion/));
    // A model the server does not serve.
    assert.throws(() => server.model("add_sub").metadata(), TritonError);
    assert.throws(() => server.model("add_sub").config(), TritonError);
    assert.throws(() => server.model("add_sub").batchProperties(), TritonError);
    await assertNoLiveMessages();
  } finally {
    await server.stop();
  }
});

test("statistics after N inferences: success count and inference count equal N", async () => {
  const server = await startServer(statsModels);
  try {
    const model = server.model("identity_int32");
    const before = model.statistics();
    assert.equal(before.name, "identity_int32");
    assert.equal(before.version, "1");
    assert.equal(before.inference_stats.success.count, 0);
    const n = 7;
    for (let i = 0; i < n; i++) {
      await collect(
        model.infer({
          inputs: { INPUT0: { dtype: "INT32", shape: [1, 2], data: new Int32Array([i, i]) } },
        }),
      );
    }
    await idle(server);
    const stats = model.statistics();
    assert.equal(stats.inference_stats.success.count, n);
    assert.equal(stats.inference_stats.fail.count, 0);
    assert.equal(stats.inference_count, n, "one batch element per request");
    assert.ok(stats.inference_stats.success.ns > 0, "success has a duration in ns");
    assert.equal(stats.inference_stats.queue.count, n);
    assert.equal(typeof stats.last_inference, "number");
    for (
      const key of [
        "success",
        "fail",
        "queue",
        "compute_input",
        "compute_infer",
        "compute_output",
        "cache_hit",
        "cache_miss",
      ] as const
    ) {
      assert.equal(typeof stats.inference_stats[key].count, "number", key);
      assert.equal(typeof stats.inference_stats[key].ns, "number", key);
    }
    assert.ok(Array.isArray(stats.batch_stats));
    assert.ok(Array.isArray(stats.memory_usage));
    assert.equal(typeof stats.response_stats, "object");

    const all = server.statistics();
    assert.deepEqual(all.map((s) => s.name).sort(), ["identity_int32", "repeat_int32"]);
    const fromAll = all.find((s) => s.name === "identity_int32")!;
    assert.equal(fromAll.inference_stats.success.count, n);
    assert.equal(all.find((s) => s.name === "repeat_int32")!.inference_stats.success.count, 0);
    assert.throws(() => server.model("add_sub").statistics(), TritonError);
    await assertNoLiveMessages();
  } finally {
    await server.stop();
  }
});
