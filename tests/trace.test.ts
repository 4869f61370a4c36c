import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { runtimeName } from "../ffi/runtime.ts";
import type { Server, TraceActivity, TraceOptions, TritonError } from "../mod.ts";
import { isTritonError, unsupported } from "./support/assertions.ts";
import { collect, startServer } from "./support/env.ts";

const explicit = { modelControlMode: "explicit", startupModels: ["identity_int32"] } as const;

/** Runs one traced identity_int32 request and resolves with its activities once the trace ends. */
async function traced(
  server: Server,
  id: string,
  values: number[],
  level: TraceOptions["level"] = "timestamps",
): Promise<{ activities: TraceActivity[]; ends: number }> {
  const activities: TraceActivity[] = [];
  let ends = 0;
  let ended!: () => void;
  const end = new Promise<void>((r) => (ended = r));
  const [response] = await collect(
    server.model("identity_int32").infer({
      id,
      inputs: {
        INPUT0: { dtype: "INT32", shape: [1, values.length], data: Int32Array.from(values) },
      },
      trace: {
        level,
        onActivity: (a) => activities.push(a),
        onEnd: () => {
          ends++;
          ended();
        },
      },
    }),
  );
  assert.deepEqual(Array.from(response.outputs.OUTPUT0.data as Int32Array), values);
  await end;
  return { activities, ends };
}

/** Where the core was built without tracing: the UNSUPPORTED error a traced request gets. */
async function tracingMissing(): Promise<TritonError | undefined> {
  const server = await startServer(explicit);
  try {
    return await unsupported(() => traced(server, "probe", [0]));
  } finally {
    await server.stop();
  }
}

const noTracing = await tracingMissing();
const needTracing = {
  skip: noTracing !== undefined && `this core has no tracing (${noTracing.message})`,
};

test("a trace sees each request's activities in order, then ends once", needTracing, async () => {
  const server = await startServer(explicit);
  try {
    const runs = await Promise.all(
      [0, 1, 2, 3].map((i) => traced(server, `traced-${i}`, [i, i + 1, i + 2])),
    );
    runs.forEach(({ activities, ends }, i) => {
      assert.equal(ends, 1, "onEnd once");
      const names = activities.map((a) => a.activity);
      assert.equal(names[0], "REQUEST_START", names.join(","));
      assert.equal(names.at(-1), "REQUEST_END", names.join(","));
      for (const step of ["QUEUE_START", "COMPUTE_START", "COMPUTE_END"] as const) {
        assert.ok(names.includes(step), `${step} in ${names.join(",")}`);
      }
      assert.ok(names.indexOf("COMPUTE_START") < names.indexOf("COMPUTE_END"));
      const stamps = activities.map((a) => (a.type === "timestamp" ? a.timestampNs : -1n));
      for (let k = 1; k < stamps.length; k++) {
        assert.ok(stamps[k] >= stamps[k - 1], `timestamps in order: ${stamps.join(",")}`);
      }
      for (const a of activities) {
        assert.equal(a.type, "timestamp");
        assert.equal(a.requestId, `traced-${i}`);
        assert.equal(a.model, "identity_int32");
        assert.equal(a.modelVersion, 1);
        assert.equal(a.parentId, 0n);
        assert.equal(a.traceId, activities[0].traceId);
      }
    });
    const ids = new Set(runs.map((r) => r.activities[0].traceId));
    assert.equal(ids.size, runs.length, "one trace per request");
  } finally {
    await server.stop();
  }
});

