// `npm run bench:ocr` (and the end of `npm run bench` on a core with the onnxruntime backend):
// the OCR example's detector and pipeline (bench/ocr.ts) through tritonffi on Deno, Bun and Node,
// through Triton's in-process Python API (bench/ocr_python_api.py, when TRITONSERVER_PYTHON can
// `import tritonserver`), and through onnxruntime-node alone, in alternating rounds (ort, deno,
// bun, node, python, ort, …); the table gives each figure's median over the rounds, with its
// spread (min–max). Writes bench/results/ocr_real.json and ocr_real.md (also printed).
//
// Needs TRITONSERVER_LIB and TRITONSERVER_BACKEND_DIR naming a real core whose backends include
// onnxruntime and python; says why and exits 0 otherwise. Environment: BENCH_DURATION_MS (per
// timed run, default 2000), BENCH_ROUNDS (default 3), BENCH_RUNTIMES (default "deno,bun,node"),
// TRITONSERVER_PYTHON. Plain Node ESM.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runtimeCommand, toolchainBin } from "../tests/runtime_command.mjs";
import { median } from "./stats.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const build = join(root, ".build", "bench_ocr");
const results = join(root, "bench", "results");
const env = { ...process.env };
const backends = env.TRITONSERVER_BACKEND_DIR;
const missing = !env.TRITONSERVER_LIB || !backends
  ? "TRITONSERVER_LIB and TRITONSERVER_BACKEND_DIR are not both set"
  : ["onnxruntime", "python"].filter((b) => !existsSync(join(backends, b, `libtriton_${b}.so`)))
    .map((b) => `no ${b} backend in ${backends}`).join("; ");
if (missing) {
  console.log(`bench:ocr: not run (${missing})`);
  process.exit(0);
}
mkdirSync(build, { recursive: true });
mkdirSync(results, { recursive: true });
const rounds = Number(env.BENCH_ROUNDS ?? 3);
const runtimes = (env.BENCH_RUNTIMES ?? "deno,bun,node").split(",");
const repository = join(root, ".build", "ocr_models");
const node = toolchainBin(root, "node");
const started = Date.now();
const loadAtStart = loadavg()[0];

