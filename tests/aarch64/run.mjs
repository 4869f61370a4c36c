// `npm run test:aarch64`: the binding on aarch64, emulated on an x86-64 machine. The arm64 builds
// of Deno, Bun and Node (and koffi's arm64 module) from npm run under `qemu-aarch64-static` against
// the fake core, fake CUDA runtime and thunk driver cross-built with aarch64-linux-gnu-gcc:
//   1. node tests/aarch64/install.mjs                      (.build/aarch64/node_modules)
//   2. CC=aarch64-linux-gnu-gcc TEST_BUILD_DIR=.build/aarch64 node tests/fake_core/build.mjs, and
//      the same for tests/fake_cuda/fake_cuda.c and tests/thunk_driver/driver.c
//   3. per runtime: tests/aarch64/probe.ts, which prints the architecture the runtime reports and
//      the callback path the binding chose; it must be aarch64 and the path tests/aarch64/
//      expected.mjs names; then the test files of TEST_FILES below with the runtime's own runner,
//      the binding left to choose its callback path (TRITONFFI_CALLBACKS unset).
// Prints per runtime `node aarch64: JS callbacks (<why>)` or `node aarch64: native callbacks`, the
// runner's counts and its time. Exits non-zero when a runtime cannot start, the probe differs
// from what is expected, a test fails, or a runner does not finish.
//
// Needs qemu-user-static, gcc-aarch64-linux-gnu, libc6-arm64-cross and libc6-dev-arm64-cross
// (apt). Without them it fails, unless AARCH64_OPTIONAL=1, which makes it print why and exit 0
// (for a machine where emulation is not wanted; CI leaves it unset).
// TEST_RUNTIMES (default "deno,bun,node") narrows the runtimes; arguments name test files to run
// instead of TEST_FILES. QEMU_AARCH64 (default qemu-aarch64-static), AARCH64_CPU (qemu's -cpu,
// default max,pauth-impdef=on), AARCH64_CC (default aarch64-linux-gnu-gcc) and AARCH64_SYSROOT
// (default /usr/aarch64-linux-gnu) name the toolchain;
// AARCH64_EXPECT_CALLBACKS=native|js overrides tests/aarch64/expected.mjs; AARCH64_TIMEOUT_S
// (default 300) bounds each runtime's test run.
// Plain Node ESM; runs under the pinned (x86-64) node.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { buildSharedLibrary } from "../build_shared_library.mjs";
import { counts, failures } from "../runner_report.mjs";
import { runtimeCommand, testCommand, toolchainBin } from "../runtime_command.mjs";
import { EXPECTED_CALLBACKS } from "./expected.mjs";
import { AARCH64_DIR, aarch64Bin, installAarch64 } from "./install.mjs";

const root = resolve(fileURLToPath(import.meta.url), "..", "..", "..");
const env = process.env;
const qemu = env.QEMU_AARCH64 || "qemu-aarch64-static";
const crossCc = env.AARCH64_CC || "aarch64-linux-gnu-gcc";
const crossRoot = env.AARCH64_SYSROOT || "/usr/aarch64-linux-gnu";
// The emulated CPU: qemu's "max" (every feature it knows, as a Grace's Neoverse V2 has LSE atomics
// and pointer authentication), with its cheap implementation-defined pointer-authentication
// algorithm instead of QARMA, which qemu computes in software on every signed return: Deno's
// binary signs its returns, and with QARMA its garbage collections took ~30x longer (a 6 MB heap
// 450 ms instead of 20 ms; the whole Deno run 10 minutes instead of ~2).
const cpu = env.AARCH64_CPU || "max,pauth-impdef=on";
const buildDir = relative(root, AARCH64_DIR); // .build/aarch64
const timeoutMs = Number(env.AARCH64_TIMEOUT_S || 300) * 1000;

/**
 * The test files run on each runtime under emulation. Left out, for the whole file:
 * - the serve, gRPC and protocol tests (many sockets and clients; what they test does not depend
 *   on the architecture once inference, streaming and cancellation pass here), and those that
 *   need Python, tritonclient, perf_analyzer or a real core (absent here anyway);
 * - tests/package.test.ts, public_types.test.ts, runner_commands.test.ts, doc_examples.test.ts,
 *   grpc_proto.test.ts, bad_input.test.ts (they start x86-64 tools or a child runtime with flags
 *   of their own: npm, tsc, protoc, the pinned runtimes);
 * - the OCR tests (onnxruntime-node ships no arm64 build in the project's node_modules);
 * - the property and size-matrix tests (many thousand inferences: minutes each under emulation;
 *   the byte paths they cover are the same code as on x86-64);
 * - single tests by name: LEFT_OUT below.
 */
