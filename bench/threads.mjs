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
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { benchServers, needPerfAnalyzer, startServer } from "./serve_servers.mjs";
import { median } from "./stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };
const perfAnalyzer = env.PERF_ANALYZER;
needPerfAnalyzer("bench:threads", env);
if (spawnSync("perf", ["--version"]).status !== 0) {
  console.log("bench:threads needs Linux perf (Debian's linux-perf); nothing ran");
  process.exit(0);
}
const servers = benchServers(env);
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
  const timehist = spawnSync("perf", ["sched", "timehist", "-w", "-i", data], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  }).stdout;
  await done;
  return { figures: analyzerFigures(out), timehist, analyzerPid: analyzer.pid };
}

/**
 * Reads `perf sched timehist -w`: its wake-ups `{ t, wakerTid, wakerPid, wakeeTid, wakePid }` and
 * its slices `{ name, pid, tid, start, end, delay }` (a thread's time on a CPU until it switched
 * out, and how long it waited for that CPU), in time order, µs; and the CPUs' idle time, µs.
 */
function parseTimehist(timehist) {
  const wakes = [];
  const slices = [];
  let idle = 0;
  const task = /(.+?)\[(\d+)(?:\/(\d+))?\]/;
  for (const line of timehist.split("\n")) {
    const w = /^\s*([\d.]+)\s+\[\d+\]\s+(.+?\])\s+awakened: (.+?\])/.exec(line);
    if (w) {
      const [, t, waker, wakee] = w;
      const [, , wt, wp] = task.exec(waker);
      const [, , et, ep] = task.exec(wakee);
      wakes.push({
        t: Number(t) * 1e6,
        wakerTid: Number(wt),
        wakerPid: Number(wp ?? wt),
        wakeeTid: Number(et),
        wakeePid: Number(ep ?? et),
      });
      continue;
    }
    const m = /^\s*([\d.]+)\s+\[\d+\]\s+(<idle>|.+?\])\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)/.exec(line);
    if (!m) continue;
    const [, at, who, , delay, run] = m;
    if (who === "<idle>") {
      idle += Number(run) * 1000;
      continue;
    }
    const [, name, tid, pid] = task.exec(who);
    const end = Number(at) * 1e6;
    slices.push({
      name,
      tid: Number(tid),
      pid: Number(pid ?? tid),
      start: end - Number(run) * 1000,
      end,
      delay: Number(delay) * 1000,
    });
  }
  return { wakes, slices, idle };
}

