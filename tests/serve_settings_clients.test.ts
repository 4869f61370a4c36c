/**
 * The logging and trace extensions as operators use them, with Triton's own clients:
 * `tritonclient.http` and `.grpc` read and update the log settings and the global and per-model
 * trace settings of `serve()` and `serveGrpc()`, and the traces the model's settings asked for are
 * in the trace file. Skipped, with the reason, where the clients are not installed (CI): `pip
 * install tritonclient[all]` brings them.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before } from "node:test";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { serve } from "../serve.ts";
import type { Server } from "../mod.ts";
import { test } from "./support/test.ts";
import { GRPC_SKIP, idle, startServer } from "./support/env.ts";
import { runPython, skipUnlessImportable, supportScript } from "./support/tritonclient.ts";

const script = supportScript("tritonclient_settings_check.py");
// Each protocol's client: a Python may have one and lack the other's libraries (geventhttpclient,
// grpcio).
const skipClient = {
  http: await skipUnlessImportable("tritonclient.http"),
  grpc: GRPC_SKIP || await skipUnlessImportable("tritonclient.grpc"),
};

let server: Server | undefined;
let dir: string | undefined;
before(async () => {
  if (skipClient.http && skipClient.grpc) return;
  server = await startServer({ modelControlMode: "explicit", startupModels: ["identity_int32"] });
  dir = mkdtempSync(join(tmpdir(), "tritonffi-settings-clients-"));
});
after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

for (const protocol of ["http", "grpc"] as const) {
  test(`tritonclient.${protocol}: log and trace settings, and the traces they asked for`, {
    skip: skipClient[protocol],
  }, async () => {
    const file = join(dir!, `${protocol}.json`);
    const http = protocol === "http" ? await serve(server!, { port: 0, trace: { file } }) : null;
    const service = http ?? await serveGrpc(server!, { port: 0, trace: { file } });
    const address = http ? `127.0.0.1:${http.port}` : (service as GrpcService).address;
    let result;
    try {
      result = await runPython([script, protocol, address, file]);
      await idle(server!);
    } finally {
      // The trace file is written at close (log_frequency 0).
      await service.close();
    }
    assert.equal(result.code, 0, result.output);
    assert.match(result.output, new RegExp(`tritonclient\\.${protocol} settings: log and trace`));
    // The model's trace_count of 2 traced the first two of its three inferences.
    const objects = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>[];
    const requests = objects.filter((o) => o.model_name !== undefined);
    assert.equal(requests.length, 2, JSON.stringify(objects));
    for (const r of requests) assert.equal(r.model_name, "identity_int32");
    const ids = new Set(requests.map((r) => r.id));
    const names = objects
      .filter((o) => ids.has(o.id))
      .flatMap((o) => ((o.timestamps ?? []) as { name: string }[]).map((t) => t.name));
    assert.equal(names.filter((n) => n === "REQUEST_START").length, 2, names.join());
    assert.equal(names.filter((n) => n === "COMPUTE_START").length, 2, names.join());
    // The log settings are back where they were.
    assert.equal(server!.logEnabled("verbose"), false);
  });
}
