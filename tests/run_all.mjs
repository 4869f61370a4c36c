// `npm test`: builds the fake core (unless TRITONSERVER_LIB names a real library) and the thunk
// driver, then runs the same suite (tests/main.ts) on Deno, Bun and Node, each with both callback
// paths (TRITONFFI_CALLBACKS=native and =js), and prints one "N passed, N failed" line per run,
// then the total. Exits non-zero when any test failed or a run did not finish.
// TEST_RUNTIMES (default "deno,bun,node") and TEST_CALLBACKS (default "native,js") narrow it.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runtimeCommand } from "./runtime_command.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };

if (env.TRITONSERVER_LIB) {
  console.log(`Testing against ${env.TRITONSERVER_LIB} (TRITONSERVER_LIB)`);
} else {
  const build = spawnSync(process.execPath, [join(root, "tests/fake_core/build.mjs")], {
    stdio: "inherit",
    cwd: root,
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  env.TRITONSERVER_LIB = join(root, ".build/fake_core/libtritonserver.so");
  console.log(`Testing against the fake core (${env.TRITONSERVER_LIB})`);
}
if (!env.TRITONFFI_CUDART) {
  // The pinned and GPU allocator paths run against the fake CUDA runtime unless told otherwise
  // (TRITONFFI_CUDART=/path/to/libcudart.so for a real one).
  const build = spawnSync(process.execPath, [join(root, "tests/fake_cuda/build.mjs")], {
    stdio: "inherit",
    cwd: root,
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  env.TRITONFFI_CUDART = join(root, ".build/fake_cuda/libcudart.so");
}
console.log(`CUDA runtime for the tests: ${env.TRITONFFI_CUDART}`);
{
  // The C driver that calls the native callbacks from threads (tests/thunks.test.ts).
  const build = spawnSync(process.execPath, [join(root, "tests/thunk_driver/build.mjs")], {
    stdio: "inherit",
    cwd: root,
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const modes = (env.TEST_CALLBACKS ?? "native,js").split(",");

const only = (env.TEST_RUNTIMES ?? "deno,bun,node").split(",");
const runtimes = [
  [
    "deno",
    ...runtimeCommand(root, "deno", "tests/main.ts", {
      deno: ["--allow-run", "--v8-flags=--expose-gc"],
    }),
  ],
  ["bun", ...runtimeCommand(root, "bun", "tests/main.ts")],
  ["node", ...runtimeCommand(root, "node", "tests/main.ts", { node: ["--expose-gc"] })],
].filter(([name]) => only.includes(name))
  .flatMap(([name, cmd, args]) => modes.map((mode) => [name, cmd, args, mode]));

const summary = [];
let passed = 0;
let failed = 0;
let skipped = 0;
let broken = false;
for (const [runtime, cmd, args, mode] of runtimes) {
  const name = `${runtime} (${mode} callbacks)`;
  if (!existsSync(cmd)) {
    console.log(`${runtime}: not installed (${cmd}); run npm install`);
    broken = true;
    continue;
  }
  console.log(`\n== ${name} ==`);
  const r = spawnSync(cmd, args, {
    cwd: root,
    env: { ...env, TRITONFFI_CALLBACKS: mode },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 20 * 60_000,
  });
  process.stdout.write(r.stdout ?? "");
  const m = /(\d+) passed, (\d+) failed, (\d+) skipped/.exec(r.stdout ?? "");
  if (!m) {
    summary.push(`${name}: did not finish (exit ${r.status ?? r.signal})`);
    broken = true;
    continue;
  }
  passed += Number(m[1]);
  failed += Number(m[2]);
  skipped += Number(m[3]);
  if (r.status !== 0 && Number(m[2]) === 0) {
    summary.push(`${name}: exited with ${r.status ?? r.signal} after its tests`);
    broken = true;
  }
  summary.push(`${name}: ${m[1]} passed, ${m[2]} failed, ${m[3]} skipped`);
}
console.log("\n" + summary.join("\n"));
console.log(`total: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || broken ? 1 : 0);
