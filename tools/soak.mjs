// A soak of examples/serve.ts on a real core, not part of CI: it starts the server on one runtime,
// loads it with Triton's perf_analyzer for SOAK_MINUTES, rotating through phases (HTTP and gRPC
// unary identity_int32 at [1,16] and 1 MiB, gRPC streams of the decoupled repeat_int32 and
// sleep_stream), samples the serving process's RSS, open descriptors and threads once a second,
// and checks the targets: RSS grows at most 1 MiB per minute after the warm-up, descriptors and
// threads return to their idle counts once the load stops, and no request fails. Exits 1 when a
// target is missed (2 when it cannot run).
//
// Needs a real core (Triton's container, or TRITONSERVER_LIB) and Triton's perf_analyzer:
//
//   . ../triton-real/env.sh && SOAK_RUNTIME=deno node_modules/.bin/node tools/soak.mjs
//
// Environment:
//   SOAK_RUNTIME        deno, bun or node (default node): the runtime that runs examples/serve.ts
//   SOAK_MINUTES        minutes of load in all (default 10); the idle checks add about 30 s
//   SOAK_OUT            the JSON report (default bench/results/soak-<runtime>.json)
//   MODEL_REPOSITORY    the models served (default tests/models; it needs identity_int32,
//                       repeat_int32 and sleep_stream, and a phase whose model is absent is skipped)
//   PERF_ANALYZER       the perf_analyzer binary
//   TRITONSERVER_LIB, TRITONSERVER_BACKEND_DIR   the core and its backends (in Triton's
//                       container /opt/tritonserver/lib/libtritonserver.so and its backends)
//
// How it measures:
// - idle before: the median of the last 5 samples after 10 s idle, once the server listens;
// - phases last max(10 s, min(2 min, 20 % of the run) / 6) each and loop until the time is up;
//   inside a phase perf_analyzer runs back to back (measurement interval about a third of what
//   is left of the phase, --stability-percentage 50, --max-trials 4), and a run still going 2 s
//   after its phase's end is stopped with SIGINT (it finishes its requests in flight; its figures
//   are then lost, not the server's counts);
// - warm-up: whole rotations through the phases (every phase's working set reached) until
//   min(2 min, 20 %) has passed; the RSS slope is the least-squares fit, in MiB per minute, over
//   the samples after it up to the end of the last whole rotation (runs too short for that: from
//   half-way to the end);
// - idle after: the load stops, 10 s idle, then the same median; descriptors or threads still
//   above their idle counts get up to 20 s more to settle;
// - errors: a perf_analyzer run that exits non-zero or prints a line with "error" or "failed"
//   (its own "Failed to obtain stable measurement" is counted apart as unstable: a verdict on the
//   machine, not the server), requests the server's statistics count as failed, the server
//   exiting during the soak or not exiting cleanly on SIGINT at the end;
// - inferences and responses per second come from the server's statistics (/v2/models/stats)
//   before and after each phase (a decoupled model's responses from perf_analyzer's rate when
//   its backend does not report them); perf_analyzer's own figures are kept beside them.
//
// Plain Node ESM.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import net from "node:net";
import { loadavg, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runtimeCommand } from "../tests/runtime_command.mjs";
import { median } from "../bench/stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };
const runtime = env.SOAK_RUNTIME ?? "node";
const minutes = Number(env.SOAK_MINUTES ?? 10);
const repository = resolve(env.MODEL_REPOSITORY ?? join(root, "tests/models"));
const outFile = env.SOAK_OUT ?? join(root, "bench", "results", `soak-${runtime}.json`);
const perf = env.PERF_ANALYZER;

if (!["deno", "bun", "node"].includes(runtime)) fail(`SOAK_RUNTIME: deno, bun or node`);
if (!(minutes > 0)) fail(`SOAK_MINUTES: a number of minutes above 0`);
if (!perf || !existsSync(perf)) fail("PERF_ANALYZER must name Triton's perf_analyzer binary");
if (!env.TRITONSERVER_LIB && existsSync("/opt/tritonserver/lib/libtritonserver.so")) {
  env.TRITONSERVER_LIB = "/opt/tritonserver/lib/libtritonserver.so";
  env.TRITONSERVER_BACKEND_DIR ??= "/opt/tritonserver/backends";
}
if (!env.TRITONSERVER_LIB) {
  fail(
    "a real core is needed: TRITONSERVER_LIB (and TRITONSERVER_BACKEND_DIR), or Triton's container",
  );
}

