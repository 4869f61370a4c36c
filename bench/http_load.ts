/**
 * The HTTP serving load check (not a test): a server with `serve()` on loopback, driven by
 * `bench/http_client.mjs` (N keep-alive clients in a separate Node process) for a bounded time,
 * next to the same work through the in-process API (N concurrent `infer()` loops). Prints one
 * JSON line per scenario: inferences/s, p50/p99 latency (µs), errors, and the process's RSS
 * before and after the HTTP run.
 *
 * Run it with `npm run bench:http` (bench/run_http.mjs), or directly on one runtime with
 * `TRITONSERVER_LIB` set. Environment: `BENCH_SECONDS` (per run, default 3),
 * `BENCH_CONCURRENCY` (default "1,16"), `BENCH_SCENARIOS` (default "health,JSON,binary"),
 * `BENCH_OTEL` (`on` or `unsampled`: an OpenTelemetry SDK registered, see bench/otel_sdk.ts).
 *
 * @module
 */
import process from "node:process";
import { Server } from "../mod.ts";
import { serve } from "../serve.ts";
import { runtimeName } from "../ffi/mod.ts";
import { runLoadClient } from "./load_client.ts";

// BENCH_OTEL=on|unsampled: an OpenTelemetry SDK registered first (bench/otel_sdk.ts).
const spansEnded = process.env.BENCH_OTEL
  ? (await import("./otel_sdk.ts")).registerSdk(process.env.BENCH_OTEL)
  : undefined;
const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const concurrencies = (process.env.BENCH_CONCURRENCY ?? "1,16").split(",").map(Number);
const node = process.env.BENCH_NODE ?? "node";
const only = (process.env.BENCH_SCENARIOS ?? "health,JSON,binary").split(",");
const client = decodeURIComponent(new URL("./http_client.mjs", import.meta.url).pathname);
const repository = decodeURIComponent(new URL("../tests/models", import.meta.url).pathname);

const server = await new Server({
  modelRepository: repository,
  modelControlMode: "explicit",
  startupModels: ["identity_fp32"],
  log: { info: false, warn: false },
}).start();
const http = await serve(server, { port: 0 });
const model = server.model("identity_fp32");

const values = Float32Array.from({ length: 16 }, (_, i) => i / 4);
const encoder = new TextEncoder();
const jsonBody = encoder.encode(JSON.stringify({
  inputs: [{ name: "INPUT0", datatype: "FP32", shape: [1, 16], data: Array.from(values) }],
}));
const binaryHeader = encoder.encode(JSON.stringify({
  inputs: [{
    name: "INPUT0",
    datatype: "FP32",
    shape: [1, 16],
    parameters: { binary_data_size: 64 },
  }],
  outputs: [{ name: "OUTPUT0", parameters: { binary_data: true } }],
}));
const binaryBody = new Uint8Array(binaryHeader.byteLength + 64);
binaryBody.set(binaryHeader);
binaryBody.set(new Uint8Array(values.buffer), binaryHeader.byteLength);

const toBase64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
const rss = () => process.memoryUsage().rss;

interface ClientResult {
  count: number;
  errors: number;
  perSecond: number;
  p50Us: number;
  p99Us: number;
  firstError?: string;
}

/** Runs the load generator; the server keeps serving meanwhile (nothing here blocks). */
function load(scenario: Scenario, concurrency: number) {
  const spec = {
    port: http.port,
    method: scenario.method,
    path: scenario.path,
    body: toBase64(scenario.body),
    headers: scenario.headers,
    concurrency,
    seconds,
    warmup: 200,
    expect: scenario.expect,
  };
  return runLoadClient<ClientResult>(node, client, spec);
}

/** N concurrent in-process loops: infer, read the output, dispose. */
async function inProcess(concurrency: number): Promise<ClientResult> {
  const input = { INPUT0: { dtype: "FP32" as const, shape: [1, 16], data: values } };
  const once = async () => {
    for await (const r of model.infer({ inputs: input })) {
      if ((r.outputs.OUTPUT0.data as Float32Array)[15] !== values[15]) {
        throw new Error("bad output");
      }
      r.dispose();
    }
  };
  for (let i = 0; i < 200; i++) await once();
  const latencies: number[] = [];
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await once();
      latencies.push(performance.now() - t0);
    }
  }));
  const elapsed = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const pick = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 1000;
  return {
    count: latencies.length,
    errors: 0,
    perSecond: latencies.length / elapsed,
    p50Us: pick(0.5),
    p99Us: pick(0.99),
  };
}

interface Scenario {
  readonly name: string;
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body: Uint8Array;
  readonly headers: Record<string, string>;
  /** What every response body must contain. */
  readonly expect: string;
}
const infer = "/v2/models/identity_fp32/infer";
const scenarios: Scenario[] = [
  {
    // The floor: routing, one C call (TRITONSERVER_ServerIsReady) and the runtime's HTTP server.
    name: "health",
    method: "GET",
    path: "/v2/health/ready",
    body: new Uint8Array(0),
    headers: {},
    expect: "",
  },
  {
    name: "JSON",
    method: "POST",
    path: infer,
    body: jsonBody,
    headers: { "content-type": "application/json" },
    expect: '"data":[0,0.25,',
  },
  {
    name: "binary",
    method: "POST",
    path: infer,
    body: binaryBody,
    headers: { "inference-header-content-length": String(binaryHeader.byteLength) },
    expect: '"binary_data_size":64',
  },
];
for (const concurrency of concurrencies) {
  const api = await inProcess(concurrency);
  for (const s of scenarios.filter((s) => only.includes(s.name))) {
    const before = rss();
    const result = await load(s, concurrency);
    const after = rss();
    console.log(JSON.stringify({
      runtime: runtimeName(),
      scenario: s.name,
      concurrency,
      seconds,
      http: result,
      api,
      rssBeforeMiB: before / 2 ** 20,
      rssAfterMiB: after / 2 ** 20,
      inflightAfter: server.inflight,
      ...(spansEnded ? { otel: process.env.BENCH_OTEL, spansEnded: spansEnded() } : {}),
    }));
  }
}
await http.close();
await server.stop();
