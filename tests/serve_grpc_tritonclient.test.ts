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
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import { runPython, skipUnlessImportable, supportScript } from "./support/tritonclient.ts";
import type { Server } from "../mod.ts";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { GRPC_SKIP, startServer } from "./support/env.ts";

const script = supportScript("tritonclient_grpc_check.py");
const skip = GRPC_SKIP || await skipUnlessImportable("tritonclient.grpc");

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
  const { code, output } = await runPython([script, service!.address]);
  assert.equal(code, 0, output);
  assert.match(output, /tritonclient\.grpc: all \d+ checks passed/);
  assert.equal(server!.inflight, 0);
});
