// `npm run bench:otel`: what OpenTelemetry costs. Runs bench/http_load.ts (KServe JSON infer over
// HTTP on loopback, and the same inference in process) on each runtime in alternating rounds:
// without an SDK ("off"), with an SDK that samples nothing ("unsampled"), with an SDK recording
// every span ("on", bench/otel_sdk.ts), and, where BENCH_BASE names a checkout of the commit
// before OpenTelemetry came in (e.g. `git archive <commit> | tar -x -C DIR`, with node_modules and
// .build linked), that checkout without an SDK ("before"). Prints the medians as a table and
// writes bench/results/otel_<core>.json.
//
// Environment: BENCH_RUNTIMES (default "deno,bun,node"), BENCH_ROUNDS (default 3),
// BENCH_SECONDS (per scenario run, default 2), BENCH_CONCURRENCY (default "1,16"). Plain Node ESM.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { benchCore } from "./load_runs.mjs";
import { runtimeCommand } from "../tests/runtime_command.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = {
  ...process.env,
  BENCH_NODE: process.execPath,
  BENCH_SCENARIOS: "JSON",
  BENCH_SECONDS: process.env.BENCH_SECONDS ?? "2",
};
const core = benchCore(root, env, "bench:otel");
const runtimes = (env.BENCH_RUNTIMES ?? "deno,bun,node").split(",");
const rounds = Number(env.BENCH_ROUNDS ?? 3);
const variants = [
  ...(env.BENCH_BASE ? [{ name: "before", dir: env.BENCH_BASE, otel: "" }] : []),
  { name: "off", dir: root, otel: "" },
  { name: "unsampled", dir: root, otel: "unsampled" },
  { name: "on", dir: root, otel: "on" },
];

// What the binding adds per call (bench/otel_micro.ts): without an SDK, and with one that
// samples nothing.
const micro = runtimes.map((runtime) => {
  const [cmd, args] = runtimeCommand(root, runtime, "bench/otel_micro.ts");
  const r = spawnSync(cmd, args, { cwd: root, env, encoding: "utf8", timeout: 5 * 60_000 });
  if (r.status !== 0) {
    console.error(`bench:otel: ${runtime} otel_micro failed (${r.status ?? r.signal})`);
    process.stderr.write(r.stderr ?? "");
    process.exit(1);
  }
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
});

const rows = [];
for (let round = 0; round < rounds; round++) {
  for (const runtime of runtimes) {
    for (const v of variants) {
      const [cmd, args] = runtimeCommand(v.dir, runtime, "bench/http_load.ts", {
        deno: ["--allow-net", "--allow-run", "--unstable-no-legacy-abort"],
      });
      const r = spawnSync(cmd, args, {
        cwd: v.dir,
        env: { ...env, BENCH_OTEL: v.otel },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
        timeout: 5 * 60_000,
      });
      if (r.status !== 0) {
        console.error(`bench:otel: ${runtime} ${v.name} failed (${r.status ?? r.signal})`);
        process.exit(1);
      }
      for (const line of r.stdout.split("\n")) {
        if (line.trim()) rows.push({ ...JSON.parse(line), variant: v.name, round });
      }
      process.stderr.write(".");
    }
  }
}
process.stderr.write("\n");

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const n = (x) => Math.round(x).toLocaleString("en-US");
const names = variants.map((v) => v.name);
const lines = [
  `OpenTelemetry's cost, ${core} core, ${rounds} alternating rounds of ${env.BENCH_SECONDS} s ` +
  `runs, ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}; per cell: median inferences/s ` +
  "(median p50 latency, µs).",
  "",
  `| runtime | clients | what | ${names.join(" | ")} |`,
  `| --- | ---: | --- | ${names.map(() => "---:").join(" | ")} |`,
];
for (const runtime of runtimes) {
  for (const c of [...new Set(rows.map((r) => r.concurrency))]) {
    for (
      const [what, pick] of [["in-process `infer()`", (r) => r.api], [
        "HTTP JSON infer",
        (r) => r.http,
      ]]
    ) {
      const cells = names.map((name) => {
        const runs = rows.filter((r) =>
          r.runtime === runtime && r.concurrency === c && r.variant === name
        ).map(pick);
        if (runs.length === 0) return "—";
        return `${n(median(runs.map((x) => x.perSecond)))} (${
          n(median(runs.map((x) => x.p50Us)))
        })`;
      });
      lines.push(`| ${runtime} | ${c} | ${what} | ${cells.join(" | ")} |`);
    }
  }
}
const ns = (x) => x.toFixed(0);
lines.push(
  "",
  "Added per call, median ns (mitata): the inference's span check (`startInferenceSpan`), and an",
  "HTTP handler answering at once, bare → inside `tracedFetch`.",
  "",
  "| runtime | no SDK: inference | no SDK: HTTP handler | unsampled SDK: inference | unsampled SDK: HTTP handler |",
  "| --- | ---: | ---: | ---: | ---: |",
  ...micro.map((m) =>
    `| ${m.runtime} | ${ns(m.off.inferenceSpanNs)} | ${ns(m.off.fetchNs)} → ${
      ns(m.off.tracedFetchNs)
    } | ${ns(m.unsampled.inferenceSpanNs)} | ${ns(m.unsampled.fetchNs)} → ${
      ns(m.unsampled.tracedFetchNs)
    } |`
  ),
);
const text = lines.join("\n");
console.log(text);
mkdirSync(join(root, "bench", "results"), { recursive: true });
writeFileSync(
  join(root, "bench", "results", `otel_${core}.json`),
  JSON.stringify({ micro, rows }, null, 1),
);
