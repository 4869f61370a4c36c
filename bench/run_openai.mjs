// `npm run bench:openai`: OpenAI streaming against KServe's generate_stream on the same model and
// load. Runs bench/openai_stream.ts on Deno, Bun and Node (each serving tiny_llm with serveOpenAI()
// and serve() from one Server, loaded by bench/sse_client.mjs in a Node process of its own), then
// writes bench/results/openai_stream_<core>.json and .md and prints the table: per runtime and
// concurrency, each route's tokens/s (the median over the alternating rounds, ± half their range)
// and its ratio to generate_stream's median; then the serving process's CPU time per token and
// generate_stream's over each route's. The goal: OpenAI streaming within 10 % of generate_stream
// (a ratio of 0.9 or more).
//
// The real core is used when TRITONSERVER_LIB and TRITONSERVER_BACKEND_DIR are set; otherwise the
// project's fake core. Environment: BENCH_RUNTIMES (default "deno,bun,node"), and what
// bench/openai_stream.ts reads: BENCH_SECONDS, BENCH_CONCURRENCY, BENCH_TOKENS, BENCH_ROUNDS,
// BENCH_ROUTES. Plain Node ESM.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { benchCore, runOnRuntimes } from "./load_runs.mjs";
import { median, spread } from "./stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const results = join(root, "bench", "results");
mkdirSync(results, { recursive: true });
const env = { ...process.env, BENCH_NODE: process.execPath };

const core = benchCore(root, env, "bench:openai");

const load = [loadavg()];
const runs = runOnRuntimes(
  root,
  env,
  "bench:openai",
  "bench/openai_stream.ts",
  30 * 60_000,
  () => load.push(loadavg()),
);

const n = (x) => Math.round(x).toLocaleString("en-US");
const pct = (x) => (x === undefined ? "" : ` ±${Math.round(x * 100)} %`);
const routes = [...new Set(runs.map((r) => r.route))];
const groups = [...new Set(runs.map((r) => `${r.runtime} ${r.concurrency}`))];
const first = runs[0] ?? {};
const lines = [
  `OpenAI streaming against generate_stream, tiny_llm, ${core} core, ${
    first.tokensPerStream ?? "?"
  } tokens per stream, ${first.seconds ?? "?"} s per run, ${
    new Set(runs.map((r) => r.round)).size
  } alternating rounds, ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}; load average (1 min) ${
    load.map((l) => l[0].toFixed(2)).join(" → ")
  } (before, then after each runtime). Per cell: tokens/s (median ± half the range of the rounds), ` +
  "p50 of a whole stream (ms), ratio to generate_stream.",
  "",
  `| runtime | streams at once | ${routes.join(" | ")} | errors |`,
  `| --- | ---: | ${routes.map(() => "---:").join(" | ")} | ---: |`,
];
const summary = [];
for (const key of groups) {
  const group = runs.filter((r) => `${r.runtime} ${r.concurrency}` === key);
  const of = (route) => group.filter((r) => r.route === route).map((r) => r.client);
  const base = median(of("generate_stream").map((c) => c.tokensPerSecond));
  const errors = group.reduce((sum, r) => sum + r.client.errors, 0);
  const cells = routes.map((route) => {
    const clients = of(route);
    const rate = median(clients.map((c) => c.tokensPerSecond));
    if (rate === undefined) return "—";
    const ratio = base && route !== "generate_stream" ? rate / base : undefined;
    if (ratio !== undefined) {
      summary.push({ runtime: group[0].runtime, concurrency: group[0].concurrency, route, ratio });
    }
    const p50 = median(clients.map((c) => c.streamP50Us)) / 1000;
    return `${n(rate)}${pct(spread(clients.map((c) => c.tokensPerSecond)))} (${
      p50.toFixed(1)
    } ms)` +
      (ratio === undefined ? "" : ` ${ratio.toFixed(2)}×`);
  });
  lines.push(
    `| ${group[0].runtime} | ${group[0].concurrency} | ${cells.join(" | ")} | ${errors} |`,
  );
}
// The serving process's CPU time per token: what each route costs, which a loaded machine changes
// far less than the rates above. Its ratio is generate_stream's over the route's (≥ 0.9: within
// 10 % of generate_stream's work).
if (runs.some((r) => r.serverCpuUsPerToken !== undefined)) {
  lines.push(
    "",
    "The serving process's CPU time per token (µs, its JS thread and the core's, warm-up " +
      "included; median ± half the range of the rounds), and generate_stream's over the route's.",
    "",
    `| runtime | streams at once | ${routes.join(" | ")} |`,
    `| --- | ---: | ${routes.map(() => "---:").join(" | ")} |`,
  );
  for (const key of groups) {
    const group = runs.filter((r) => `${r.runtime} ${r.concurrency}` === key);
    const cpu = (route) =>
      group.filter((r) => r.route === route).map((r) => r.serverCpuUsPerToken).filter((x) =>
        x !== undefined
      );
    const base = median(cpu("generate_stream"));
    const cells = routes.map((route) => {
      const us = median(cpu(route));
      if (us === undefined) return "—";
      const ratio = base && route !== "generate_stream" ? ` ${(base / us).toFixed(2)}×` : "";
      return `${us.toFixed(1)}${pct(spread(cpu(route)))}${ratio}`;
    });
    lines.push(`| ${group[0].runtime} | ${group[0].concurrency} | ${cells.join(" | ")} |`);
  }
}
const table = lines.join("\n");
writeFileSync(
  join(results, `openai_stream_${core}.json`),
  JSON.stringify({ date: new Date().toISOString(), loadavg: load, runs, summary }, null, 2) + "\n",
);
writeFileSync(join(results, `openai_stream_${core}.md`), table + "\n");
console.log(table);
const failed = runs.filter((r) => r.client.errors > 0 || r.inflightAfter !== 0);
if (failed.length > 0) {
  console.error("bench:openai: errors or requests left in flight:", JSON.stringify(failed[0]));
  process.exit(1);
}