/** Sums the slices per thread: [{ pid, tid, name, slices, run, delay }], µs. */
function perThread(slices) {
  const threads = new Map();
  for (const x of slices) {
    const t = threads.get(x.tid) ??
      { pid: x.pid, tid: x.tid, name: x.name, slices: 0, run: 0, delay: 0 };
    t.slices++;
    t.run += x.end - x.start;
    t.delay += x.delay;
    threads.set(x.tid, t);
  }
  return [...threads.values()];
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
  // The server's threads one by one, busiest first, while they run more than `minimum` µs.
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

/**
 * One request's path at concurrency 1, read from the wake-ups and context switches (µs, medians
 * over every complete cycle of the window): perf_analyzer wakes the server's receiving thread
 * (the request is on the socket); that thread gets a CPU; it wakes one of Triton's threads (the
 * request is queued: `TRITONSERVER_ServerInferAsync`); that thread gets a CPU and runs the model
 * until it switches out; a server thread wakes perf_analyzer (the response is on the socket);
 * perf_analyzer's own turn until it sends the next request.
 */
function cycles({ wakes, slices }, serverPid, analyzerPid) {
  // Each thread's slices in time order, to find the first that ends after a time.
  const byTid = new Map();
  for (const x of slices) {
    const list = byTid.get(x.tid) ?? [];
    list.push(x);
    byTid.set(x.tid, list);
  }
  /** The first slice of `tid` that ends after `t` (binary search). */
  const sliceAfter = (tid, t) => {
    const list = byTid.get(tid) ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid].end > t) hi = mid;
      else lo = mid + 1;
    }
    return list[lo];
  };
  const steps = { wake: [], toQueue: [], queueWake: [], model: [], toSocket: [], client: [] };
  // A state machine over the wake-ups in time order: a request (perf_analyzer wakes the server;
  // the first such wake-up after a reply), its submission (the receiving thread wakes another
  // server thread), its reply (the server wakes perf_analyzer).
  let request;
  let submit;
  let lastReply;
  for (const w of wakes) {
    if (w.wakerPid === analyzerPid && w.wakeePid === serverPid) {
      if (request === undefined) request = w;
    } else if (w.wakerPid === serverPid && w.wakeePid === serverPid) {
      if (request !== undefined && submit === undefined && w.wakeeTid !== request.wakeeTid) {
        submit = w;
      }
    } else if (w.wakerPid === serverPid && w.wakeePid === analyzerPid) {
      if (request === undefined) continue; // a second write of the same reply
      const received = sliceAfter(request.wakeeTid, request.t);
      const model = submit && sliceAfter(submit.wakeeTid, submit.t);
      if (received && model && lastReply && model.end <= w.t && received.start < submit.t) {
        steps.wake.push(received.start - request.t);
        steps.toQueue.push(submit.t - Math.max(received.start, request.t));
        steps.queueWake.push(model.start - submit.t);
        steps.model.push(model.end - model.start);
        steps.toSocket.push(w.t - model.end);
        steps.client.push(request.t - lastReply.t);
      }
      lastReply = w;
      request = undefined;
      submit = undefined;
    }
  }
  const out = { cycles: steps.wake.length };
  for (const [k, xs] of Object.entries(steps)) {
    out[k] = median(xs);
    out[`${k}Mean`] = xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length;
  }
  return out;
}

const results = [];
for (const name of servers) {
  console.log(`bench:threads: ${name}`);
  const server = await startServer(name, { root, env, repo, ports });
  for (const row of rows) {
    const { figures, timehist, analyzerPid } = await record(row);
    const parsed = parseTimehist(timehist);
    const threads = perThread(parsed.slices);
    const inferences = (figures.throughput ?? 0) * windowS;
    const names = threadsOf(server.pid);
    const perInference = (us) => inferences > 0 ? us / inferences : undefined;
    const table = [...groups(threads, server.pid, analyzerPid, names, inferences / 10)].map((
      [group, g],
    ) => ({
      group,
      threads: g.threads.size,
      run: perInference(g.run),
      delay: perInference(g.delay),
      switches: inferences > 0 ? g.slices / inferences : undefined,
    })).sort((a, b) => (b.run ?? 0) - (a.run ?? 0));
    const path = row.concurrency === 1 ? cycles(parsed, server.pid, analyzerPid) : undefined;
    results.push({ server: name, ...row, figures, idle: perInference(parsed.idle), table, path });
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
const paths = results.filter((r) => r.path);
if (paths.length > 0) {
  const labels = [
    ["wake", "perf_analyzer's request → the server's thread on a CPU"],
    ["toQueue", "… → a Triton thread woken (the request queued)"],
    ["queueWake", "… → that Triton thread on a CPU"],
    ["model", "… the Triton thread's run (the model, the response callback)"],
    ["toSocket", "… → the response written (perf_analyzer woken)"],
    ["client", "perf_analyzer's turn, until its next request"],
  ];
  const names = paths.map((r) => `${r.server} ${r.protocol.toUpperCase()}`);
  md.push(
    "### A request's path at concurrency 1 (medians, µs)",
    "",
    `| step | ${names.join(" | ")} |`,
    `| --- | ${names.map(() => "---:").join(" | ")} |`,
    ...labels.map(([k, label]) =>
      `| ${label} | ${paths.map((r) => fmt(r.path[k], 1)).join(" | ")} |`
    ),
    `| the whole cycle (1 / throughput) | ${
      paths.map((r) => fmt(1e6 / r.figures.throughput, 1)).join(" | ")
    } |`,
    `| cycles seen | ${paths.map((r) => r.path.cycles).join(" | ")} |`,
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
