/**
 * The front ends at real tensor sizes, driven by Triton's own clients: `tritonclient.http` and
 * `tritonclient.grpc` send and get back 128 KiB and 64 MiB tensors and eight 8 MiB calls at once
 * on one client (tests/support/tritonclient_large_check.py), and `perf_analyzer` runs 16 MiB
 * tensors at concurrency 8 over HTTP and gRPC with every output checked against its input
 * (`validation_data`). Every byte must arrive, none may be refused.
 *
 * Needs a Python with `tritonclient[all]` importable (`pip install tritonclient[all]`, or a copy on
 * `$TRITONCLIENT_PYTHONPATH`; `$TRITONCLIENT_PYTHON` picks the interpreter) and numpy, and for the
 * perf_analyzer part `$PERF_ANALYZER` (Triton's perf_analyzer, as in Triton's SDK container).
 * Each part is skipped, with the reason, where its client is missing.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { Buffer } from "node:buffer";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { test } from "./support/test.ts";
import { runPython, skipUnlessImportable, supportScript } from "./support/tritonclient.ts";
import { runPerfAnalyzer, skipPerf } from "./support/perf_analyzer.ts";
import { GRPC_SKIP } from "./support/env.ts";
import { type Serving, settled, startServing, stopServing } from "./support/serve.ts";

const script = supportScript("tritonclient_large_check.py");
const skipHttp = await skipUnlessImportable("tritonclient.http");
const skipGrpc = GRPC_SKIP || await skipUnlessImportable("tritonclient.grpc");

let s: Serving | undefined;
let grpcService: GrpcService | undefined;
let dir: string | undefined;
before(async () => {
  if (skipHttp && skipGrpc && skipPerf) return;
  s = await startServing();
  if (!GRPC_SKIP) grpcService = await serveGrpc(s.server, { port: 0 });
  dir = mkdtempSync(join(tmpdir(), "tritonffi-large-"));
});
after(async () => {
  await grpcService?.close();
  await stopServing(s);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Waits until neither front end nor Triton has anything in flight. */
async function settledBoth(): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((grpcService?.active ?? 0) > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(grpcService?.active ?? 0, 0, "gRPC calls still being served");
  await settled(s!);
}

for (const [protocol, skip] of [["http", skipHttp], ["grpc", skipGrpc]] as const) {
  test(`tritonclient.${protocol}: 64 MiB tensors and eight 8 MiB calls at once, byte-exact`, {
    skip,
  }, async () => {
    const address = protocol === "http" ? `127.0.0.1:${s!.http.port}` : grpcService!.address;
    const { code, output } = await runPython([script, protocol, address]);
    assert.equal(code, 0, output);
    assert.match(output, new RegExp(`tritonclient\\.${protocol} at real sizes: all 11 checks`));
    await settledBoth();
  });
}

/** An identity model of fixed shape [1, 4194304]: perf_analyzer r25.12 validates only outputs
 * whose model shape is fully defined (`--shape` reaches inputs alone). */
const FIXED_MODEL = "identity_int32_16mib";
const FIXED_ELEMENTS = 4 * 1024 * 1024;
/** perf_analyzer's requests per protocol. */
const REQUESTS = 48;
let fixedLoaded: Promise<unknown> | undefined;
function loadFixedModel(): Promise<unknown> {
  return fixedLoaded ??= s!.server.loadModel(FIXED_MODEL, {
    config: {
      name: FIXED_MODEL,
      backend: "identity",
      max_batch_size: 8,
      input: [{ name: "INPUT0", data_type: "TYPE_INT32", dims: [FIXED_ELEMENTS] }],
      output: [{ name: "OUTPUT0", data_type: "TYPE_INT32", dims: [FIXED_ELEMENTS] }],
    },
    files: { "1/README.txt": new TextEncoder().encode("identity needs no model file\n") },
  });
}

/** 16 MiB (4,194,304 INT32) of input and, as validation data, the same bytes expected back. */
function validatedInput(): string {
  const elements = FIXED_ELEMENTS;
  const data = Int32Array.from({ length: elements }, (_, i) => (i * 2654435761) | 0);
  const b64 = Buffer.from(data.buffer).toString("base64");
  const path = join(dir!, "identity_16mib.json");
  writeFileSync(
    path,
    JSON.stringify({
      data: [{ INPUT0: { content: { b64 }, shape: [elements] } }],
      validation_data: [{ OUTPUT0: { content: { b64 }, shape: [elements] } }],
    }),
  );
  return path;
}

for (const protocol of ["http", "grpc"] as const) {
  test(`perf_analyzer -i ${protocol}: 16 MiB tensors at concurrency 8, outputs validated`, {
    skip: skipPerf || (protocol === "grpc" && GRPC_SKIP),
    timeout: 600_000,
  }, async () => {
    const url = protocol === "http" ? `127.0.0.1:${s!.http.port}` : grpcService!.address;
    await loadFixedModel();
    const model = s!.server.model(FIXED_MODEL);
    const before = model.statistics().inference_stats;
    const { code, output } = await runPerfAnalyzer([
      "-m",
      FIXED_MODEL,
      "-u",
      url,
      "-i",
      protocol,
      "--input-data",
      validatedInput(),
      "--concurrency-range",
      "8",
      "--request-count", // a fixed count: no stability to reach on a busy 2-vCPU machine
      String(REQUESTS),
    ]);
    assert.equal(code, 0, output);
    assert.match(output, new RegExp(`Request count: ${REQUESTS}\\b`), output);
    // A response unlike validation_data is an error line. perf_analyzer's note that its own
    // threads fell behind the concurrency asked is about the client, not the bytes.
    const clientBehind = /^Failed to maintain requested inference load.*$/gm;
    assert.doesNotMatch(output.replace(clientBehind, ""), /error|failed|mismatch|match/i, output);
    const after = model.statistics().inference_stats;
    assert.ok(after.success.count - before.success.count >= REQUESTS, output);
    assert.equal(after.fail.count, before.fail.count, output);
    await settledBoth();
  });
}