/** Says why nothing ran, and exits 2. */
function fail(why) {
  console.error(`soak: ${why}; nothing ran`);
  process.exit(2);
}

const SECOND = 1000;
const IDLE_MS = 10 * SECOND; // idle before the load and after it
const SETTLE_MS = 20 * SECOND; // more time for descriptors and threads to settle after it
const MAX_SLOPE = 1; // MiB per minute after the warm-up
const MIN_INTERVAL_MS = 2000; // perf_analyzer's shortest measurement interval here
const MIN_RUN_MS = 3 * MIN_INTERVAL_MS + 1500; // a run: three windows and its start
// A window can last far longer than its interval (perf_analyzer closes it only once its own
// bookkeeping is done: 15–80 s with 1 MiB tensors on a loaded 2-core machine, against tritonserver
// too): a run still going this long after its phase's end is stopped with SIGINT, which finishes
// the requests in flight; one that has not exited a minute later is killed and counted an error.
const STOP_GRACE_MS = 2000;
const EXIT_WAIT_MS = 60 * SECOND;

const loadMs = minutes * 60 * SECOND;
const phaseMs = Math.max(10 * SECOND, Math.min(120 * SECOND, loadMs * 0.2) / 6);

// ---- the phases ----------------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), "tritonffi-soak-"));
const sleepData = join(work, "sleep_stream.json");
writeFileSync(sleepData, JSON.stringify({ data: [{ COUNT: [8], DELAY_MS: [10] }] }));
const [httpPort, grpcPort] = await freePorts(2);
const HTTP = `127.0.0.1:${httpPort}`;
const GRPC = `127.0.0.1:${grpcPort}`;

/** perf_analyzer's arguments for `model` over `protocol` at `concurrency`, and `extra`. */
function load(protocol, model, concurrency, extra = []) {
  const url = protocol === "http" ? HTTP : GRPC;
  const range = `${concurrency}:${concurrency}`;
  return ["-i", protocol, "-u", url, "-m", model, "--concurrency-range", range, ...extra];
}
const small = ["--shape", "INPUT0:16"]; // [1,16] INT32
const large = ["--shape", "INPUT0:262144"]; // [1,262144] INT32: 1 MiB each way
const streaming = ["--async", "--streaming", "true"];
const PHASES = [
  {
    name: "HTTP identity_int32 [1,16] c8",
    model: "identity_int32",
    args: load("http", "identity_int32", 8, small),
  },
  {
    name: "gRPC identity_int32 [1,16] c8",
    model: "identity_int32",
    args: load("grpc", "identity_int32", 8, small),
  },
  {
    name: "HTTP identity_int32 1 MiB c4",
    model: "identity_int32",
    args: load("http", "identity_int32", 4, large),
  },
  {
    name: "gRPC identity_int32 1 MiB c4",
    model: "identity_int32",
    args: load("grpc", "identity_int32", 4, large),
  },
  {
    name: "gRPC stream repeat_int32 ×4 c8",
    model: "repeat_int32",
    decoupled: true,
    // Random data would put huge DELAYs in: zeros, 4 responses a request at once.
    args: load("grpc", "repeat_int32", 8, [
      ...streaming,
      "--shape",
      "IN:4",
      "--shape",
      "DELAY:4",
      "--input-data",
      "zero",
    ]),
  },
  {
    name: "gRPC stream sleep_stream ×8 c8",
    model: "sleep_stream",
    decoupled: true,
    args: load("grpc", "sleep_stream", 8, [...streaming, "--input-data", sleepData]),
  },
];

// ---- the server ------------------------------------------------------------------------------

const [cmd, args] = runtimeCommand(root, runtime, "examples/serve.ts", {
  deno: ["--allow-net", "--unstable-no-legacy-abort"],
});
const serverLog = [];
const child = spawn(cmd, args, {
  cwd: root,
  env: {
    ...env,
    MODEL_REPOSITORY: repository,
    PORT: String(httpPort),
    GRPC_PORT: String(grpcPort),
    HOST: "127.0.0.1",
  },
  stdio: ["ignore", "pipe", "pipe"],
});
let serverExit; // set when the server exits: { code, signal, at }
let stopping = false;
const exited = new Promise((resolve) => {
  child.on("exit", (code, signal) => {
    serverExit = { code, signal, at: new Date().toISOString(), whileStopping: stopping };
    resolve(serverExit);
  });
});
let listening;
const listeningLine = new Promise((resolve) => (listening = resolve));
for (const stream of [child.stdout, child.stderr]) {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      serverLog.push(line);
      if (serverLog.length > 200) serverLog.shift();
      if (line.startsWith("KServe v2 on ")) listening();
    }
  });
}
let perfChild; // the perf_analyzer run in progress
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    perfChild?.kill("SIGTERM");
    child.kill("SIGINT");
    rmSync(work, { recursive: true, force: true });
    process.exit(130);
  });
}

