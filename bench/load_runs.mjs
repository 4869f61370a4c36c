// What the load benches (bench:http, bench:openai) share: the core they run on, and running one
// TypeScript bench file on each runtime, collecting the JSON lines it prints. Plain Node ESM.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import process from "node:process";
import { runtimeCommand } from "../tests/runtime_command.mjs";

/**
 * The core to run on: the real one when TRITONSERVER_LIB and TRITONSERVER_BACKEND_DIR are set in
 * `env`, otherwise the project's fake core, built and set as `env.TRITONSERVER_LIB`. Prints which.
 * @param {string} root the project root
 * @param {Record<string, string | undefined>} env the environment the runs get (changed here)
 * @param {string} name the bench's name, for the line printed
 * @returns {"real" | "fake"}
 */
export function benchCore(root, env, name) {
  let core = "real";
  if (!(env.TRITONSERVER_LIB && env.TRITONSERVER_BACKEND_DIR)) {
    const build = spawnSync(process.execPath, [join(root, "tests/fake_core/build.mjs")], {
      stdio: "inherit",
    });
    if (build.status !== 0) process.exit(1);
    env.TRITONSERVER_LIB = join(root, ".build/fake_core/libtritonserver.so");
    core = "fake";
  }
  console.log(`${name}: ${core} core ${env.TRITONSERVER_LIB}`);
  return core;
}

/**
 * Runs `script` on each runtime of BENCH_RUNTIMES (default Deno, Bun and Node; Deno with the
 * network, child processes and the new request-signal behaviour) and collects the JSON object of
 * each line it prints; exits the process when a run fails.
 * @param {string} root the project root
 * @param {Record<string, string | undefined>} env the runs' environment
 * @param {string} name the bench's name, for the error printed
 * @param {string} script the bench file, relative to `root`
 * @param {number} timeoutMs the longest one runtime's run may take
 * @param {() => void} [afterEach] called after each runtime's run
 * @returns {object[]} every line's object, in order
 */
export function runOnRuntimes(root, env, name, script, timeoutMs, afterEach = () => {}) {
  const rows = [];
  for (const runtime of (env.BENCH_RUNTIMES ?? "deno,bun,node").split(",")) {
    const [cmd, args] = runtimeCommand(root, runtime, script, {
      deno: ["--allow-net", "--allow-run", "--unstable-no-legacy-abort"],
    });
    const r = spawnSync(cmd, args, {
      cwd: root,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      timeout: timeoutMs,
    });
    if (r.status !== 0) {
      console.error(`${name}: ${runtime} failed (${r.status ?? r.signal})`);
      process.exit(1);
    }
    for (const line of r.stdout.split("\n")) if (line.trim()) rows.push(JSON.parse(line));
    afterEach();
  }
  return rows;
}