function run(cmd, args, extra = {}) {
  const r = spawnSync(cmd, args, {
    cwd: root,
    env: { ...env, OCR_REPOSITORY: repository, ...extra },
    encoding: "utf8",
    stdio: ["ignore", "inherit", "pipe"],
    timeout: 10 * 60_000,
  });
  if (r.status !== 0) {
    const tail = (r.stderr ?? "").trim().split("\n").slice(-5).join("\n");
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.status ?? r.signal}):\n${tail}`);
  }
}

run(node, ["examples/ocr/repository.ts", repository]);
run(node, ["bench/ocr_inputs.ts", join(build, "inputs")]);

/** The engines in round order: name → how to run it once, writing JSON to `out`. */
const engines = [[
  "onnxruntime-node",
  (out) => run(node, ["bench/ocr.ts"], { OCR_ENGINE: "ort", BENCH_OUT: out }),
]];
for (const runtime of runtimes) {
  const [cmd, args] = runtimeCommand(root, runtime, "bench/ocr.ts");
  engines.push([`tritonffi ${runtime}`, (out) => run(cmd, args, { BENCH_OUT: out })]);
}
const python = { version: undefined, note: "TRITONSERVER_PYTHON not set" };
if (env.TRITONSERVER_PYTHON) {
  const r = spawnSync(env.TRITONSERVER_PYTHON, ["-c", "import tritonserver"], { encoding: "utf8" });
  if (r.status === 0) {
    python.note = undefined;
    engines.push(["Python API", (out) =>
      run(env.TRITONSERVER_PYTHON, ["bench/ocr_python_api.py"], {
        OCR_INPUTS: join(build, "inputs"),
        BENCH_OUT: out,
      })]);
  } else python.note = `${env.TRITONSERVER_PYTHON} cannot import tritonserver`;
}

const runs = Object.fromEntries(engines.map(([name]) => [name, []]));
const failed = {};
for (let round = 0; round < rounds; round++) {
  for (const [name, once] of engines) {
    if (failed[name]) continue;
    console.log(`bench:ocr: round ${round + 1}/${rounds}: ${name}`);
    const out = join(build, "out.json");
    try {
      once(out);
      runs[name].push(JSON.parse(readFileSync(out, "utf8")));
    } catch (e) {
      failed[name] = String(e.message ?? e);
      console.error(`bench:ocr: ${name}: ${failed[name]}`);
    }
  }
}

/** Median and spread of one figure over the rounds (latencies: their p50). */
function figure(name, scenario) {
  const xs = runs[name].map((r) => r.scenarios[scenario]).filter((v) => v !== undefined)
    .map((v) => (typeof v === "number" ? v : v.p50));
  return xs.length ? { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) } : null;
}
const ROWS = [
  ["det_latency", "detector, ms per image (c1 p50)"],
  ["det_c1", "detector, images/s at c1"],
  ["det_c8", "detector, images/s at c8"],
  ["det_c32", "detector, images/s at c32"],
  ["det1_latency", "detector with 1 instance, ms per image (c1 p50)"],
  ["det1_c1", "detector with 1 instance, images/s at c1"],
  ["det1_c8", "detector with 1 instance, images/s at c8"],
  ["det1_c32", "detector with 1 instance, images/s at c32"],
  ["pipeline_latency", "pipeline, ms per image (c1 p50)"],
  ["pipeline_c1", "pipeline, images/s at c1"],
  ["pipeline_c8", "pipeline, images/s at c8"],
  ["pipeline_c32", "pipeline, images/s at c32"],
  ["read_text_latency", "JS-driven pipeline, ms per image"],
  ["read_text_c32", "JS-driven pipeline, images/s at c32"],
];
const names = engines.map(([name]) => name);
const table = Object.fromEntries(
  ROWS.map(([key]) => [key, Object.fromEntries(names.map((n) => [n, figure(n, key)]))]),
);
const fmt = (f) =>
  f
    ? `${f.median.toFixed(f.median < 10 ? 2 : 1)} (${f.min.toFixed(f.min < 10 ? 2 : 1)}–${
      f.max.toFixed(f.max < 10 ? 2 : 1)
    })`
    : "–";
const lines = runs[names[0]]?.[0]?.lines ?? 3;
const md = [
  `# OCR: PaddleOCR v4 detector and pipeline (${new Date().toISOString().slice(0, 10)})`,
  "",
  `Median (min–max) over ${rounds} alternating rounds, ${env.BENCH_DURATION_MS ?? 2000} ms a ` +
  `timed run; one 640×320 image of ${lines} lines; load average ${loadAtStart.toFixed(2)} → ` +
  `${loadavg()[0].toFixed(2)}. The pipeline is \`ocr_pipeline\` (Python BLS) for tritonffi and ` +
  `the Python API, the same steps in JS for onnxruntime-node; its lines/s are images/s × ${lines}.`,
  "",
  `| | ${names.join(" | ")} |`,
  `| --- | ${names.map(() => "---:").join(" | ")} |`,
  ...ROWS.filter(([key]) => names.some((n) => table[key][n])).map(([key, label]) =>
    `| ${label} | ${names.map((n) => fmt(table[key][n])).join(" | ")} |`
  ),
  "",
  ...Object.entries(failed).map(([n, why]) => `- ${n} failed: ${why.split("\n")[0]}`),
  ...(python.note ? [`- Python API: not run (${python.note})`] : []),
  "",
].join("\n");
const report = {
  date: new Date().toISOString(),
  seconds: Math.round((Date.now() - started) / 1000),
  loadAverage: { start: loadAtStart, end: loadavg()[0] },
  rounds,
  versions: Object.fromEntries(names.map((n) => [n, runs[n][0]?.version])),
  table,
  runs,
  failed,
};
writeFileSync(join(results, "ocr_real.json"), JSON.stringify(report, null, 2) + "\n");
writeFileSync(join(results, "ocr_real.md"), md);
console.log("\n" + md);
console.log(`bench:ocr: wrote bench/results/ocr_real.json and ocr_real.md (${report.seconds} s)`);
