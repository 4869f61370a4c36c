// `npm run bench:serve`: the front ends side by side, loaded by Triton's perf_analyzer — Triton's
// own `tritonserver` (when TRITONSERVER_BIN names it) and this project's examples/serve.ts on Deno,
// Bun and Node, each serving the same models from the same core: HTTP and gRPC identity_int32
// [1,16] at concurrency 1, 16 and 64, a 1 MiB tensor (INT32 [1,262144]) on both protocols, in
// the message and through system shared memory (perf_analyzer --shared-memory system), and
// the gRPC streaming rows (the decoupled `async def execute` model of bench/models at batch 8 and
// concurrency 128, as perf_analyzer's streaming benchmark runs it; tests/models' sleep_stream at
// concurrency 128, 8 responses each). Rounds alternate the servers (tritonserver, deno, bun,
// node, tritonserver, …); the table gives each row's median ± half its range, p50, the ratio to
// tritonserver's median and, where the row has a target, ✓ or ✗. Writes
// bench/results/serve_real.json and .md.
//
// Needs PERF_ANALYZER (the perf_analyzer binary) and a real core (TRITONSERVER_LIB,
// TRITONSERVER_BACKEND_DIR). Environment: TRITONSERVER_BIN, BENCH_ROUNDS (default 3),
// BENCH_RUNTIMES (default "deno,bun,node"; an entry may carry environment variables for that
// server after colons, `node:TRITONFFI_POLL_US=0`, to put a variant beside the default),
// BENCH_ROWS (a regular expression selecting rows by label), BENCH_INTERVAL_MS (perf_analyzer's
// measurement interval, default 3000). Plain Node ESM.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { benchServers, needPerfAnalyzer, startServer, variant } from "./serve_servers.mjs";
import { median } from "./stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };
const perf = env.PERF_ANALYZER;
needPerfAnalyzer("bench:serve", env);
const rounds = Number(env.BENCH_ROUNDS ?? 3);
const interval = env.BENCH_INTERVAL_MS ?? "3000";
const servers = benchServers(env);
// One model repository with the models the rows use.
const repo = mkdtempSync(join(tmpdir(), "tritonffi-serve-bench-"));
symlinkSync(
  join(root, "bench/models/async_execute_decouple"),
  join(repo, "async_execute_decouple"),
);
for (const m of ["identity_int32", "sleep_stream"]) {
  symlinkSync(join(root, "tests/models", m), join(repo, m));
}
const sleepData = join(repo, "sleep_stream.json");
writeFileSync(sleepData, JSON.stringify({ data: [{ COUNT: [8], DELAY_MS: [10] }] }));

const HTTP = "127.0.0.1:18000";
const GRPC = "127.0.0.1:18001";

/** perf_analyzer's arguments for `model` over `protocol` at `concurrency`, and `extra`. */
function load(protocol, model, concurrency, extra = []) {
  const url = protocol === "http" ? HTTP : GRPC;
  const range = `${concurrency}:${concurrency}`;
  return ["-i", protocol, "-u", url, "-m", model, "--concurrency-range", range, ...extra];
}
const identity = ["--shape", "INPUT0:16"];
const mib = ["--shape", "INPUT0:262144"];
/** Inputs and outputs through system shared memory (1 MiB regions), as local clients move them. */
const shm = ["--shared-memory", "system", "--output-shared-memory-size", String(1 << 20)];
const streaming = ["--async", "--streaming", "true"];
/** [label, perf_analyzer arguments, target ratio to tritonserver per runtime (or one for all)]. */
const ALL_ROWS = [
  // Concurrency 1: the JS thread's critical path (workers do not shorten it).
  ["HTTP c1", load("http", "identity_int32", 1, identity), { deno: 0.8, bun: 0.8 }],
  ["HTTP c16", load("http", "identity_int32", 16, identity), { deno: 1, bun: 1, node: 0.9 }],
  ["HTTP c64", load("http", "identity_int32", 64, identity), { deno: 1, bun: 1, node: 0.9 }],
  ["HTTP 1 MiB c4", load("http", "identity_int32", 4, mib), 1],
  ["gRPC c1", load("grpc", "identity_int32", 1, identity), 0.8],
  ["gRPC c16", load("grpc", "identity_int32", 16, identity), 0.9],
  ["gRPC c64", load("grpc", "identity_int32", 64, identity), 0.9],
  ["gRPC 1 MiB c4", load("grpc", "identity_int32", 4, mib), 1],
  ["HTTP 1 MiB c4 shared memory", load("http", "identity_int32", 4, [...mib, ...shm]), 1],
  ["gRPC 1 MiB c4 shared memory", load("grpc", "identity_int32", 4, [...mib, ...shm]), 1],
  [
    "gRPC stream async_execute_decouple b8 c128",
    load("grpc", "async_execute_decouple", 128, [...streaming, "-b", "8", "--input-data", "zero"]),
    1,
  ],
  [
    "gRPC stream sleep_stream c128 ×8",
    load("grpc", "sleep_stream", 128, [...streaming, "--input-data", sleepData]),
    1,
  ],
];
const ROWS = env.BENCH_ROWS
  ? ALL_ROWS.filter(([label]) => new RegExp(env.BENCH_ROWS).test(label))
  : ALL_ROWS;

