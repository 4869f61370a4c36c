/**
 * Property tests of every public entry that takes user values (fast-check): each is called with
 * generated arguments of every kind, and answers, or throws (or rejects with) a `TritonError` —
 * INVALID_ARG where an argument is of the wrong kind — never a `TypeError`, `RangeError` or
 * other built-in error. What a call creates (a metric family, a service, a server) is closed again.
 *
 * Fixed seed; `FUZZ_RUNS=n` (default 150 per property) and `FUZZ_SEED=s` (docs/testing.md).
 */
import assert from "node:assert/strict";
import process from "node:process";
import { after } from "node:test";
import fc from "fast-check";
import { Server, Tensor, TritonError } from "../mod.ts";
import { kserveHandler, serve } from "../serve.ts";
import { test } from "./support/test.ts";
import { MODEL_REPOSITORY, sharedServer, stopShared } from "./support/env.ts";

after(stopShared);

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);
const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const params = { numRuns: RUNS, seed: SEED, endOnFailure: true };

/** Values of every kind a JavaScript caller (or JSON) can pass. */
const anything: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(undefined, null, 0, -1, 1.5, NaN, Infinity, "", "x", "info", true, false),
  fc.constantFrom(1n, -1n, 2n ** 70n, Symbol.for("s"), () => 0, new Date(0), new Map()),
  fc.constantFrom(new Uint8Array(2), new Float32Array(1), [], [1], ["a"], [null], {}),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

/** Kinds an argument may have; an argument of another kind must get INVALID_ARG. */
const kinds = {
  string: (v: unknown) => typeof v === "string",
  number: (v: unknown) => typeof v === "number",
  optionalNumber: (v: unknown) => v === undefined || typeof v === "number",
  optionalString: (v: unknown) => v === undefined || typeof v === "string",
  optionalRecord: (v: unknown) =>
    v === undefined ||
    (typeof v === "object" && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v)),
  any: () => true,
};
type Kind = keyof typeof kinds;

/** Calls `call(...args)` (awaiting what it returns) and checks how it ends. */
async function outcome(
  what: string,
  args: unknown[],
  accepted: readonly Kind[],
  call: (...a: unknown[]) => unknown,
): Promise<void> {
  const wrongKind = args.some((a, i) => !kinds[accepted[i]](a));
  try {
    await call(...args);
  } catch (e) {
    if (!(e instanceof TritonError)) {
      throw new Error(`${what}(${args.map(show).join(", ")}): not a TritonError: ${e}`);
    }
    if (wrongKind) assert.equal(e.code, "INVALID_ARG", `${what}: ${e.message}`);
    return;
  }
  if (wrongKind) throw new Error(`${what}(${args.map(show).join(", ")}) accepted a wrong kind`);
}

function show(v: unknown): string {
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "symbol" || typeof v === "function") return String(v);
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** One property per entry: arguments drawn from {@link anything}, `accepted` their kinds. */
function entry(
  what: string,
  accepted: readonly Kind[],
  call: (...a: unknown[]) => unknown,
  runs = RUNS,
): Promise<void> {
  return fc.assert(
    fc.asyncProperty(
      fc.tuple(...accepted.map(() => anything)),
      (args) => outcome(what, args, accepted, call),
    ),
    { ...params, numRuns: runs },
  );
}

test("server entries: model, modelReady, models, log, logEnabled", async () => {
  const server = await sharedServer();
  await entry(
    "server.model",
    ["string", "optionalNumber"],
    (n, v) => server.model(n as never, v as never),
  );
  await entry(
    "server.modelReady",
    ["string", "optionalNumber"],
    (n, v) => server.modelReady(n as never, v as never),
  );
  await entry("server.models", ["optionalRecord"], (o) => server.models(o as never));
  await entry(
    "server.log",
    ["string", "string", "optionalString", "optionalNumber"],
    (l, m, f, n) => server.log(l as never, m as never, f as never, n as never),
  );
  await entry("server.logEnabled", ["string"], (l) => server.logEnabled(l as never));
  await entry(
    "model.config",
    ["optionalNumber"],
    (v) => server.model("identity_int32").config(v as never),
  );
});

