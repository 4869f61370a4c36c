// `npm test` (and `deno task test`): builds the fake core (unless TRITONSERVER_LIB names a real
// library), the fake CUDA runtime (unless TRITONFFI_CUDART names one) and the thunk driver, then
// runs the test files with each runtime's own test runner — `deno test`, `bun test`,
// `node --test` — each with both callback paths (TRITONFFI_CALLBACKS=native and =js). Each
// runner prints its own report; this script adds one line per run and the total, and exits
// non-zero when any run failed or did not finish.
//
// TEST_RUNTIMES (default "deno,bun,node") and TEST_CALLBACKS (default "native,js") narrow it;
// TEST_FILTER narrows the tests by name (the runners' --filter, -t, --test-name-pattern).
// Arguments name test files to run instead of tests/: `npm test -- tests/tensor.test.ts`.
// tests/package.test.ts (npm pack, install, run on the three runtimes) and tests/public_types.test.ts
// (the package's declarations) run in the first run only.
// Plain Node ESM: it runs under the pinned node, Deno or Bun alike.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
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

/** Passed, failed and skipped counts from a runner's own closing report, or undefined. */
function counts(runtime, output) {
  // deno: "ok | 94 passed | 0 failed | 2 ignored (14s)"
  // bun: " 94 pass", " 2 skip", " 0 fail" on lines of their own
  // node (spec reporter): "ℹ pass 94", "ℹ fail 0", "ℹ cancelled 0", "ℹ skipped 2"
  const text = stripVTControlCharacters(output);
  const num = (re) => {
    const m = re.exec(text);
    return m ? Number(m[1]) : undefined;
  };
  if (runtime === "deno") {
    // "ok | 18 passed (126 steps) | 0 failed | 1 ignored": steps are counted apart
    const steps = String.raw`(?: \(\d+ steps?\))?`;
    const m = new RegExp(
      String.raw`(\d+) passed${steps} \| (\d+) failed${steps}(?: \| (\d+) ignored)?`,
    ).exec(text);
    return m && { passed: +m[1], failed: +m[2], skipped: +(m[3] ?? 0) };
  }
  if (runtime === "bun") {
    const passed = num(/^\s*(\d+) pass$/m);
    const failed = num(/^\s*(\d+) fail$/m);
    return passed === undefined || failed === undefined
      ? undefined
      : { passed, failed, skipped: num(/^\s*(\d+) skip$/m) ?? 0 };
  }
  const passed = num(/^ℹ pass (\d+)$/m);
  const failed = num(/^ℹ fail (\d+)$/m);
  return passed === undefined || failed === undefined ? undefined : {
    passed,
    failed: failed + (num(/^ℹ cancelled (\d+)$/m) ?? 0),
    skipped: num(/^ℹ skipped (\d+)$/m) ?? 0,
  };
}

/** The names of the tests a runner reported failed (its own words, at most `most` of them), so
 * that the closing summary names them: the runs after a failure push its report far up. */
function failures(runtime, output, most = 10) {
  const lines = stripVTControlCharacters(output).split("\n");
  let names;
  if (runtime === "deno") {
    // " FAILURES " then "name => ./tests/file.test.ts:12:3" per failed test
    const start = lines.findIndex((l) => l.trim() === "FAILURES");
    names = start < 0 ? [] : lines.slice(start + 1).filter((l) => / => \S+:\d+:\d+$/.test(l));
  } else if (runtime === "bun") {
    names = lines.filter((l) => l.startsWith("(fail) "));
  } else {
    names = lines.filter((l) => /^\s*✖ /.test(l) && !/failing tests:$/.test(l));
  }
  const unique = [...new Set(names.map((l) => l.trim()))];
  return unique.length > most
    ? [...unique.slice(0, most), `… and ${unique.length - most} more`]
    : unique;
}

/** Runs `cmd` with its output shown as it comes and kept; resolves with status and output. */
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
    const timer = setTimeout(() => child.kill("SIGKILL"), 20 * 60_000);
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
for (const runtime of runtimes) {
  for (const mode of modes) {
    const name = `${runtime} (${mode} callbacks)`;
    const [cmd, args] = testCommand(root, runtime, paths, filter);
    if (!existsSync(cmd)) {
      summary.push(`${name}: not installed (${cmd}); run npm install`);
      broken = true;
      continue;
    }
    console.log(`\n== ${name}: ${[cmd, ...args].join(" ")} ==`);
    // tests/package.test.ts and public_types.test.ts do not depend on the runner or callback path:
    // the first run only.
    const first = summary.length === 0;
    const r = await run(cmd, args, {
      ...env,
      TRITONFFI_CALLBACKS: mode,
      ...(first ? {} : { TEST_PACKAGE: "0" }),
    });
    const c = counts(runtime, r.output);
    if (!c) {
      summary.push(`${name}: did not finish (exit ${r.status})`);
      broken = true;
      continue;
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
}
console.log("\n" + summary.join("\n"));
console.log(`total: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 || broken ? 1 : 0);
