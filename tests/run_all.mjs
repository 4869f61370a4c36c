// `npm test` (and `deno task test`): builds the fake core (unless TRITONSERVER_LIB names a real
// library), the fake CUDA runtime (unless TRITONFFI_CUDART names one) and the thunk driver, then
// runs the test files with each runtime's own test runner — `deno test`, `bun test`,
// `node --test` — each with both callback paths (TRITONFFI_CALLBACKS=native and =js). Each
// runner prints its own report; this script adds one line per run and the total, in one unit
// (tests: a describe block's tests each, the block not, which Deno's own line counts otherwise),
// and exits non-zero when any run failed or did not finish.
//
// TEST_RUNTIMES (default "deno,bun,node") and TEST_CALLBACKS (default "native,js") narrow it;
// the whole suite then runs the front ends' files once more on each runtime with their services on
// two threads (TEST_SERVE_WORKERS=2, native callbacks; see SERVED_ON_WORKERS below);
// TEST_FILTER narrows the tests by name (the runners' --filter, -t, --test-name-pattern).
// Arguments name test files to run instead of tests/: `npm test -- tests/tensor.test.ts`.
// tests/package.test.ts (npm pack, install, run on the three runtimes) and tests/public_types.test.ts
// (the package's declarations) run in the first run only.
// Plain Node ESM: it runs under the pinned node, Deno or Bun alike.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { counts, failures, lastWords } from "./runner_report.mjs";
import { testCommand, toolchainBin } from "./runtime_command.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };
const node = toolchainBin(root, "node");

/** Runs one of the build scripts with the pinned node; exits when it fails. */
function build(script) {
  const r = spawnSync(node, [join(root, script)], { stdio: "inherit", cwd: root, env });
  if (r.status !== 0) {
    console.error(`${script} failed (${r.error?.message ?? r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
}

if (env.TRITONSERVER_LIB) {
  console.log(`Testing against ${env.TRITONSERVER_LIB} (TRITONSERVER_LIB)`);
} else {
  build("tests/fake_core/build.mjs");
  env.TRITONSERVER_LIB = join(root, ".build/fake_core/libtritonserver.so");
  console.log(`Testing against the fake core (${env.TRITONSERVER_LIB})`);
}
if (!env.TRITONFFI_CUDART) {
  // The pinned and GPU allocator paths run against the fake CUDA runtime unless told otherwise
  // (TRITONFFI_CUDART=/path/to/libcudart.so for a real one).
  build("tests/fake_cuda/build.mjs");
  env.TRITONFFI_CUDART = join(root, ".build/fake_cuda/libcudart.so");
}
console.log(`CUDA runtime for the tests: ${env.TRITONFFI_CUDART}`);
// The C driver that calls the native callbacks from threads (tests/thunks.test.ts).
build("tests/thunk_driver/build.mjs");

const paths = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["tests/"];
const filter = env.TEST_FILTER || undefined;
const modes = (env.TEST_CALLBACKS ?? "native,js").split(",");
const runtimes = (env.TEST_RUNTIMES ?? "deno,bun,node").split(",");

/** Runs `cmd` with its output shown as it comes and kept; resolves with status and output. */
// A runner killed after TEST_RUNNER_TIMEOUT_S (default 20 minutes): Deno's whole run against a
// real core with its Python models takes longer on a loaded 2-vCPU machine.
const RUNNER_TIMEOUT_MS = Number(process.env.TEST_RUNNER_TIMEOUT_S ?? 1200) * 1000;

function run(cmd, args, runEnv) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: runEnv, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => {
      output += d;
      process.stdout.write(d);
    });
    child.stderr.on("data", (d) => {
      output += d;
      process.stderr.write(d);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), RUNNER_TIMEOUT_MS);
    child.on("error", (e) => (output += `\n${e.message}`));
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status: status ?? signal, output });
    });
  });
}

const summary = [];
const total = { passed: 0, failed: 0, skipped: 0 };
let broken = false;

/** Runs `files` with `runtime`'s runner and `mode`'s callbacks, `extraEnv` added; adds its line
 * (`name`) to the summary and its counts to the total. */
async function runOne(name, runtime, mode, files, extraEnv) {
  const [cmd, args] = testCommand(root, runtime, files, filter);
  // Deno's JUnit report, from which its tests are counted as Bun and Node count theirs.
  const junit = runtime === "deno"
    ? join(tmpdir(), `tritonffi-deno-junit-${process.pid}-${summary.length}.xml`)
    : undefined;
  if (junit) args.splice(1, 0, `--junit-path=${junit}`);
  if (!existsSync(cmd)) {
    summary.push(`${name}: not installed (${cmd}); run npm install`);
    broken = true;
    return;
  }
  console.log(`\n== ${name}: ${[cmd, ...args].join(" ")} ==`);
  // tests/package.test.ts and public_types.test.ts do not depend on the runner or callback path:
  // the first run only.
  const first = summary.length === 0;
  const r = await run(cmd, args, {
    ...env,
    TRITONFFI_CALLBACKS: mode,
    ...(first ? {} : { TEST_PACKAGE: "0" }),
    ...extraEnv,
  });
  let report;
  if (junit && existsSync(junit)) {
    report = readFileSync(junit, "utf8");
    rmSync(junit, { force: true });
  }
  const c = counts(runtime, r.output, report);
  if (!c) {
    const { file, tail } = lastWords(runtime, r.output);
    summary.push(
      `${name}: did not finish (exit ${r.status})${
        file ? `; the last test file it named: ${file}` : ""
      }; its last lines:`,
      ...tail.map((l) => `  | ${l}`),
    );
    broken = true;
    return;
  }
  total.passed += c.passed;
  total.failed += c.failed;
  total.skipped += c.skipped;
  let line = `${name}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`;
  if (r.status !== 0 && c.failed === 0) {
    line += ` (exited with ${r.status} after its tests)`;
    broken = true;
  }
  summary.push(line);
  if (c.failed > 0) summary.push(...failures(runtime, r.output).map((f) => `  failed: ${f}`));
}

for (const runtime of runtimes) {
  for (const mode of modes) {
    await runOne(`${runtime} (${mode} callbacks)`, runtime, mode, paths, {});
  }
}

// The front ends' files once more with their services on two threads (TEST_SERVE_WORKERS=2:
// tests/support/env.ts), native callbacks (workers attach, which the JS callbacks refuse): what
// they check must hold whichever thread answers. The whole suite only, where not asked otherwise.
const SERVED_ON_WORKERS = [
  "openai_schema",
  "openai_serve",
  "openai_stream",
  "serve",
  "serve_classification",
  "serve_classification_tritonclient",
  "serve_errors",
  "serve_large_clients",
  "serve_stream",
  "serve_tritonclient",
].map((f) => `tests/${f}.test.ts`);
if (process.argv.length <= 2 && modes.includes("native") && !env.TEST_SERVE_WORKERS) {
  for (const runtime of runtimes) {
    await runOne(`${runtime} (native callbacks, 2 serving threads)`, runtime, "native", [
      ...SERVED_ON_WORKERS,
    ], { TEST_SERVE_WORKERS: "2", TEST_PACKAGE: "0" });
  }
}
console.log("\n" + summary.join("\n"));
// One unit on every line: tests, a describe block's each counted and the block not (Deno's own
// report counts the block as a test and its tests apart as steps; here it is counted as Bun and
// Node count).
console.log(
  `total: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped ` +
    "(tests, counted alike on every runner)",
);
process.exit(total.failed > 0 || broken ? 1 : 0);