test("a tensor trace reports the input and output tensors", needTracing, async () => {
  const server = await startServer(explicit);
  try {
    const { activities } = await traced(server, "tensors", [7, 8, 9], ["timestamps", "tensors"]);
    const tensors = activities.filter((a) => a.type === "tensor");
    const input = tensors.find((a) => a.activity === "TENSOR_QUEUE_INPUT");
    const output = tensors.find((a) => a.activity === "TENSOR_BACKEND_OUTPUT");
    assert.ok(input && output, activities.map((a) => a.activity).join(","));
    assert.equal(input.datatype, "INT32");
    assert.equal(input.byteSize, 12);
    assert.equal(input.memoryType, "CPU");
    if (runtimeName() === "bun") {
      // Bun runs the callback after Triton freed the tensor: nothing of it is read.
      assert.equal(input.name, undefined);
      assert.equal(input.data, undefined);
    } else {
      assert.equal(input.name, "INPUT0");
      assert.deepEqual(input.shape, [1, 3]);
      assert.deepEqual(Array.from(new Int32Array(input.data!.slice().buffer)), [7, 8, 9]);
      assert.equal(output.name, "OUTPUT0");
      assert.deepEqual(Array.from(new Int32Array(output.data!.slice().buffer)), [7, 8, 9]);
    }
    assert.ok(activities.some((a) => a.activity === "REQUEST_END"));
    const only = await traced(server, "tensors-only", [1], "tensors");
    assert.ok(only.activities.every((a) => a.type === "tensor"), "no timestamps asked for");
  } finally {
    await server.stop();
  }
});

test(
  "refused traced requests: the trace is deleted whether or not Triton took it",
  needTracing,
  async () => {
    const server = await startServer(explicit);
    try {
      let ends = 0;
      const trace = { onActivity() {}, onEnd: () => ends++ };
      // Refused before Triton attaches the trace (bad input): the binding deletes it, no onEnd.
      assert.throws(
        () =>
          server.model("identity_int32").infer({
            inputs: { BOGUS: { dtype: "INT32", shape: [1, 1], data: new Int32Array(1) } },
            trace,
          }),
        isTritonError("INVALID_ARG", /BOGUS/),
      );
      // Refused after Triton attached it (queue full): Triton releases it, onEnd runs.
      const config = server.model("identity_int32").config();
      await server.loadModel("identity_int32", {
        config: {
          ...config,
          instance_group: [{ kind: "KIND_CPU", count: 1 }],
          parameters: { execute_delay_ms: { string_value: "200" } },
          dynamic_batching: { default_queue_policy: { max_queue_size: 1 } },
        },
      });
      const streams = [];
      let refused = 0;
      for (let i = 0; i < 6; i++) {
        try {
          streams.push(
            server.model("identity_int32").infer({
              inputs: { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([i]) } },
              trace,
            }),
          );
        } catch (e) {
          isTritonError("UNAVAILABLE", /queue/)(e);
          refused++;
        }
      }
      assert.ok(refused > 0, "the queue refused some requests");
      for (const s of streams) await collect(s);
      const deadline = Date.now() + 5000;
      while (ends < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.equal(ends, 6, "every trace Triton took ended, accepted or refused");
    } finally {
      await server.stop();
    }
  },
);

test("bad trace options: INVALID_ARG before any C call", async () => {
  const server = await startServer(explicit);
  try {
    const inputs = { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array(1) } } as const;
    assert.throws(
      () => server.model("identity_int32").infer({ inputs, trace: {} as TraceOptions }),
      isTritonError("INVALID_ARG", /onActivity/),
    );
    assert.throws(
      () =>
        server.model("identity_int32").infer({
          inputs,
          trace: { level: "everything" as "tensors", onActivity() {} },
        }),
      isTritonError("INVALID_ARG", /trace\.level/),
    );
  } finally {
    await server.stop();
  }
});

test("a core without tracing: a traced infer() throws UNSUPPORTED and leaves nothing behind", {
  skip: noTracing === undefined && "this core has tracing",
}, async () => {
  const server = await startServer(explicit);
  try {
    const none = await unsupported(() => traced(server, "probe", [0]));
    assert.ok(none, "a traced request was refused");
    assert.match(none.message, /tracing/);
    assert.equal(server.inflight, 0);
    // The server still serves untraced requests.
    const [r] = await collect(
      server.model("identity_int32").infer({
        inputs: { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([5]) } },
      }),
    );
    assert.deepEqual(Array.from(r.outputs.OUTPUT0.data as Int32Array), [5]);
  } finally {
    await server.stop();
  }
});
