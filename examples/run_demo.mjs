// `npm run demo`: runs examples/quickstart.ts on Deno against the real libtritonserver.so when one
// is found ($TRITONSERVER_LIB, or the Triton container's /opt/tritonserver/lib), otherwise builds
// and uses the project's fake core, and says which it used (a TRITONSERVER_LIB naming the fake core
// is called that: ./core_kind.mjs reads which from the library's symbols).
// Set DEMO_RUNTIME=bun or DEMO_RUNTIME=node to run it on another runtime. Every runtime is the
// one npm installed under node_modules/.bin. An argument names another example to run the same
// way (`npm run serve` runs examples/serve.ts, `npm run serve:openai` examples/openai.ts); the
// arguments after it are the example's own (`npm run example:ocr -- image.png`). Plain Node ESM
// (`deno task demo` runs it on Deno).
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { runtimeCommand, toolchainBin } from "../tests/runtime_command.mjs";
import { coreKind } from "./core_kind.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = { ...process.env };
const container = "/opt/tritonserver/lib/libtritonserver.so";
/** What the library at `path` is, in words, as its symbols tell (./core_kind.mjs). */
const describe = (path) =>
  ({ fake: "the project's fake core", real: "the real core" })[coreKind(path)] ??
    "the library";
if (env.TRITONSERVER_LIB) {
  console.log(
    `Using ${describe(env.TRITONSERVER_LIB)} from TRITONSERVER_LIB: ${env.TRITONSERVER_LIB}`,
  );
} else if (existsSync(container)) {
  console.log(`Using ${describe(container)}: ${container}`);
  env.TRITONSERVER_BACKEND_DIR ??= "/opt/tritonserver/backends";
} else {
  console.log(
    "No libtritonserver.so found: building and using the project's fake core (tests/fake_core)",
  );
  const build = spawnSync(toolchainBin(root, "node"), [join(root, "tests/fake_core/build.mjs")], {
    stdio: "inherit",
    cwd: root,
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  env.TRITONSERVER_LIB = join(root, ".build/fake_core/libtritonserver.so");
}
const script = process.argv[2] ?? "examples/quickstart.ts";
// The serving examples listen (and want Deno's request.signal to abort only when a client leaves).
const listens = ["examples/serve.ts", "examples/openai.ts"].some((s) => script.endsWith(s));
const [cmd, args] = runtimeCommand(root, env.DEMO_RUNTIME ?? "deno", script, {
  deno: listens ? ["--allow-net", "--unstable-no-legacy-abort", "--unstable-net"] : [],
});
// The example runs as a child: the signals that stop this process (SIGINT, SIGTERM from a
// supervisor or `kill`, SIGHUP) are passed on, so that a serving example stops with it, and this
// process ends as the child did: with its exit code, or killed by the same signal. (npm passes
// SIGINT and SIGTERM to its script's shell, which does not pass them on: the scripts in
// package.json `exec` this file so that the signal reaches it. docs/serving.md has the rest.)
const child = spawn(cmd, [...args, ...process.argv.slice(3)], { stdio: "inherit", cwd: root, env });
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
const forward = (signal) => child.kill(signal);
for (const signal of forwarded) process.on(signal, forward);
// A parent that dies without passing a signal on (npm on SIGHUP, anything on SIGKILL) leaves this
// process to init: the child is then stopped as if by SIGTERM.
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid !== parent) forward("SIGTERM");
}, 1000);
watch.unref();
child.on("exit", (code, signal) => {
  clearInterval(watch);
  if (code !== null) process.exit(code);
  // Killed by a signal: die of the same one, so that our parent (npm, a shell) sees what the child
  // met; 128 + its number, as a shell reports it, where the signal does not end this process.
  for (const s of forwarded) process.off(s, forward);
  process.kill(process.pid, signal);
  process.exit(128 + (os.constants.signals[signal] ?? 0));
});