console.log(
  `soak: ${runtime} serving ${repository} on ${HTTP} (HTTP) and ${GRPC} (gRPC), core ` +
    `${env.TRITONSERVER_LIB}; ${minutes} min of load, phases of ${Math.round(phaseMs / SECOND)} s`,
);
const started = await Promise.race([
  listeningLine.then(() => true),
  exited.then(() => false),
  sleep(300 * SECOND).then(() => false),
]);
if (!started || !(await ready())) {
  console.error(`soak: the server did not start; its output:\n${serverLog.join("\n")}`);
  child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
  process.exit(2);
}
const pid = servingPid(child.pid);
const serverExe = exeName(pid);
console.log(`soak: serving process ${pid} (${serverExe}), spawned ${child.pid}`);

// ---- sampling ---------------------------------------------------------------------------------

const t0 = Date.now(); // the samples' times are seconds from here (the load starts after idle)
const samples = []; // { t, rss (MiB), fds, threads, phase }
let phaseName = "idle before";
const sampler = setInterval(sample, SECOND);
sample();

/** One sample of the serving process: RSS, open descriptors, threads. */
function sample() {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(status)?.[1]);
    samples.push({
      t: round((Date.now() - t0) / SECOND, 1),
      rss: round(field("VmRSS") / 1024, 2),
      fds: readdirSync(`/proc/${pid}/fd`).length,
      threads: field("Threads"),
      phase: phaseName,
    });
  } catch {
    // the process is gone: serverExit says so
  }
}

/** The median RSS, descriptors and threads of the last `n` samples. */
function settled(n = 5) {
  const last = samples.slice(-n);
  return {
    rss: median(last.map((s) => s.rss)),
    fds: median(last.map((s) => s.fds)),
    threads: median(last.map((s) => s.threads)),
  };
}

// ---- idle before --------------------------------------------------------------------------

await sleep(IDLE_MS);
const idleBefore = settled();
console.log(
  `soak: idle before: RSS ${idleBefore.rss} MiB, ${idleBefore.fds} descriptors, ` +
    `${idleBefore.threads} threads`,
);
const present = new Set();
for (const m of new Set(PHASES.map((p) => p.model))) {
  if (await ready(m)) present.add(m);
  else console.log(`soak: ${m} is not ready in ${repository}: its phases are skipped`);
}
const phases = PHASES.filter((p) => present.has(p.model));

// ---- the load ---------------------------------------------------------------------------------

