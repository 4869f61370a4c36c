// `npm run bench`: builds the C reference client (and the fake core when no real library is
// given), runs it and bench/bench.ts on Deno, Bun and Node against the same libtritonserver.so,
// and, when TRITONSERVER_PYTHON names an interpreter that can `import tritonserver`, the same
// scenarios through Triton's in-process Python API (bench/python_api.py) on the same library;
// then writes bench/results/<core>.json, <core>.md (the tables, also printed) and <core>.svg (a
// chart of them).
//
// The real core is used when TRITONSERVER_LIB and TRITONSERVER_BACKEND_DIR are set; otherwise
// the project's fake core (tests/fake_core, built into .build/fake_core/). Plain Node ESM.
//
// Environment: BENCH_DURATION_MS (per timed run, default 1000), BENCH_RUNTIMES (default
// "deno,bun,node"), BENCH_ROUNDS (alternating rounds, medians kept with every run; default 5),
// TRITONSERVER_PYTHON, BENCH_OCR (off: no OCR scenarios at the end).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadavg } from "node:os";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { machine, table } from "./table.mjs";
import { chart } from "./chart.mjs";
import { medianOf } from "./stats.mjs";
import { buildNativeClient } from "./native/build.mjs";
import { runtimeCommand, toolchainBin } from "../tests/runtime_command.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const build = join(root, ".build", "bench");
const results = join(root, "bench", "results");
mkdirSync(build, { recursive: true });
mkdirSync(results, { recursive: true });
const env = { ...process.env };
const ms = env.BENCH_DURATION_MS ?? "1000";
const rounds = Number(env.BENCH_ROUNDS ?? 5);
const models = join(root, "tests", "models");
const started = Date.now();
// Other work on the machine moves every figure: the report keeps the 1-minute load average.
const loadAtStart = loadavg()[0];

function spawn(cmd, args, extraEnv, stderr) {
  return spawnSync(cmd, args, {
    cwd: root,
    env: { ...env, ...extraEnv },
    encoding: "utf8",
    stdio: ["ignore", "pipe", stderr],
    timeout: 5 * 60_000,
    maxBuffer: 64 << 20,
  });
}

function run(cmd, args, extraEnv = {}) {
  const r = spawn(cmd, args, extraEnv, "inherit");
  if (r.status !== 0) {
    console.error(`bench: ${cmd} ${args.join(" ")} failed (${r.status ?? r.signal})`);
    process.stdout.write(r.stdout ?? "");
    process.exit(1);
  }
  return r.stdout;
}

// ---- the core ----
let core;
if (env.TRITONSERVER_LIB && env.TRITONSERVER_BACKEND_DIR) {
  core = "real";
} else {
  run(toolchainBin(root, "node"), [join(root, "tests/fake_core/build.mjs")]);
  env.TRITONSERVER_LIB = join(root, ".build/fake_core/libtritonserver.so");
  env.TRITONSERVER_BACKEND_DIR ??= join(root, ".build/fake_core");
  core = "fake";
}
console.log(`bench: ${core} core ${env.TRITONSERVER_LIB}`);

// ---- the C reference client ----
let client;
try {
  client = buildNativeClient();
} catch (e) {
  console.error(`bench: ${e.message}`);
  process.exit(1);
}

function native(sections) {
  const out = run(client, [
    env.TRITONSERVER_LIB,
    models,
    env.TRITONSERVER_BACKEND_DIR,
    ms,
    sections,
  ]);
  return JSON.parse(out);
}

// ---- the binding on each runtime ----
const runtimes = Object.fromEntries(
  ["deno", "bun", "node"].map((name) => [name, runtimeCommand(root, name, "bench/bench.ts")]),
);
const only = (env.BENCH_RUNTIMES ?? "deno,bun,node").split(",");

function binding(name, extraEnv) {
  const file = join(build, `${name}.json`);
  const [cmd, args] = runtimes[name];
  run(cmd, args, { BENCH_OUT: file, BENCH_DURATION_MS: ms, ...extraEnv });
  return JSON.parse(readFileSync(file, "utf8"));
}

// ---- Triton's Python API, when there is an interpreter for it ----
const pythonScript = join(root, "bench", "python_api.py");
/** What the Python API column is: `ran` once it has figures, `note` says why not otherwise. */
const python = { ran: false, note: "TRITONSERVER_PYTHON not set", runs: [] };

/** The last non-empty line of a child's stderr (or its error), for a note. */
function lastLine(r) {
  const lines = (r.stderr ?? "").split("\n").map((l) => l.trim()).filter((l) => l !== "");
  return lines.at(-1) ?? r.error?.message ?? `exit ${r.status ?? r.signal}`;
}

if (env.TRITONSERVER_PYTHON) {
  const r = spawn(env.TRITONSERVER_PYTHON, [pythonScript, "--check"], {}, "pipe");
  if (r.status === 0) {
    python.version = r.stdout.trim();
    python.note = undefined;
  } else {
    python.note = `${env.TRITONSERVER_PYTHON} cannot import tritonserver: ${lastLine(r)}`;
  }
  console.log(`bench: Python API: ${python.version ?? `not run (${python.note})`}`);
}