const TEST_FILES = [
  // the native layer: generated code and its byte-for-byte references, the ring and its
  // producers, the reader, the submitter, the batch deleter, Bun's C allocator
  "tests/native_code.test.ts",
  "tests/native_path.test.ts",
  "tests/thunks.test.ts",
  "tests/response_reader.test.ts",
  "tests/request_submitter.test.ts",
  "tests/native_deletes.test.ts",
  // Node's callbacks of more than 8 arguments (koffi on arm64 reads stack arguments one slot low)
  "tests/koffi_stack_arguments.test.ts",
  // inference
  "tests/add_sub.test.ts",
  "tests/identity.test.ts",
  "tests/tensor.test.ts",
  "tests/output_placement.test.ts",
  "tests/memory.test.ts",
  // streaming, cancellation, ownership
  "tests/streaming.test.ts",
  "tests/repeat.test.ts",
  "tests/ownership.test.ts",
  // start and stop
  "tests/lifecycle.test.ts",
  "tests/event_loop.test.ts",
];

/** Tests of TEST_FILES left out by name, and why. */
const LEFT_OUT = [
  {
    name: "the C reference client builds against the generated C API and ffi/c, and runs",
    why: "builds a client with the machine's cc and runs it against the core: an x86-64 client " +
      "cannot load the aarch64 core, and an aarch64 one cannot be started by an emulated process",
  },
  {
    name: "many requests run concurrently: total time near the longest delay",
    why: "bounds wall-clock time (8 requests of 300 ms within 1.2 s): emulated on a loaded " +
      "machine it took 1.9 s once",
  },
  {
    name:
      "leak check: nothing alive after each run, and memory stops growing over doublings of the count",
    why: "its bounds are on RSS, which under emulation also holds qemu's growing translation cache",
  },
  {
    name: "100,000 undisposed identity_fp32 inferences with 64 KiB outputs keep memory bounded",
    why: "over a minute per runtime under emulation; its memory bounds are measured on x86-64",
  },
  {
    name: "a 100,000-response stream, nothing disposed, keeps memory bounded",
    why: "a minute per runtime under emulation; its memory bounds are measured on x86-64",
  },
];

const RUNTIMES = (env.TEST_RUNTIMES ?? "deno,bun,node").split(",").filter(Boolean);

/** Why the toolchain is unusable here, or undefined. */
function toolchainMissing() {
  const missing = [];
  if (spawnSync(qemu, ["--version"]).status !== 0) missing.push(`${qemu} (qemu-user-static)`);
  if (spawnSync(crossCc, ["--version"]).status !== 0) {
    missing.push(`${crossCc} (gcc-aarch64-linux-gnu)`);
  }
  if (!existsSync(join(crossRoot, "lib", "ld-linux-aarch64.so.1"))) {
    missing.push(`${crossRoot}/lib/ld-linux-aarch64.so.1 (libc6-arm64-cross)`);
  }
  if (!existsSync(join(crossRoot, "include", "stdlib.h"))) {
    missing.push(`${crossRoot}/include/stdlib.h (libc6-dev-arm64-cross)`);
  }
  return missing.length > 0 ? missing.join(", ") : undefined;
}

/**
 * The folder qemu's -L names. qemu tries every absolute path the program opens under it first:
 * lib/ gives the dynamic loader and libc; usr/include gives the aarch64 C headers, which Bun's
 * TinyCC (cc(), ffi/c) reads from /usr/include, where it would otherwise find the machine's
 * x86-64 ones (the cross package installs aarch64's under <sysroot>/include, not usr/include).
 */
function sysroot() {
  const dir = join(AARCH64_DIR, "sysroot");
  const links = [
    ["lib", join(crossRoot, "lib")],
    ["usr/lib", join(crossRoot, "lib")],
    ["usr/include", join(crossRoot, "include")],
  ];
  for (const [at, target] of links) {
    const path = join(dir, at);
    let current;
    try {
      current = readlinkSync(path);
    } catch {
      current = undefined;
    }
    if (current === target) continue;
    rmSync(path, { force: true, recursive: true });
    mkdirSync(join(path, ".."), { recursive: true });
    symlinkSync(target, path);
  }
  return dir;
}

