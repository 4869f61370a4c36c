// `npm run bench:threads`: where a served request's time goes, thread by thread. Each server of
// bench:serve (Triton's `tritonserver` and examples/serve.ts on each runtime) is loaded by
// perf_analyzer (identity_int32 [1,16]) while `perf sched record -a` records every context
// switch of the machine for a window; `perf sched timehist` then gives, per thread, the time it
// ran, the time it waited runnable for a CPU (scheduling delay) and how many times it was switched
// in — here divided by the inferences completed in the window (µs per inference), thread by
// thread, beside perf_analyzer's own client latency and Triton's server-side breakdown (its
// trace timestamps, as perf_analyzer reads them from the model's statistics: queue, compute).
// Writes bench/results/threads_real.json and .md.
//
// Needs Linux `perf` (Debian's linux-perf) with permission to record scheduler events (root, or
// kernel.perf_event_paranoid ≤ 1), PERF_ANALYZER and a real core (TRITONSERVER_LIB,
// TRITONSERVER_BACKEND_DIR). Environment: TRITONSERVER_BIN, BENCH_RUNTIMES (as bench:serve's),
// THREADS_ROWS (default "http:1,http:16,grpc:1,grpc:16"), THREADS_WINDOW_S (default 2).
// Plain Node ESM.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { startServer } from "./serve_servers.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };
const perfAnalyzer = env.PERF_ANALYZER;
if (!perfAnalyzer || !env.TRITONSERVER_LIB || !env.TRITONSERVER_BACKEND_DIR) {
  console.log(
    "bench:threads needs PERF_ANALYZER and a real core (TRITONSERVER_LIB, " +
      "TRITONSERVER_BACKEND_DIR); nothing ran",
  );
  process.exit(0);
}
if (spawnSync("perf", ["--version"]).status !== 0) {
  console.log("bench:threads needs Linux perf (Debian's linux-perf); nothing ran");
  process.exit(0);
}
const runtimes = (env.BENCH_RUNTIMES ?? "deno,bun,node").split(",");
const servers = [...(env.TRITONSERVER_BIN ? ["tritonserver"] : []), ...runtimes];
const rows = (env.THREADS_ROWS ?? "http:1,http:16,grpc:1,grpc:16").split(",").map((r) => {
  const [protocol, concurrency] = r.split(":");
  return { protocol, concurrency: Number(concurrency) };
});
const windowS = Number(env.THREADS_WINDOW_S ?? 2);
const ports = { http: 19100, grpc: 19101 };

const work = mkdtempSync(join(tmpdir(), "tritonffi-threads-"));
const repo = join(work, "models");
mkdirSync(repo);
symlinkSync(join(root, "tests/models/identity_int32"), join(repo, "identity_int32"));

/** The threads of process `pid` now: tid → name. */
function threadsOf(pid) {
  const names = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      names.set(Number(tid), readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim());
    } catch {
      // The thread ended.
    }
  }
  return names;
}

/** perf_analyzer's figures from its report. */
function analyzerFigures(out) {
  const num = (re) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : undefined;
  };
  return {
    throughput: num(/^\s*Throughput: ([\d.]+) infer\/sec/m),
    p50: num(/p50 latency: (\d+) usec/),
    serverRequest: num(/Avg request latency: (\d+) usec/),
    queue: num(/queue (\d+) usec/),
    computeInfer: num(/compute infer (\d+) usec/),
  };
}

/**
 * Runs perf_analyzer at one row's load and records the scheduler meanwhile; resolves with its
 * figures and the recording's `perf sched timehist` text.
 */
async function record(row) {
  const url = `127.0.0.1:${row.protocol === "http" ? ports.http : ports.grpc}`;
  const analyzer = spawn(perfAnalyzer, [
    ...["-i", row.protocol, "-u", url, "-m", "identity_int32", "--shape", "INPUT0:16"],
    ...["--concurrency-range", `${row.concurrency}:${row.concurrency}`],
    // Three windows (the fewest its stability check takes), the recording inside them.
    ...["--measurement-interval", String(windowS * 1000), "--stability-percentage", "100"],
    ...["--max-trials", "3"],
  ], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  analyzer.stdout.on("data", (d) => (out += d));
  analyzer.stderr.on("data", (d) => (out += d));
  const done = new Promise((resolve) => analyzer.on("exit", resolve));
  // perf_analyzer warms up first; record inside its measurement window.
  await new Promise((r) => setTimeout(r, 1000 + windowS * 1000));
  const data = join(work, "sched.data");
  spawnSync("perf", ["sched", "record", "-a", "-o", data, "--", "sleep", String(windowS)], {
    stdio: "ignore",
  });
  const timehist = spawnSync("perf", ["sched", "timehist", "-i", data], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  }).stdout;
  await done;
  return { figures: analyzerFigures(out), timehist, analyzerPid: analyzer.pid };
}