/** One run of bench/python_api.py; a failure is noted and ends the column (the bench goes on). */
function pythonApi() {
  const file = join(build, "python.json");
  const r = spawn(env.TRITONSERVER_PYTHON, [pythonScript], {
    BENCH_OUT: file,
    BENCH_DURATION_MS: ms,
    BENCH_MODELS: models,
  }, "pipe");
  process.stderr.write(r.stderr ?? "");
  if (r.status !== 0) {
    python.failed = `failed${python.ran ? " in a later round" : ""}: ${lastLine(r)}`;
    console.error(`bench: Python API ${python.failed}`);
    return;
  }
  const out = JSON.parse(readFileSync(file, "utf8"));
  python.ran = true;
  python.library = out.library;
  python.runs.push(out.scenarios);
  const same = (a, b) => {
    try {
      return realpathSync(a) === realpathSync(b);
    } catch {
      return false;
    }
  };
  if (!same(out.library ?? "", env.TRITONSERVER_LIB)) {
    python.note = `ran on ${out.library ?? "an unknown library"}, not on TRITONSERVER_LIB`;
  }
}
const pythonRuns = () => python.version !== undefined && python.failed === undefined;

// Each round runs the C client's hand-off mode, then every runtime, then the Python API, so that
// load from elsewhere on the machine falls on every column alike; C runs once more at the end.
// Every run is kept; the report's figures are the medians over the rounds. The scaling rows
// (bench/inference.ts) are the C client's hand-off mode and the bindings only. The first C run also
// measures the raw calls, the memcpy and the direct mode; each runtime's first run its raw calls,
// big output and memory.
let first;
const handoffRuns = [];
const scalingRuns = [];
const runs = Object.fromEntries(only.map((name) => [name, []]));
const handoff = (when) => {
  console.log(`bench: ${when}: C client`);
  const r = native(
    first === undefined ? "micro,bigOutput,handoff,direct,scaling" : "handoff,scaling",
  );
  first ??= r;
  handoffRuns.push(r.handoff);
  scalingRuns.push(r.scaling);
};
for (let round = 1; round <= rounds; round++) {
  handoff(`round ${round}/${rounds}`);
  for (const name of only) {
    console.log(`bench: round ${round}/${rounds}: ${name}`);
    runs[name].push(binding(name, round === 1 ? {} : { BENCH_ONLY: "floor,scenarios,scaling" }));
  }
  if (pythonRuns()) {
    console.log(`bench: round ${round}/${rounds}: Python API`);
    pythonApi();
  }
}
handoff("after the last round");
const js = Object.fromEntries(only.map((name) => [name, {
  ...runs[name][0],
  scenarios: medianOf(runs[name].map((r) => r.scenarios)),
  floor: medianOf(runs[name].map((r) => r.floor)),
  runs: runs[name].map((r) => r.scenarios),
  floorRuns: runs[name].map((r) => r.floor),
  scaling: medianOf(runs[name].map((r) => r.scaling)),
  scalingRuns: runs[name].map((r) => r.scaling),
}]));
const c = {
  ...first,
  handoff: medianOf(handoffRuns),
  handoffRuns,
  scaling: medianOf(scalingRuns),
  scalingRuns,
};
const jsCallbacks = {};
// The JS-callback path, for comparison (concurrency 1 and 128 only).
for (const name of only) {
  console.log(`bench: ${name} with TRITONFFI_CALLBACKS=js`);
  jsCallbacks[name] = binding(name, {
    TRITONFFI_CALLBACKS: "js",
    BENCH_ONLY: "latency_1x16,throughput_c128_1x16",
  }).scenarios;
}

const report = {
  date: new Date().toISOString(),
  core,
  machine: machine(),
  library: env.TRITONSERVER_LIB,
  durationMs: Number(ms),
  rounds,
  cRuns: handoffRuns.length,
  seconds: Math.round((Date.now() - started) / 1000),
  loadAverage: { start: loadAtStart, end: loadavg()[0] },
  native: c,
  bindings: js,
  jsCallbacks,
  python: {
    ran: python.ran,
    note: python.failed ?? python.note,
    version: python.version,
    library: python.library,
    scenarios: medianOf(python.runs),
    runs: python.runs,
  },
};
const md = table(report);
writeFileSync(join(results, `${core}.json`), JSON.stringify(report, null, 2) + "\n");
writeFileSync(join(results, `${core}.md`), md);
writeFileSync(join(results, `${core}.svg`), chart(report));
console.log("\n" + md);
console.log(
  `bench: wrote bench/results/${core}.json, ${core}.md and ${core}.svg (${report.seconds} s)`,
);
// The OCR scenarios (a real model through the onnxruntime backend) follow on a real core that
// has the backends they need (bench/run_ocr.mjs says why not otherwise), unless BENCH_OCR=off.
if (core === "real" && env.BENCH_OCR !== "off") {
  const ocr = spawnSync(toolchainBin(root, "node"), [join(root, "bench", "run_ocr.mjs")], {
    cwd: root,
    env,
    stdio: "inherit",
  });
  if (ocr.status !== 0) process.exit(ocr.status ?? 1);
}