const errors = []; // { phase, what }
const phaseRuns = []; // one entry per phase run
let unstable = 0;
let interrupted = 0; // runs stopped at their phase's end
const loadStart = Date.now();
const loadEnd = loadStart + loadMs;
const loadStartT = (loadStart - t0) / SECOND;
for (let i = 0; phases.length > 0 && !serverExit && loadEnd - Date.now() >= MIN_RUN_MS; i++) {
  const phase = phases[i % phases.length];
  const phaseEnd = Math.min(Date.now() + phaseMs, loadEnd);
  phaseName = phase.name;
  const before = await statistics();
  const start = Date.now();
  const runs = [];
  while (!serverExit && phaseEnd - Date.now() >= MIN_RUN_MS) {
    const interval = Math.round(
      Math.min(15_000, Math.max(MIN_INTERVAL_MS, (phaseEnd - Date.now() - 1500) / 3)),
    );
    const run = await perfRun(phase.args, interval, phaseEnd + STOP_GRACE_MS);
    runs.push(run);
    unstable += run.unstable ? 1 : 0;
    interrupted += run.interrupted ? 1 : 0;
    for (const what of run.errors) errors.push({ phase: phase.name, what });
  }
  const seconds = (Date.now() - start) / SECOND;
  const after = await statistics();
  const count = delta(before, after, phase.model, phase.decoupled);
  const perfAnalyzer = {
    inferPerSec: median(runs.map((r) => r.throughput)),
    responsesPerSec: median(runs.map((r) => r.responses ?? r.throughput)),
    p50us: median(runs.map((r) => r.p50)),
  };
  // Responses the server does not count: perf_analyzer's rate over the phase.
  const responses = count.responses ?? Math.round((perfAnalyzer.responsesPerSec ?? 0) * seconds);
  if (count.failed > 0) {
    errors.push({ phase: phase.name, what: `the server counted ${count.failed} failed requests` });
  }
  const record = {
    phase: phase.name,
    rotation: Math.floor(i / phases.length) + 1,
    start: round((start - t0) / SECOND, 1),
    seconds: round(seconds, 1),
    runs: runs.length,
    inferences: count.inferences,
    responses,
    responsesFrom: count.responses === undefined ? "perf_analyzer" : "server",
    inferPerSec: round(count.inferences / seconds, 1),
    responsesPerSec: round(responses / seconds, 1),
    perfAnalyzer,
    failedRuns: runs.filter((r) => r.errors.length > 0).length,
  };
  phaseRuns.push(record);
  console.log(
    `soak: ${fmtTime(record.start - loadStartT)} ${phase.name}: ${runs.length} runs, ` +
      `${record.inferPerSec} infer/s, ${record.responsesPerSec} responses/s, RSS ` +
      `${samples.at(-1)?.rss} MiB, ${samples.at(-1)?.fds} fds, ${samples.at(-1)?.threads} threads` +
      (record.failedRuns > 0 ? `, ${record.failedRuns} failed runs` : ""),
  );
}
const loadEndT = (Date.now() - t0) / SECOND;
if (serverExit) {
  errors.push({ phase: phaseName, what: `the server exited: ${describe(serverExit)}` });
}

// ---- idle after -------------------------------------------------------------------------------

phaseName = "idle after";
if (!serverExit) await sleep(IDLE_MS);
// A server that exited has no idle counts after.
const gone = { rss: undefined, fds: undefined, threads: undefined };
let idleAfter = serverExit ? gone : settled();
const idleAfter10s = idleAfter;
let settleSeconds = IDLE_MS / SECOND;
for (
  let waited = 0;
  !serverExit && waited < SETTLE_MS &&
  (idleAfter.fds > idleBefore.fds || idleAfter.threads > idleBefore.threads);
  waited += SECOND
) {
  await sleep(SECOND);
  idleAfter = settled(3);
  settleSeconds += 1;
}
clearInterval(sampler);
if (serverExit) idleAfter = gone;

// ---- stop -------------------------------------------------------------------------------------

stopping = true;
if (!serverExit) {
  child.kill("SIGINT");
  const done = await Promise.race([exited, sleep(60 * SECOND).then(() => undefined)]);
  if (!done) {
    child.kill("SIGKILL");
    await exited;
    errors.push({ phase: "stop", what: "the server did not stop within 60 s of SIGINT" });
  } else if (done.code !== 0) {
    errors.push({ phase: "stop", what: `the server's exit on SIGINT: ${describe(done)}` });
  }
}
rmSync(work, { recursive: true, force: true });

// ---- the report -------------------------------------------------------------------------------

const during = samples.filter((s) => s.t >= loadStartT && s.t <= loadEndT);
const loadSeconds = loadEndT - loadStartT;
// The warm-up and the fit span whole rotations, so that every phase weighs the same in the
// slope (a 1 MiB phase's transient RSS at the end alone would tilt it by more than the target):
// the warm-up ends with the first rotation that ends after min(2 min, 20 %), and the fit ends
// with the last complete rotation. A run too short for that (the warm-up past half of it) fits
// from half-way to the end.
const rotationEnds = phaseRuns
  .filter((_, i) => (i + 1) % phases.length === 0)
  .map((p) => p.start + p.seconds - loadStartT);