/** Starts one server; resolves with a stop function once it answers. */
async function start(name) {
  const server = await startServer(name, { root, env, repo, ports: { http: 18000, grpc: 18001 } });
  return server.stop;
}

/** One perf_analyzer run: throughput (infer/s), response throughput and p50 (µs). */
function measure(args) {
  const r = spawnSync(perf, [
    ...args,
    "--measurement-interval",
    interval,
    // A loaded machine never holds a figure within perf_analyzer's default 10 %.
    "--stability-percentage",
    "100",
  ], {
    encoding: "utf8",
    timeout: 180_000,
  });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  const num = (re) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : undefined;
  };
  const throughput = num(/^\s*Throughput: ([\d.]+) infer\/sec/m);
  if (throughput === undefined) return { error: out.trim().split("\n").slice(-2).join(" ") };
  return {
    throughput,
    responses: num(/Response Throughput: ([\d.]+)/),
    p50: num(/p50 latency: (\d+) usec/),
  };
}

const samples = {}; // server → row → [result]
const loadAtStart = loadavg()[0];
for (let round = 0; round < rounds; round++) {
  for (const name of servers) {
    console.log(`bench:serve: round ${round + 1}/${rounds}: ${name}`);
    const stop = await start(name);
    for (const [row, args] of ROWS) {
      ((samples[name] ??= {})[row] ??= []).push(measure(args));
    }
    await stop();
  }
}
rmSync(repo, { recursive: true, force: true });

const figure = (name, row) => {
  const runs = samples[name]?.[row] ?? [];
  const ok = runs.filter((r) => r.throughput !== undefined);
  if (ok.length === 0) return { text: `— (${runs[0]?.error ?? "not run"})` };
  const streaming = row.includes("stream");
  const value = median(ok.map((r) => streaming ? r.responses ?? r.throughput : r.throughput));
  const p50 = median(ok.map((r) => r.p50));
  const spread = ok.length > 1
    ? ` ±${
      Math.round(
        (Math.max(...ok.map((r) => r.throughput)) - Math.min(...ok.map((r) => r.throughput))) / 2,
      )
    }`
    : "";
  return { value, text: `${Math.round(value).toLocaleString("en")}${spread} (${p50 ?? "?"} µs)` };
};
const header = ["row (infer/s, streams: responses/s; median ± half range, p50)", ...servers];
const lines = [
  `| ${header.join(" | ")} |`,
  `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
];
for (const [row, , target] of ROWS) {
  const ref = env.TRITONSERVER_BIN ? figure("tritonserver", row).value : undefined;
  const cells = servers.map((name) => {
    const f = figure(name, row);
    if (!ref || !f.value || name === "tritonserver") return f.text;
    const ratio = f.value / ref;
    const goal = typeof target === "object" ? target[variant(name).runtime] : target;
    const mark = goal === undefined ? "" : ratio >= goal ? ` ✓ (≥ ${goal})` : ` ✗ (≥ ${goal})`;
    return `${f.text} ${ratio.toFixed(2)}×${mark}`;
  });
  lines.push(`| ${row} | ${cells.join(" | ")} |`);
}
const md =
  `${lines.join("\n")}\n\n${rounds} alternating rounds, perf_analyzer measurement interval ` +
  `${interval} ms; load average ${loadAtStart.toFixed(2)} at the start, ${
    loadavg()[0].toFixed(2)
  } at the end.\n`;
const results = join(root, "bench", "results");
mkdirSync(results, { recursive: true });
writeFileSync(
  join(results, "serve_real.json"),
  JSON.stringify({ date: new Date().toISOString(), rounds, samples }, null, 2) + "\n",
);
writeFileSync(join(results, "serve_real.md"), md);
console.log(`\n${md}`);
