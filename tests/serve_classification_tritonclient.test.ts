/**
 * The classification extension driven by Triton's own Python clients: `tritonclient.http` and
 * `tritonclient.grpc` ask for `InferRequestedOutput(name, class_count=k)` over `serve()` and
 * `serveGrpc()` and must decode tritonserver's answers (labels, batch rows, a model that does not
 * batch, k past the class count, ties, binary and JSON data, the error for BOOL).
 *
 * Needs a Python with `tritonclient.http` and `tritonclient.grpc` importable (`pip install
 * tritonclient[all]`, or a copy of it on `$TRITONCLIENT_PYTHONPATH`) and numpy;
 * `$TRITONCLIENT_PYTHON` picks the interpreter (default `python3`). Skipped, with the reason,
 * where there is none.
 *
 * @module
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { test } from "./support/test.ts";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { runPython, skipUnlessImportable, supportScript } from "./support/tritonclient.ts";
import { type Serving, settled, startServing, stopServing } from "./support/serve.ts";
import { GRPC_SKIP } from "./support/env.ts";

const script = supportScript("tritonclient_classification_check.py");
const skip = GRPC_SKIP || await skipUnlessImportable("tritonclient.http, tritonclient.grpc");

let s: Serving | undefined;
let g: GrpcService | undefined;
before(async () => {
  if (skip) return;
  s = await startServing({}, {
    startupModels: ["labels_fp32", "labels_int32", "identity_int32", "identity_bool"],
  });
  g = await serveGrpc(s.server, { port: 0 });
});
after(async () => {
  await g?.close();
  await stopServing(s);
});

test(
  "Triton's Python clients decode the classifications tritonserver gives",
  { skip },
  async () => {
    const http = `127.0.0.1:${s!.http.port}`;
    const grpc = g!.address;
    const { code, output } = await runPython([script, http, grpc]);
    assert.equal(code, 0, output);
    assert.match(output, /tritonclient classification: all \d+ checks passed/);
    console.log(output.trim());
    await settled(s!);
  },
);