const warmupTarget = Math.min(120, 0.2 * loadSeconds);
let warmupSeconds = rotationEnds.find((t) => t >= warmupTarget) ?? Infinity;
let fitEndSeconds = rotationEnds.at(-1) ?? 0;
if (warmupSeconds > 0.5 * loadSeconds || fitEndSeconds - warmupSeconds < 60) {
  warmupSeconds = Math.min(Math.max(warmupTarget, warmupSeconds), 0.5 * loadSeconds);
  fitEndSeconds = loadSeconds;
}
const afterWarmup = during.filter((s) =>
  s.t >= loadStartT + warmupSeconds && s.t <= loadStartT + fitEndSeconds
);
const around = (t) => median(during.filter((s) => Math.abs(s.t - t) <= 2.5).map((s) => s.rss));
const slope = leastSquares(afterWarmup.map((s) => [(s.t - loadStartT) / 60, s.rss]));
const inferences = phaseRuns.reduce((sum, p) => sum + p.inferences, 0);
const responses = phaseRuns.reduce((sum, p) => sum + p.responses, 0);
const byPhase = phases.map((p) => {
  const runs = phaseRuns.filter((r) => r.phase === p.name);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  const n = runs.reduce((sum, r) => sum + r.inferences, 0);
  const rs = runs.reduce((sum, r) => sum + r.responses, 0);
  return {
    phase: p.name,
    times: runs.length,
    seconds: round(seconds, 1),
    inferences: n,
    inferPerSec: seconds > 0 ? round(n / seconds, 1) : undefined,
    responsesPerSec: seconds > 0 ? round(rs / seconds, 1) : undefined,
    responsesFrom: runs[0]?.responsesFrom,
    perfAnalyzerResponsesPerSec: median(runs.map((r) => r.perfAnalyzer.responsesPerSec)),
    errors: errors.filter((e) => e.phase === p.name).length,
  };
});
const rss = {
  idleBefore: idleBefore.rss,
  afterWarmup: around(loadStartT + warmupSeconds),
  end: median(during.slice(-5).map((s) => s.rss)),
  peak: Math.max(...during.map((s) => s.rss)),
  idleAfter: idleAfter.rss,
  slopeMiBPerMin: slope === undefined ? undefined : round(slope, 3),
  slopeSamples: afterWarmup.length,
  slopeFrom: round(warmupSeconds, 1),
  slopeTo: round(fitEndSeconds, 1),
};
const targets = {
  rssSlope: slope !== undefined && afterWarmup.length >= 10 && slope <= MAX_SLOPE,
  fds: idleAfter.fds !== undefined && idleAfter.fds <= idleBefore.fds,
  threads: idleAfter.threads !== undefined && idleAfter.threads <= idleBefore.threads,
  errors: errors.length === 0,
  ran: phaseRuns.length > 0 && inferences > 0,
};
const pass = Object.values(targets).every(Boolean);
const report = {
  date: new Date().toISOString(),
  runtime,
  core: env.TRITONSERVER_LIB,
  repository,
  minutes,
  durationSeconds: round(loadSeconds, 1),
  // samples[].t and phases[].start count from the first sample; the load starts here:
  loadStartSeconds: round(loadStartT, 1),
  phaseSeconds: round(phaseMs / SECOND, 1),
  warmupSeconds: round(warmupSeconds, 1),
  phasesRun: phaseRuns.length,
  rotations: phaseRuns.at(-1)?.rotation ?? 0,
  inferences,
  responses,
  errors,
  unstableRuns: unstable,
  interruptedRuns: interrupted,
  rss,
  fds: { idleBefore: idleBefore.fds, idleAfter10s: idleAfter10s.fds, idleAfter: idleAfter.fds },
  threads: {
    idleBefore: idleBefore.threads,
    idleAfter10s: idleAfter10s.threads,
    idleAfter: idleAfter.threads,
  },
  idleAfterSeconds: settleSeconds,
  server: { pid, exe: serverExe, exit: serverExit },
  loadAverage: loadavg()[0],
  targets,
  pass,
  byPhase,
  phases: phaseRuns,
  samples,
  serverLogTail: errors.length > 0 ? serverLog.slice(-50) : undefined,
};
mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(outFile, JSON.stringify(report, null, 2) + "\n");

