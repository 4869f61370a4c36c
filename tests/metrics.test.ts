import assert from "node:assert/strict";
import { test } from "./support/test.ts";
import { runtimeName } from "../ffi/runtime.ts";
import type { TritonError } from "../mod.ts";
import { isTritonError, unsupported } from "./support/assertions.ts";
import { collect, idle, isFakeCore, startServer } from "./support/env.ts";

const explicit = { modelControlMode: "explicit", startupModels: ["identity_int32"] } as const;

/** Where the core was built without metrics: the UNSUPPORTED error `metrics()` throws. */
async function metricsMissing(): Promise<TritonError | undefined> {
  const server = await startServer(explicit);
  try {
    return await unsupported(() => server.metrics());
  } finally {
    await server.stop();
  }
}

const noMetrics = await metricsMissing();
const needMetrics = {
  skip: noMetrics !== undefined && `this core has no metrics (${noMetrics.message})`,
};

/** The value of the Prometheus sample `name{labels}` in `text`, or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

test("server metrics: Prometheus text with nv_inference_request_success", needMetrics, async () => {
  const server = await startServer(explicit);
  try {
    const labels = 'model="identity_int32",version="1"';
    // Triton's registry lives as long as the process: earlier servers' requests count too.
    const before = sample(server.metrics(), "nv_inference_request_success", labels) ?? 0;
    const n = 3;
    for (let i = 0; i < n; i++) {
      await collect(
        server.model("identity_int32").infer({
          inputs: { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([i]) } },
        }),
      );
    }
    await idle(server);
    const text = server.metrics();
    assert.match(text, /^# HELP nv_inference_request_success /m);
    assert.match(text, /^# TYPE nv_inference_request_success counter$/m);
    assert.equal(sample(text, "nv_inference_request_success", labels), before + n);
  } finally {
    await server.stop();
  }
});

// Names are per process: Triton's metrics registry outlives servers and families.
const prefix = `tritonffi_test_${runtimeName()}`;

test(
  "custom metrics: a counter increments, a gauge sets, a histogram observes",
  needMetrics,
  async (t) => {
    const server = await startServer(explicit);
    try {
      const none = await unsupported(() =>
        server.metricFamily({ kind: "counter", name: `${prefix}_probe`, description: "probe" })
          .dispose()
      );
      if (none) return t.skip(`this core has no custom metrics (${none.message})`);

      using counter = server.metricFamily({
        kind: "counter",
        name: `${prefix}_requests_total`,
        description: "Requests seen by the test",
      });
      const ok = counter.metric({ status: "ok" });
      const failed = counter.metric({ status: "failed" });
      ok.increment();
      ok.increment(2.5);
      failed.increment(0);
      assert.equal(ok.value(), 3.5);
      assert.equal(failed.value(), 0);
      assert.throws(() => ok.increment(-1), isTritonError("INVALID_ARG", /only goes up/));
      assert.throws(() => ok.set(1), isTritonError("UNSUPPORTED", /counter/));
      assert.throws(() => ok.observe(1), isTritonError("UNSUPPORTED", /counter/));

      using gauge = server.metricFamily({
        kind: "gauge",
        name: `${prefix}_queue_depth`,
        description: "A gauge",
      });
      const depth = gauge.metric();
      depth.set(10);
      depth.increment(-4);
      assert.equal(depth.value(), 6);

      using histogram = server.metricFamily({
        kind: "histogram",
        name: `${prefix}_latency_ms`,
        description: "A histogram",
        buckets: [1, 10, 100],
      });
      const latency = histogram.metric({ route: "a" });
      latency.observe(5);
      latency.observe(50);
      assert.throws(() => latency.value(), isTritonError("UNSUPPORTED", /histogram/));
      const custom = histogram.metric({ route: "b" }, { buckets: [0.5] });
      custom.observe(0.25);

      const text = server.metrics();
      assert.equal(sample(text, `${prefix}_requests_total`, 'status="ok"'), 3.5);
      assert.equal(sample(text, `${prefix}_queue_depth`, ""), undefined, "no labels: no braces");
      assert.match(text, new RegExp(`^${prefix}_queue_depth 6$`, "m"));
      assert.equal(sample(text, `${prefix}_latency_ms_count`, 'route="a"'), 2);
      assert.equal(sample(text, `${prefix}_latency_ms_bucket`, 'route="a",le="10"'), 1);
      assert.equal(sample(text, `${prefix}_latency_ms_bucket`, 'route="b",le="0.5"'), 1);

      // Disposing a family deletes its metrics first.
      counter.dispose();
      assert.equal(ok.disposed, true);
      assert.throws(() => ok.value(), isTritonError("UNAVAILABLE", /disposed/));
      assert.throws(() => counter.metric(), isTritonError("UNAVAILABLE", /disposed/));
      assert.doesNotMatch(
        server.metrics(),
        new RegExp(`${prefix}_requests_total\\{status="ok"\\}`),
      );
    } finally {
      await server.stop();
    }
  },
);

test("custom metrics: bad names, labels and buckets are INVALID_ARG before any C call", async () => {
  const server = await startServer(explicit);
  try {
    assert.throws(
      () => server.metricFamily({ kind: "counter", name: "1bad", description: "" }),
      isTritonError("INVALID_ARG", /metric name/),
    );
    assert.throws(
      () => server.metricFamily({ kind: "summary" as "counter", name: "x", description: "" }),
      isTritonError("INVALID_ARG", /kind/),
    );
    assert.throws(
      () => server.metricFamily({ kind: "histogram", name: "x", description: "", buckets: [2, 1] }),
      isTritonError("INVALID_ARG", /increasing/),
    );
    assert.throws(
      () => server.metricFamily({ kind: "gauge", name: "x", description: "", buckets: [1] }),
      isTritonError("INVALID_ARG", /only histograms/),
    );
    const none = await unsupported(() =>
      server.metricFamily({ kind: "histogram", name: `${prefix}_nobuckets`, description: "h" })
        .dispose()
    );
    if (none) return;
    using family = server.metricFamily({
      kind: "histogram",
      name: `${prefix}_nobuckets`,
      description: "h",
    });
    assert.throws(() => family.metric(), isTritonError("INVALID_ARG", /needs buckets/));
    assert.throws(
      () => family.metric({ "bad-label": "x" }, { buckets: [1] }),
      isTritonError("INVALID_ARG", /label name/),
    );
  } finally {
    await server.stop();
  }
});

test("a core without metrics: metrics() and metricFamily() throw UNSUPPORTED", {
  skip: noMetrics === undefined && "this core has metrics",
}, async () => {
  const server = await startServer(explicit);
  try {
    assert.ok(await unsupported(() => server.metrics()), "metrics() was refused");
    assert.throws(
      () => server.metricFamily({ kind: "gauge", name: `${prefix}_unsupported`, description: "" }),
      isTritonError("UNSUPPORTED", /./),
    );
    if (await isFakeCore()) return; // the fake core accepts the metrics options
    // A core built without metrics refuses metrics options.
    await assert.rejects(
      startServer({ ...explicit, metrics: { enabled: true } }),
      isTritonError("UNSUPPORTED", /metrics/),
    );
  } finally {
    await server.stop();
  }
});