/** Runs a build script with the pinned node and `extraEnv`; exits when it fails. */
function build(script, extraEnv = {}) {
  const r = spawnSync(toolchainBin(root, "node"), [join(root, script)], {
    stdio: "inherit",
    cwd: root,
    env: { ...env, ...extraEnv },
  });
  if (r.status !== 0) {
    console.error(`aarch64: ${script} failed (${r.error?.message ?? r.status ?? r.signal})`);
    process.exit(1);
  }
}

/** The emulated command for `runtime` running the test files `files`. */
function emulatedTestCommand(runtime, files, prefix) {
  const [, args] = testCommand(root, runtime, files);
  if (runtime === "deno") {
    // Type checking is x86-64's job (`npm run check`); emulated, tsc takes minutes per run.
    args.splice(1, 0, "--no-check");
  } else if (runtime === "node") {
    // One process for all files: node --test would start a child node per file, which an
    // emulated node cannot.
    args.splice(args.indexOf("--test") + 1, 0, "--test-isolation=none");
  }
  return [...prefix, aarch64Bin(runtime), ...args];
}

/** Runs `argv` with output shown and kept; resolves with status, output and seconds taken. */
function run(argv, runEnv, echo = true) {
  const started = Date.now();
  return new Promise((resolveRun) => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: root,
      env: runEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const keep = (stream) => (d) => {
      output += d;
      if (echo) stream.write(d);
    };
    child.stdout.on("data", keep(process.stdout));
    child.stderr.on("data", keep(process.stderr));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (e) => (output += `\n${e.message}`));
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolveRun({
        status: status ?? signal,
        output,
        timedOut,
        seconds: (Date.now() - started) / 1000,
      });
    });
  });
}

/** What the probe printed (`probe: {...}`), or undefined. */
function probeResult(output) {
  const line = output.split("\n").find((l) => l.startsWith("probe: "));
  if (!line) return undefined;
  try {
    return JSON.parse(line.slice("probe: ".length));
  } catch {
    return undefined;
  }
}

/** The line that says how the binding runs: `node aarch64: JS callbacks (why)`. */
function describe(runtime, probe) {
  const path = probe.callbacks === "native"
    ? `native callbacks${probe.nativeKind ? ` (${probe.nativeKind})` : ""}`
    : "JS callbacks";
  const why = probe.callbacks === "native" ? "" : ` (${probe.fallbackReason ?? "no reason given"})`;
  return `${runtime} ${probe.arch}: ${path}${why}`;
}

const missing = toolchainMissing();
if (missing) {
  if (env.AARCH64_OPTIONAL === "1") {
    console.log(`aarch64: skipped (AARCH64_OPTIONAL=1): missing ${missing}`);
    process.exit(0);
  }
  console.error(
    `aarch64: missing ${missing}. Install: apt-get install -y qemu-user-static ` +
      "gcc-aarch64-linux-gnu libc6-arm64-cross libc6-dev-arm64-cross (or set AARCH64_OPTIONAL=1 " +
      "to skip this part where emulation is not wanted)",
  );
  process.exit(1);
}