const mark = (ok) => (ok ? "ok  " : "MISS");
const orGone = (n) => (n === undefined ? "— (the server exited)" : n);
const lines = [
  "",
  `soak: ${runtime}, ${fmtTime(loadSeconds)} of load, ${phaseRuns.length} phases (` +
  `${report.rotations} rotations of ${phases.length}, ${report.phaseSeconds} s each), ` +
  `${inferences.toLocaleString("en")} inferences, ${responses.toLocaleString("en")} responses, ` +
  `${errors.length} errors; perf_analyzer runs: ${phaseRuns.reduce((n, p) => n + p.runs, 0)}, ` +
  `${unstable} unstable, ${interrupted} stopped at their phase's end`,
  ...byPhase.map((p) =>
    p.times === 0
      ? `  ${p.phase.padEnd(32)}   not run`
      : `  ${p.phase.padEnd(32)} ${String(p.times).padStart(3)}× ` +
        `${String(p.inferPerSec).padStart(8)} infer/s ` +
        `${String(p.responsesPerSec).padStart(8)} responses/s` +
        `${p.responsesFrom === "perf_analyzer" ? "¹" : " "} ` +
        `(perf_analyzer ${p.perfAnalyzerResponsesPerSec ?? "—"})`
  ),
  "  ¹ perf_analyzer's rate: the server does not count this model's responses",
  `  RSS (MiB): idle ${rss.idleBefore}, after the ${fmtTime(warmupSeconds)} warm-up ` +
  `${rss.afterWarmup}, end ${rss.end}, peak ${rss.peak}, idle after ${orGone(rss.idleAfter)}`,
  `${mark(targets.rssSlope)} RSS slope after the warm-up: ${rss.slopeMiBPerMin ?? "—"} ` +
  `MiB/min over ${rss.slopeSamples} samples, ${fmtTime(warmupSeconds)}–` +
  `${fmtTime(fitEndSeconds)} (target ≤ ${MAX_SLOPE})`,
  `${mark(targets.fds)} descriptors: idle ${idleBefore.fds} before, ${
    orGone(idleAfter.fds)
  } after ` +
  `${settleSeconds} s idle`,
  `${mark(targets.threads)} threads: idle ${idleBefore.threads} before, ` +
  `${orGone(idleAfter.threads)} after ${settleSeconds} s idle`,
  `${mark(targets.errors)} errors: ${errors.length}`,
  ...errors.slice(0, 10).map((e) => `       ${e.phase}: ${e.what}`),
  ...(targets.ran ? [] : ["MISS nothing ran"]),
  `soak: ${pass ? "PASS" : "FAIL"}; report in ${outFile}`,
];
console.log(lines.join("\n"));
if (errors.length > 0) console.log(`the server's last lines:\n${serverLog.slice(-20).join("\n")}`);
process.exit(pass ? 0 : 1);

// ---- helpers ----------------------------------------------------------------------------------

/** One perf_analyzer run with measurement windows of `interval` ms, stopped at `deadline`. */
function perfRun(args, interval, deadline) {
  return new Promise((resolve) => {
    const full = [
      ...args,
      "--measurement-interval",
      String(interval),
      "--stability-percentage",
      "50",
      "--max-trials",
      "4",
    ];
    let out = "";
    const p = spawn(perf, full, { stdio: ["ignore", "pipe", "pipe"] });
    perfChild = p;
    const keep = (chunk) => {
      out += chunk;
      if (out.length > 1_000_000) out = out.slice(-500_000);
    };
    p.stdout.setEncoding("utf8").on("data", keep);
    p.stderr.setEncoding("utf8").on("data", keep);
    let interrupted = false;
    let killed = false;
    let killTimer;
    const stopTimer = setTimeout(() => {
      interrupted = true;
      p.kill("SIGINT");
      killTimer = setTimeout(() => {
        killed = true;
        p.kill("SIGKILL");
      }, EXIT_WAIT_MS);
    }, Math.max(0, deadline - Date.now()));
    const finish = (code, signal, spawnError) => {
      clearTimeout(stopTimer);
      clearTimeout(killTimer);
      perfChild = undefined;
      const lines = out.split("\n").map((l) => l.trim()).filter(Boolean);
      const stability = /Failed to obtain stable measurement/i;
      const unstable = lines.some((l) => stability.test(l));
      const errors = [
        ...new Set(lines.filter((l) => /error|failed/i.test(l) && !stability.test(l))),
      ];
      if (spawnError) errors.push(`perf_analyzer did not start: ${spawnError.message}`);
      else if (killed) {
        errors.push(`perf_analyzer still ran ${EXIT_WAIT_MS / SECOND} s after SIGINT`);
      } else if (code !== 0 && !interrupted && !(unstable && errors.length === 0)) {
        errors.push(`perf_analyzer exited ${code ?? signal}: ${lines.slice(-2).join(" ")}`);
      }
      const num = (re) => {
        const m = re.exec(out);
        return m ? Number(m[1]) : undefined;
      };
      resolve({
        code,
        interrupted,
        unstable,
        errors,
        throughput: num(/^\s*Throughput: ([\d.]+) infer\/sec/m),
        responses: num(/Response Throughput: ([\d.]+)/),
        p50: num(/p50 latency: (\d+) usec/),
      });
    };
    p.on("error", (e) => finish(null, null, e));
    p.on("close", (code, signal) => finish(code, signal));
  });
}