/**
 * Sums `perf sched timehist` per thread: [{ pid, tid, name, slices, run, delay }] in ms, and the
 * idle time of each CPU.
 */
function perThread(timehist) {
  const threads = new Map();
  let idle = 0;
  for (const line of timehist.split("\n")) {
    const idleLine = /^\s*[\d.]+\s+\[\d+\]\s+<idle>\s+[\d.]+\s+[\d.]+\s+([\d.]+)/.exec(line);
    if (idleLine) {
      idle += Number(idleLine[1]);
      continue;
    }
    const m = /^\s*[\d.]+\s+\[\d+\]\s+(.+?)\[(\d+)(?:\/(\d+))?\]\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)/
      .exec(line);
    if (!m) continue;
    const [, name, tid, pid, , delay, run] = m;
    const key = Number(tid);
    const t = threads.get(key) ??
      { pid: Number(pid ?? tid), tid: key, name, slices: 0, run: 0, delay: 0 };
    t.slices++;
    t.run += Number(run);
    t.delay += Number(delay);
    threads.set(key, t);
  }
  return { threads: [...threads.values()], idle };
}

/**
 * Folds the threads into the groups the table shows: the server's JS thread (its main thread),
 * its other threads by name (Triton's threads are named after the thread that made them: on
 * Node the libuv pool's, on Deno tokio's), perf_analyzer, and everything else.
 */
function groups(threads, serverPid, analyzerPid, names, minimum) {
  const out = new Map();
  const add = (group, t) => {
    const g = out.get(group) ?? { threads: new Set(), slices: 0, run: 0, delay: 0 };
    g.threads.add(t.tid);
    g.slices += t.slices;
    g.run += t.run;
    g.delay += t.delay;
    out.set(group, g);
  };
  // The server's threads one by one, busiest first, while they run more than `minimum` ms.
  const own = threads.filter((t) => t.pid === serverPid).sort((a, b) => b.run - a.run);
  let rank = 0;
  for (const t of own) {
    const name = names.get(t.tid) ?? t.name;
    if (t.tid === serverPid) add(`server: main thread (${name})`, t);
    else if (t.run > minimum) add(`server: ${name} #${++rank}`, t);
    else add("server: its other threads", t);
  }
  for (const t of threads) {
    if (t.pid === serverPid) continue;
    if (t.pid === analyzerPid) add("perf_analyzer", t);
    else add("other processes", t);
  }
  return out;
}

const results = [];
for (const name of servers) {
  console.log(`bench:threads: ${name}`);
  const server = await startServer(name, { root, env, repo, ports });
  for (const row of rows) {
    const { figures, timehist, analyzerPid } = await record(row);
    const { threads, idle } = perThread(timehist);
    const inferences = (figures.throughput ?? 0) * windowS;
    const names = threadsOf(server.pid);
    const perInference = (ms) => inferences > 0 ? (ms * 1000) / inferences : undefined;
    const table = [...groups(threads, server.pid, analyzerPid, names, inferences / 10_000)].map((
      [group, g],
    ) => ({
      group,
      threads: g.threads.size,
      run: perInference(g.run),
      delay: perInference(g.delay),
      switches: inferences > 0 ? g.slices / inferences : undefined,
    })).sort((a, b) => (b.run ?? 0) - (a.run ?? 0));
    results.push({ server: name, ...row, figures, idle: perInference(idle), table });
    console.log(`  ${row.protocol} c${row.concurrency}: ${figures.throughput} infer/s`);
  }
  await server.stop();
}
rmSync(work, { recursive: true, force: true });

const fmt = (x, digits = 0) => x === undefined ? "—" : x.toFixed(digits);
const md = [];
for (const r of results) {
  const f = r.figures;
  md.push(
    `### ${r.server}, ${r.protocol.toUpperCase()} c${r.concurrency}: ${
      fmt(f.throughput)
    } infer/s, ` +
      `p50 ${fmt(f.p50)} µs; Triton: request ${fmt(f.serverRequest)} µs, queue ${
        fmt(f.queue)
      } µs, ` +
      `compute ${fmt(f.computeInfer)} µs`,
    "",
    "| thread (per inference) | threads | on CPU µs | waiting for a CPU µs | switched in |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...r.table.filter((g) => (g.run ?? 0) >= 0.5).map((g) =>
      `| ${g.group} | ${g.threads} | ${fmt(g.run, 1)} | ${fmt(g.delay, 1)} | ${
        fmt(g.switches, 2)
      } |`
    ),
    `| CPUs idle | | ${fmt(r.idle, 1)} | | |`,
    "",
  );
}
const text = md.join("\n");
const dir = join(root, "bench", "results");
mkdirSync(dir, { recursive: true });
writeFileSync(
  join(dir, "threads_real.json"),
  JSON.stringify({ date: new Date().toISOString(), windowS, results }, null, 2) + "\n",
);
writeFileSync(join(dir, "threads_real.md"), text);
console.log(`\n${text}`);