try {
  installAarch64();
} catch (e) {
  console.error(`aarch64: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}

// The references the byte-for-byte tests compare with (assembled on this machine: they are data,
// the same for any host), and the x86-64 build `npm test` makes.
build("tests/thunk_driver/build.mjs");
// The libraries the emulated runtimes load, built for aarch64.
build("tests/fake_core/build.mjs", { CC: crossCc, TEST_BUILD_DIR: buildDir });
const cross = { cc: crossCc, buildDir };
buildSharedLibrary("fake cuda (aarch64)", "fake_cuda", "libcudart.so", [
  "tests/fake_cuda/fake_cuda.c",
], cross);
buildSharedLibrary("thunk driver (aarch64)", "thunk_driver", "libthunk_driver.so", [
  "tests/thunk_driver/driver.c",
], cross);

const emulator = [qemu, "-cpu", cpu, "-L", sysroot()];
const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : TEST_FILES;
const expectOverride = env.AARCH64_EXPECT_CALLBACKS;
if (expectOverride && expectOverride !== "native" && expectOverride !== "js") {
  console.error(
    `aarch64: AARCH64_EXPECT_CALLBACKS must be "native" or "js", not "${expectOverride}"`,
  );
  process.exit(1);
}

const runEnv = { ...env };
// The binding chooses its callback path, as it would on an aarch64 machine.
delete runEnv.TRITONFFI_CALLBACKS;
delete runEnv.NODE_OPTIONS;
Object.assign(runEnv, {
  TRITONSERVER_LIB: join(AARCH64_DIR, "fake_core", "libtritonserver.so"),
  TRITONFFI_CUDART: join(AARCH64_DIR, "fake_cuda", "libcudart.so"),
  TRITONFFI_THUNK_DRIVER: join(AARCH64_DIR, "thunk_driver", "libthunk_driver.so"),
  // tests/support/env.ts runScript: a child runtime goes through qemu too
  TRITONFFI_TEST_EXEC_PREFIX: JSON.stringify(emulator),
  TEST_PACKAGE: "0",
  // the ring stress of tests/thunks.test.ts (4 producer threads) at 100k completions, not 1M
  TEST_STRESS_SCALE: env.TEST_STRESS_SCALE || "0.1",
  // tests/support/test.ts skips these, each with its reason
  TEST_SKIP: JSON.stringify(Object.fromEntries(LEFT_OUT.map((t) => [t.name, t.why]))),
});

console.log(`aarch64: ${emulator.join(" ")}; core ${runEnv.TRITONSERVER_LIB}`);
console.log(
  `aarch64: left out by name:\n${LEFT_OUT.map((t) => `  ${t.name}: ${t.why}`).join("\n")}`,
);

const summary = [];
let failed = false;
for (const runtime of RUNTIMES) {
  const expected = expectOverride ?? EXPECTED_CALLBACKS[runtime];
  if (!expected) {
    console.error(`aarch64: unknown runtime "${runtime}": deno, bun or node`);
    process.exit(1);
  }
  const rtEnv = { ...runEnv };
  if (runtime === "node") {
    // koffi's arm64 module (tests/aarch64/koffi_hook.mjs); NODE_OPTIONS reaches child nodes too
    rtEnv.NODE_OPTIONS = `--import=${join(root, "tests", "aarch64", "koffi_hook.mjs")}`;
  }

  const [, probeArgs] = runtimeCommand(root, runtime, "tests/aarch64/probe.ts");
  const probeRun = await run([...emulator, aarch64Bin(runtime), ...probeArgs], rtEnv, false);
  const probe = probeResult(probeRun.output);
  if (probeRun.status !== 0 || !probe) {
    console.error(probeRun.output);
    summary.push(`${runtime} aarch64: did not start (exit ${probeRun.status}); output above`);
    failed = true;
    continue;
  }
  let line = describe(runtime, probe);
  if (probe.arch !== "aarch64") {
    line += ` — expected aarch64, the runtime reports ${probe.reportedArch}`;
    failed = true;
  }
  if (probe.callbacks !== expected) {
    line += ` — expected ${expected} callbacks (tests/aarch64/expected.mjs)`;
    failed = true;
  }
  console.log(`\n== ${line} ==`);

  const argv = emulatedTestCommand(runtime, files, emulator);
  console.log(argv.join(" "));
  const r = await run(argv, rtEnv);
  const c = counts(runtime, r.output);
  const time = `${r.seconds.toFixed(0)} s`;
  summary.push(line);
  if (!c) {
    summary.push(
      `  tests: did not finish (${
        r.timedOut ? `killed after ${timeoutMs / 1000} s` : `exit ${r.status}`
      }, ${time})`,
    );
    failed = true;
    continue;
  }
  let counted = `  tests: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (${time})`;
  if (r.status !== 0 && c.failed === 0) {
    counted += ` (exited with ${r.status} after its tests)`;
    failed = true;
  }
  if (c.passed === 0) {
    counted += " (no test ran)";
    failed = true;
  }
  summary.push(counted);
  if (c.failed > 0) {
    failed = true;
    summary.push(...failures(runtime, r.output).map((f) => `  failed: ${f}`));
  }
}
console.log(`\naarch64 (emulated):\n${summary.join("\n")}`);
process.exit(failed ? 1 : 0);