/** GET `path` from the server over a connection of its own, closed after (so that it leaves no
 * descriptor behind in the server); undefined on any failure. */
function get(path) {
  return new Promise((resolve) => {
    const req = http.get(
      { host: "127.0.0.1", port: httpPort, path, agent: false, headers: { connection: "close" } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode, body }));
      },
    );
    req.setTimeout(30 * SECOND, () => req.destroy());
    req.on("error", () => resolve(undefined));
  });
}

/** Whether the server (or the model `model`) answers ready. */
async function ready(model) {
  const r = await get(model ? `/v2/models/${model}/ready` : "/v2/health/ready");
  return r?.status === 200;
}

/** The server's statistics per model name: inferences, responses, failures. */
async function statistics() {
  const r = await get("/v2/models/stats");
  const byName = new Map();
  let stats = [];
  try {
    stats = JSON.parse(r?.body ?? "{}").model_stats ?? [];
  } catch {
    // counted as nothing
  }
  for (const s of stats) {
    const e = byName.get(s.name) ??
      { inferences: 0, responses: 0, failed: 0, responsesCounted: false };
    const success = s.inference_stats?.success?.count ?? 0;
    e.inferences += success;
    e.failed += s.inference_stats?.fail?.count ?? 0;
    const perIndex = Object.values(s.response_stats ?? {});
    // A decoupled model's responses are counted by index when its backend reports them (the
    // python backend does; identity and repeat do not); others send one per success.
    e.responsesCounted ||= perIndex.length > 0;
    e.responses += perIndex.length > 0
      ? perIndex.reduce((sum, x) => sum + (x.success?.count ?? 0), 0)
      : success;
    e.failed += perIndex.reduce((sum, x) => sum + (x.fail?.count ?? 0), 0);
    byName.set(s.name, e);
  }
  return byName;
}

/** What the server counted for `model` between two statistics; responses undefined for a
 * decoupled model whose responses the server does not count. */
function delta(before, after, model, decoupled) {
  const b = before.get(model) ?? { inferences: 0, responses: 0, failed: 0 };
  const a = after.get(model) ?? b;
  return {
    inferences: a.inferences - b.inferences,
    responses: decoupled && !a.responsesCounted ? undefined : a.responses - b.responses,
    failed: a.failed - b.failed,
  };
}

/** The process that serves: the deepest deno, bun or node process under `top` (a wrapper may
 * start the runtime as its child; Triton's Python stubs are its children too, and skipped). */
function servingPid(top) {
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // gone
    }
  }
  let best = top;
  let bestDepth = /^(deno|bun|node)(\.exe)?$/.test(exeName(top)) ? 0 : -1;
  const walk = (p, depth) => {
    for (const c of children.get(p) ?? []) {
      if (/^(deno|bun|node)(\.exe)?$/.test(exeName(c)) && depth + 1 > bestDepth) {
        best = c;
        bestDepth = depth + 1;
      }
      walk(c, depth + 1);
    }
  };
  walk(top, 0);
  return best;
}

/** The name of `pid`'s executable. */
function exeName(pid) {
  try {
    return basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    return "?";
  }
}

/** `n` distinct free TCP ports on 127.0.0.1. */
async function freePorts(n) {
  const servers = [];
  for (let i = 0; i < n; i++) {
    const s = net.createServer();
    await new Promise((resolve) => s.listen(0, "127.0.0.1", resolve));
    servers.push(s);
  }
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** The least-squares slope of `points` ([x, y]); undefined with fewer than two distinct x. */
function leastSquares(points) {
  if (points.length < 2) return undefined;
  const mx = points.reduce((s, [x]) => s + x, 0) / points.length;
  const my = points.reduce((s, [, y]) => s + y, 0) / points.length;
  let sxy = 0;
  let sxx = 0;
  for (const [x, y] of points) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  }
  return sxx > 0 ? sxy / sxx : undefined;
}

function describe(exit) {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function round(x, digits) {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function fmtTime(seconds) {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
