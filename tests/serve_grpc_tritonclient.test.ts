/**
 * `serveGrpc()` driven by Triton's own Python gRPC client (`tritonclient.grpc`): metadata,
 * config, every data type, errors, a decoupled stream with its final flags, and the repository,
 * as the client sees them against tritonserver.
 *
 * Needs a Python with `tritonclient.grpc` importable (`pip install tritonclient[all]`, or a copy
 * of it on `$TRITONCLIENT_PYTHONPATH`) and numpy; `$TRITONCLIENT_PYTHON` picks the interpreter
 * (default `python3`). Skipped, with the reason, where there is none.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import { env } from "../ffi/runtime.ts";
import type { Server } from "../mod.ts";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { startServer } from "./support/env.ts";

const script = decodeURIComponent(
  new URL("./support/tritonclient_grpc_check.py", import.meta.url).pathname,
);
const python = env("TRITONCLIENT_PYTHON") ?? "python3";
const pythonPath = env("TRITONCLIENT_PYTHONPATH");
const childEnv = {
  ...(globalThis as { process?: { env: Record<string, string> } }).process?.env,
  ...(pythonPath ? { PYTHONPATH: pythonPath } : {}),
};

/** Runs python with `args` (off the event loop, which serves the calls the script makes). */
function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    let output = "";
    const child = spawn(python, args, { env: childEnv });
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", (e) => resolve({ code: null, output: String(e) }));
    child.on("close", (code) => resolve({ code, output }));
  });
}

const probe = await run(["-c", "import tritonclient.grpc"]);
const skip = probe.code === 0
  ? false
  : `tritonclient.grpc is not importable with ${python}${
    pythonPath ? ` and PYTHONPATH=${pythonPath}` : ""
  } (see this file's header)`;

let server: Server | undefined;
let service: GrpcService | undefined;
before(async () => {
  if (skip) return;
  server = await startServer({ modelControlMode: "explicit", startupModels: ["*"] });
  service = await serveGrpc(server, { port: 0 });
});
after(async () => {
  await service?.close();
  await server?.stop();
});

test("Triton's Python gRPC client gets tritonserver's answers", { skip }, async () => {
  const { code, output } = await run([script, service!.address]);
  assert.equal(code, 0, output);
  assert.match(output, /tritonclient\.grpc: all \d+ checks passed/);
  assert.equal(server!.inflight, 0);
});
