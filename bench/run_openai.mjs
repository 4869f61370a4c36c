// `npm run bench:openai`: OpenAI streaming against KServe's generate_stream on the same model and
// load. Runs bench/openai_stream.ts on Deno, Bun and Node (each serving tiny_llm with serveOpenAI()
// and serve() from one Server, loaded by bench/sse_client.mjs in a Node process of its own), then
// writes bench/results/openai_stream_<core>.json and .md and prints the table: per runtime and
// concurrency, each route's tokens/s (the median over the alternating rounds, ± half their range)
// and its ratio to generate_stream's median. The goal: OpenAI streaming within 10 % of
// generate_stream (a ratio of 0.9 or more).
//
// The real core is used when TRITONSERVER_LIB and TRITONSERVER_BACKEND_DIR are set; otherwise the
// project's fake core. Environment: BENCH_RUNTIMES (default "deno,bun,node"), and what
// bench/openai_stream.ts reads: BENCH_SECONDS, BENCH_CONCURRENCY, BENCH_TOKENS, BENCH_ROUNDS,
// BENCH_ROUTES. Plain Node ESM.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runtimeCommand } from "../tests/runtime_command.mjs";
import { median, spread } from "./stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const results = join(root, "bench", "results");
mkdirSync(results, { recursive: true });
const env = { ...process.env, BENCH_NODE: process.execPath };

let core = "real";
if (!(env.TRITONSERVER_LIB && env.TRITONSERVER_BACKEND_DIR)) {
  const build = spawnSync(process.execPath, [join(root, "tests/fake_core/build.mjs")], {
    stdio: "inherit",
  });
  if (build.status !== 0) process.exit(1);
  env.TRITONSERVER_LIB = join(root, ".build/fake_core/libtritonserver.so");
  core = "fake";
}
console.log(`bench:openai: ${core} core ${env.TRITONSERVER_LIB}`);

const load = [loadavg()];
const runs = [];
for (const runtime of (env.BENCH_RUNTIMES ?? "deno,bun,node").split(",")) {
  const [cmd, args] = runtimeCommand(root, runtime, "bench/openai_stream.ts", {
    deno: ["--allow-net", "--allow-run", "--unstable-no-legacy-abort"],
  });
  const r = spawnSync(cmd, args, {
    cwd: root,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 30 * 60_000,
  });
  if (r.status !== 0) {
    console.error(`bench:openai: ${runtime} failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
  for (const line of r.stdout.split("\n")) if (line.trim()) runs.push(JSON.parse(line));
  load.push(loadavg());
}

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
