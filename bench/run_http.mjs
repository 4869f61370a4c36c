// `npm run bench:http`: the HTTP serving load check. Runs bench/http_load.ts on Deno, Bun and Node
// (each serving identity_fp32 with serve() on loopback, loaded by bench/http_client.mjs in a Node
// process of its own), then writes bench/results/http_<core>.json and .md and prints the table.
//
// The real core is used when TRITONSERVER_LIB and TRITONSERVER_BACKEND_DIR are set; otherwise the
// project's fake core. Environment: BENCH_SECONDS (per run, default 3), BENCH_CONCURRENCY
// (default "1,16"), BENCH_RUNTIMES (default "deno,bun,node"). Plain Node ESM.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { benchCore, runOnRuntimes } from "./load_runs.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const results = join(root, "bench", "results");
mkdirSync(results, { recursive: true });
const env = { ...process.env, BENCH_NODE: process.execPath };

const core = benchCore(root, env, "bench:http");

const rows = runOnRuntimes(root, env, "bench:http", "bench/http_load.ts", 10 * 60_000);

const n = (x) => Math.round(x).toLocaleString("en-US");
const cell = (m) => `${n(m.perSecond)} (${n(m.p50Us)} / ${n(m.p99Us)})`;
const lines = [
  `HTTP serving load check, ${core} core, ${rows[0]?.seconds ?? "?"} s per run, ${cpus().length} ` +
  `× ${cpus()[0]?.model ?? "CPU"}; per cell: requests/s (p50 / p99 latency, µs).`,
  "",
  "| runtime | clients | GET /v2/health/ready | infer, JSON | infer, binary | in-process `infer()` | " +
  "errors | RSS MiB before → after |",
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
];
const keys = [...new Set(rows.map((r) => `${r.runtime} ${r.concurrency}`))];
for (const key of keys) {
  const group = rows.filter((r) => `${r.runtime} ${r.concurrency}` === key);
  const by = Object.fromEntries(group.map((r) => [r.scenario, r]));
  const errors = group.reduce((sum, r) => sum + r.http.errors, 0);
  const first = group[0];
  const last = group[group.length - 1];
  lines.push(
    `| ${first.runtime} | ${first.concurrency} | ${cell(by.health.http)} | ${
      cell(by.JSON.http)
    } | ` +
      `${cell(by.binary.http)} | ${cell(first.api)} | ${errors} | ` +
      `${first.rssBeforeMiB.toFixed(0)} → ${last.rssAfterMiB.toFixed(0)} |`,
  );
}
const table = lines.join("\n");
writeFileSync(join(results, `http_${core}.json`), JSON.stringify(rows, null, 2) + "\n");
writeFileSync(join(results, `http_${core}.md`), table + "\n");
console.log(table);
const failed = rows.filter((r) => r.http.errors > 0 || r.inflightAfter !== 0);
if (failed.length > 0) {
  console.error("bench:http: errors or requests left in flight:", JSON.stringify(failed));
  process.exit(1);
}
