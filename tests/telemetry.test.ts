import assert from "node:assert/strict";
import { SpanStatusCode, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { test } from "./support/test.ts";
import type { Server, TraceActivity, TritonError } from "../mod.ts";
import { isTritonError, unsupported } from "./support/assertions.ts";
import { collect, startServer } from "./support/env.ts";
import { ns, only, recording } from "./support/telemetry.ts";

const explicit = { modelControlMode: "explicit", startupModels: ["identity_int32"] } as const;

function inputs(values: number[]) {
  return {
    INPUT0: { dtype: "INT32", shape: [1, values.length], data: Int32Array.from(values) },
  } as const;
}

/** Where the core was built without tracing: the UNSUPPORTED error a traced request gets. */
async function tracingMissing(): Promise<TritonError | undefined> {
  const server = await startServer(explicit);
  try {
    return await unsupported(() =>
      collect(
        server.model("identity_int32").infer({
          inputs: inputs([1]),
          trace: { onActivity: () => {} },
        }),
      )
    );
  } finally {
    await server.stop();
  }
}
const noTracing = await tracingMissing();
const needTracing = {
  skip: noTracing !== undefined && `this core has no tracing (${noTracing.message})`,
};

const eventNames = (s: ReadableSpan) => s.events.map((e) => e.name);
const childOf = (child: ReadableSpan, parent: ReadableSpan) =>
  child.parentSpanContext?.spanId === parent.spanContext().spanId &&
  child.spanContext().traceId === parent.spanContext().traceId;

/** Every event of `s` lies in the span, in order of time. */
function eventsInOrder(s: ReadableSpan): void {
  const times = [ns(s.startTime), ...s.events.map((e) => ns(e.time)), ns(s.endTime)];
  for (let i = 1; i < times.length; i++) {
    assert.ok(times[i] >= times[i - 1], `${s.name}: ${eventNames(s)} at ${times}`);
  }
}

/** `inner` lies within `outer`. */
function within(inner: ReadableSpan, outer: ReadableSpan): void {
  assert.ok(ns(inner.startTime) >= ns(outer.startTime), `${inner.name} starts in ${outer.name}`);
  assert.ok(ns(inner.endTime) <= ns(outer.endTime), `${inner.name} ends in ${outer.name}`);
}

test(
  "an inference inside an active span is its child, with Triton's timestamps as tritonserver lays them out",
  needTracing,
  async () => {
    const server = await startServer(explicit);
    try {
      await recording(async ({ spans }) => {
        const tracer = trace.getTracer("test");
        await tracer.startActiveSpan("caller", async (caller) => {
          const [response] = await collect(
            server.model("identity_int32").infer({ id: "otel-1", inputs: inputs([4, 5, 6]) }),
          );
          assert.deepEqual(Array.from(response.outputs.OUTPUT0.data as Int32Array), [4, 5, 6]);
          caller.end();
        });
        const all = await spans((s) => s.some((x) => x.name === "InferRequest"));
        const caller = only(all, "caller");
        const infer = only(all, "InferRequest");
        const model = only(all, "identity_int32");
        const compute = only(all, "compute");
        assert.ok(childOf(infer, caller), "InferRequest under the active span");
        assert.ok(childOf(model, infer), "the model's span under InferRequest");
        assert.ok(childOf(compute, model), "compute under the model's span");
        assert.equal(infer.instrumentationScope.name, "tritonffi");
        assert.deepEqual(infer.attributes, {
          "triton.model_name": "identity_int32",
          "triton.model_version": -1,
          "triton.request_id": "otel-1",
          "triton.batch_size": 1,
          "triton.response_count": 1,
        });
        assert.equal(infer.status.code, SpanStatusCode.UNSET);
        assert.equal(model.attributes["triton.model_name"], "identity_int32");
        assert.equal(model.attributes["triton.model_version"], 1);
        assert.equal(model.attributes["triton.request_id"], "otel-1");
        assert.equal(model.attributes["triton.trace_parent_id"], 0);
        assert.equal(typeof model.attributes["triton.trace_id"], "number");
        assert.deepEqual(eventNames(model), ["REQUEST_START", "QUEUE_START", "REQUEST_END"]);
        assert.deepEqual(eventNames(compute), [
          "COMPUTE_START",
          "COMPUTE_INPUT_END",
          "COMPUTE_OUTPUT_START",
          "COMPUTE_END",
        ]);
        for (const s of [model, compute]) eventsInOrder(s);
        within(compute, model);
        within(model, infer);
        // The span starts and ends at its first and last events (Triton's own instants).
        assert.equal(ns(model.startTime), ns(model.events[0].time));
        assert.equal(ns(model.endTime), ns(model.events.at(-1)!.time));
        assert.equal(ns(compute.endTime), ns(compute.events.at(-1)!.time));
      });
    } finally {
      await server.stop();
    }
  },
);

test(
  "an inference outside any span is a root span; a batch of 3 says so",
  needTracing,
  async () => {
    const server = await startServer(explicit);
    try {
      await recording(async ({ spans }) => {
        await collect(
          server.model("identity_int32").infer({
            inputs: { INPUT0: { dtype: "INT32", shape: [3, 2], data: new Int32Array(6) } as const },
          }),
        );
        const all = await spans((s) => s.some((x) => x.name === "InferRequest"));
        const infer = only(all, "InferRequest");
        assert.equal(infer.parentSpanContext, undefined);
        assert.equal(infer.attributes["triton.batch_size"], 3);
        assert.equal(infer.attributes["triton.request_id"], undefined);
      });
    } finally {
      await server.stop();
    }
  },
);

test(
  "a user's trace option still gets what its level asks for while the span records",
  needTracing,
  async () => {
    const server = await startServer(explicit);
    try {
      await recording(async ({ spans }) => {
        const seen: TraceActivity[] = [];
        let ended!: () => void;
        const end = new Promise<void>((r) => (ended = r));
        await collect(
          server.model("identity_int32").infer({
            inputs: inputs([7]),
            trace: { level: "tensors", onActivity: (a) => seen.push(a), onEnd: () => ended() },
          }),
        );
        await end;
        assert.ok(seen.length > 0);
        assert.ok(seen.every((a) => a.type === "tensor"), seen.map((a) => a.activity).join());
        const all = await spans((s) => s.some((x) => x.name === "InferRequest"));
        assert.deepEqual(eventNames(only(all, "identity_int32")), [
          "REQUEST_START",
          "QUEUE_START",
          "REQUEST_END",
        ]);
      });
    } finally {
      await server.stop();
    }
  },
);

test("an inference Triton refuses ends its span with the error", async () => {
  const server = await startServer(explicit);
  try {
    await recording(async ({ spans }) => {
      assert.throws(
        () => server.model("identity_int32").infer({ inputs: { NOPE: new Int32Array([1]) } }),
        isTritonError("INVALID_ARG", /NOPE/),
      );
      const [infer] = await spans((s) => s.some((x) => x.name === "InferRequest"));
      assert.equal(infer.status.code, SpanStatusCode.ERROR);
      assert.match(infer.status.message ?? "", /NOPE/);
      assert.equal(infer.attributes["error.type"], "INVALID_ARG");
    });
  } finally {
    await server.stop();
  }
});

test("without a registered SDK nothing is traced and inference runs as before", async () => {
  const server: Server = await startServer(explicit);
  try {
    assert.equal(trace.getActiveSpan(), undefined);
    assert.equal(trace.getTracer("probe").startSpan("probe").isRecording(), false);
    const [response] = await collect(
      server.model("identity_int32").infer({ inputs: inputs([1, 2]) }),
    );
    assert.deepEqual(Array.from(response.outputs.OUTPUT0.data as Int32Array), [1, 2]);
  } finally {
    await server.stop();
  }
});