test("trace options: infer({ trace })", async () => {
  const model = (await sharedServer()).model("identity_int32");
  const inputs = { INPUT0: { dtype: "INT32", shape: [1, 1], data: new Int32Array([1]) } } as const;
  await entry("infer({ trace })", ["optionalRecord"], async (trace) => {
    for await (const r of model.infer({ inputs, trace: trace as never })) r.dispose();
  });
});

test("repository entries: loadModel, unloadModel, registerModelRepository", async () => {
  const server = await sharedServer();
  // The shared server's models are never named: random names are unknown ones.
  const unknown = (n: unknown) => (typeof n === "string" ? `no_such_${n}` : n);
  await entry(
    "server.loadModel",
    ["string", "optionalRecord"],
    (n, o) => server.loadModel(unknown(n) as never, o as never),
  );
  await entry(
    "server.unloadModel",
    ["string", "optionalRecord"],
    (n, o) => server.unloadModel(unknown(n) as never, o as never),
  );
  await entry(
    "server.registerModelRepository",
    ["string", "optionalRecord"],
    (p, m) => server.registerModelRepository(unknown(p) as never, m as never),
  );
  await entry(
    "server.unregisterModelRepository",
    ["string"],
    (p) => server.unregisterModelRepository(unknown(p) as never),
  );
});

test("metric entries: metricFamily, metric, increment, set, observe", async () => {
  const server = await sharedServer();
  await entry("server.metricFamily", ["optionalRecord"], (o) => {
    server.metricFamily(o as never).dispose();
  });
  const gauge = server.metricFamily({ kind: "gauge", name: "fuzz_gauge", description: "fuzz" });
  const histogram = server.metricFamily({
    kind: "histogram",
    name: "fuzz_histogram",
    description: "fuzz",
    buckets: [1, 2],
  });
  try {
    await entry("family.metric", ["optionalRecord", "optionalRecord"], (l, o) => {
      gauge.metric(l as never, o as never).dispose();
    });
    const g = gauge.metric({ fuzz: "1" });
    const h = histogram.metric({ fuzz: "1" });
    await entry("metric.set", ["number"], (v) => g.set(v as never));
    await entry("metric.increment", ["optionalNumber"], (v) => g.increment(v as never));
    await entry("metric.observe", ["number"], (v) => h.observe(v as never));
  } finally {
    gauge.dispose();
    histogram.dispose();
  }
});

test("tensor entries: new Tensor, fromStrings, fromBooleans, onDevice, from", async () => {
  await entry(
    "new Tensor",
    ["string", "any", "any"],
    (d, s, v) => new Tensor(d as never, s as never, v as never),
  );
  await entry(
    "Tensor.fromStrings",
    ["any", "any"],
    (s, sh) => Tensor.fromStrings(s as never, sh as never),
  );
  await entry(
    "Tensor.fromBooleans",
    ["any", "any"],
    (b, sh) => Tensor.fromBooleans(b as never, sh as never),
  );
  await entry(
    "Tensor.onDevice",
    ["string", "any", "any", "number"],
    (d, s, p, n) => Tensor.onDevice(d as never, s as never, p as never, n as never),
  );
  await entry("Tensor.from", ["any"], (v) => Tensor.from(v as never));
});

test("front-end and server entries: kserveHandler, serve, new Server().start()", async () => {
  const server = await sharedServer();
  await entry("kserveHandler", ["optionalRecord"], (o) => kserveHandler(server, o as never));
  await entry("serve", ["optionalRecord"], async (o) => {
    // Never the default port: a random one is asked for where the options are a record.
    const options = kinds.optionalRecord(o) ? { ...(o as object), port: 0 } : o;
    const service = await serve(server, options as never);
    await service.close();
  });
  await entry("new Server().start", ["optionalRecord"], async (o) => {
    const base = { modelRepository: MODEL_REPOSITORY, modelControlMode: "explicit" };
    const s = new Server((kinds.optionalRecord(o) ? { ...base, ...(o as object) } : o) as never);
    await (await s.start({ timeoutMs: 10_000 })).stop();
  }, Math.ceil(RUNS / 5));
  await entry("server.start", ["optionalRecord"], async (o) => {
    const s = new Server({ modelRepository: MODEL_REPOSITORY, modelControlMode: "explicit" });
    const started = await s.start(o as never);
    await started.stop();
  }, Math.ceil(RUNS / 5));
});
