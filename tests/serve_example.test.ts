/**
 * examples/serve.ts (`npm run serve`) started a second time on the ports of one that runs: it
 * exits 1 with one line on stderr naming the variable to change (`PORT`, `GRPC_PORT`), before
 * loading a model; the first one then stops on SIGINT as before.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import process from "node:process";
import { test } from "./support/test.ts";
import { MODEL_REPOSITORY } from "./support/env.ts";

const script = decodeURIComponent(new URL("../examples/serve.ts", import.meta.url).pathname);

/** The command that runs `script` on this runtime, with what a server needs on Deno. */
function command(): [string, string[]] {
  const deno = (globalThis as { Deno?: { execPath(): string } }).Deno;
  if (deno) {
    return [deno.execPath(), [
      "run",
      "--allow-ffi",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      "--allow-net",
      "--unstable-no-legacy-abort",
      script,
    ]];
  }
  return [process.execPath, [script]];
}

interface Run {
  out: string;
  err: string;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  readonly pid: number;
}

/** Starts the example with `env` added to the environment. */
function start(env: Record<string, string>): Run {
  const [cmd, args] = command();
  const child = spawn(cmd, args, {
    // On Deno gRPC is served where opted in (see GRPC_SKIP); no client calls this service, so
    // nothing here reaches what can abort Deno's node:http2 server.
    env: { ...process.env, MODEL_REPOSITORY, TRITONFFI_ALLOW_DENO_HTTP2: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const run: Run = {
    out: "",
    err: "",
    pid: child.pid!,
    exited: new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal }))),
  };
  child.stdout.on("data", (d) => (run.out += d));
  child.stderr.on("data", (d) => (run.err += d));
  return run;
}

test("examples/serve.ts on a port in use: one line naming PORT or GRPC_PORT", async () => {
  // PORT 0, GRPC_PORT 0: any free ports; the example prints the ones it got.
  const first = start({ PORT: "0", GRPC_PORT: "0" });
  try {
    const deadline = Date.now() + 60_000;
    let ports: RegExpExecArray | null = null;
    while (!ports && Date.now() < deadline) {
      ports = /KServe v2 on http:\/\/127\.0\.0\.1:(\d+) and gRPC 127\.0\.0\.1:(\d+)/.exec(
        first.out,
      );
      if (!ports) await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(ports, `the first example did not say where it listens:\n${first.out}\n${first.err}`);
    const [, http, grpc] = ports;

    for (
      const [env, variable] of [
        [{ PORT: http, GRPC_PORT: "0" }, "PORT"],
        [{ PORT: "0", GRPC_PORT: grpc }, "GRPC_PORT"],
      ] as const
    ) {
      const second = start(env);
      const { code, signal } = await second.exited;
      assert.equal(signal, null, `killed by ${signal}:\n${second.err}`);
      assert.equal(code, 1, `exit ${code}:\n${second.out}\n${second.err}`);
      const port = variable === "PORT" ? http : grpc;
      assert.equal(
        second.err,
        `examples/serve.ts: cannot listen on 127.0.0.1:${port} (${variable}): the port is in ` +
          `use; set ${variable} to a free port\n`,
      );
      assert.equal(second.out, "", "nothing else printed");
    }
  } finally {
    // process.kill, not child.kill: Deno's node:child_process reports a child it signalled itself
    // as killed by that signal, whatever the child's exit status.
    process.kill(first.pid, "SIGINT");
  }
  const { code, signal } = await first.exited;
  assert.equal(signal, null, `killed by ${signal}:\n${first.out}\n${first.err}`);
  assert.equal(code, 0, `exit ${code}:\n${first.out}\n${first.err}`);
});
