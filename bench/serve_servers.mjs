// The servers `npm run bench:serve` and bench/threads.mjs put side by side: Triton's own
// `tritonserver` (TRITONSERVER_BIN) or examples/serve.ts on one runtime, serving one model
// repository on loopback. Plain Node ESM.
import { spawn } from "node:child_process";
import process from "node:process";
import { resolve } from "node:path";
import { runtimeCommand } from "../tests/runtime_command.mjs";

/** Exits (status 0, saying why) unless `env` names perf_analyzer and a real core: `bench`, the
 * script's name, cannot run without them. */
export function needPerfAnalyzer(bench, env) {
  if (env.PERF_ANALYZER && env.TRITONSERVER_LIB && env.TRITONSERVER_BACKEND_DIR) return;
  console.log(
    `${bench} needs PERF_ANALYZER (Triton's perf_analyzer) and a real core ` +
      "(TRITONSERVER_LIB, TRITONSERVER_BACKEND_DIR); nothing ran",
  );
  process.exit(0);
}

/** The servers to put side by side: tritonserver where TRITONSERVER_BIN names it, then each
 * entry of BENCH_RUNTIMES (default "deno,bun,node"; see {@link variant}). */
export function benchServers(env) {
  const runtimes = (env.BENCH_RUNTIMES ?? "deno,bun,node").split(",");
  return [...(env.TRITONSERVER_BIN ? ["tritonserver"] : []), ...runtimes];
}

/**
 * A server entry's runtime, checkout and extra environment: `node`, `node:KEY=VALUE:KEY2=VALUE2`,
 * or `node@DIR` for examples/serve.ts of another checkout (a `git worktree` of the commit before
 * a change, to put both side by side).
 */
export function variant(name) {
  const [head, ...vars] = name.split(":");
  const [runtime, dir] = head.split("@");
  return { runtime, dir, env: Object.fromEntries(vars.map((v) => v.split("="))) };
}

/**
 * Starts server `name` ("tritonserver", or a runtime entry as {@link variant} reads it) on
 * 127.0.0.1 at `ports.http` and `ports.grpc`; resolves once it answers ready, with its process
 * and a function that stops it (SIGINT) and resolves when it exited.
 * @param {{ root: string, env: Record<string, string | undefined>, repo: string,
 *   ports: { http: number, grpc: number } }} where
 */
export async function startServer(name, { root, env, repo, ports }) {
  const [cmd, args] = name === "tritonserver"
    ? [env.TRITONSERVER_BIN, [
      `--model-repository=${repo}`,
      `--backend-directory=${env.TRITONSERVER_BACKEND_DIR}`,
      "--http-address=127.0.0.1",
      `--http-port=${ports.http}`,
      "--grpc-address=127.0.0.1",
      `--grpc-port=${ports.grpc}`,
      "--allow-metrics=false",
      "--log-info=false",
      // Clients may register system shared memory (the shared-memory rows), as ALLOW_CLIENT_SHM
      // below lets them with examples/serve.ts.
      "--allow-client-shm=true",
    ]]
    : runtimeCommand(root, variant(name).runtime, "examples/serve.ts", {
      // --unstable-net: a variant with WORKERS=n serves HTTP (Deno.serve's reusePort) and gRPC
      // (node:http2's) on n threads.
      deno: ["--allow-net", "--unstable-no-legacy-abort", "--unstable-net"],
    });
  const child = spawn(cmd, args, {
    cwd: name === "tritonserver" ? root : resolve(root, variant(name).dir ?? "."),
    env: {
      ...env,
      ...(name === "tritonserver" ? {} : variant(name).env),
      ALLOW_CLIENT_SHM: "1",
      // perf_analyzer is the only client: serve gRPC on Deno too (docs/serving.md says why it is
      // off there by default).
      TRITONFFI_ALLOW_DENO_HTTP2: "1",
      MODEL_REPOSITORY: repo,
      PORT: String(ports.http),
      GRPC_PORT: String(ports.grpc),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  for (let i = 0; i < 600; i++) {
    const ready = await fetch(`http://127.0.0.1:${ports.http}/v2/health/ready`)
      .then((r) => r.ok, () => false);
    if (ready) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    pid: child.pid,
    stop: () => {
      child.kill("SIGINT");
      return exited;
    },
  };
}
