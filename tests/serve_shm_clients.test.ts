/**
 * System shared memory as users use it, with Triton's own clients: `tritonclient.http` and
 * `.grpc` with `tritonclient.utils.shared_memory` (create, register, infer with the input and the
 * output in regions, byte-exact, status, unregister), and `perf_analyzer --shared-memory system`
 * on both protocols, against `serve()` and `serveGrpc()` sharing one `SharedMemoryRegions`.
 * Skipped, with the reason, where the clients are not installed (CI): `pip install
 * tritonclient[all]` and perf_analyzer (Triton's SDK container) bring them.
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { type HttpService, serve, SharedMemoryRegions } from "../serve.ts";
import type { Server } from "../mod.ts";
import { test } from "./support/test.ts";
import { GRPC_SKIP, idle, startServer } from "./support/env.ts";
import { runPython, skipUnlessImportable, supportScript } from "./support/tritonclient.ts";
import { runPerfAnalyzer, skipPerf } from "./support/perf_analyzer.ts";

const script = supportScript("tritonclient_shm_check.py");
// Each protocol's client with the shared memory helpers: a Python that imports the helpers
// (numpy) may lack one client's own libraries (geventhttpclient, grpcio).
const skipClient = {
  http: await skipUnlessImportable("tritonclient.http, tritonclient.utils.shared_memory"),
  grpc: GRPC_SKIP ||
    await skipUnlessImportable("tritonclient.grpc, tritonclient.utils.shared_memory"),
};

let server: Server | undefined;
let regions: SharedMemoryRegions | undefined;
let http: HttpService | undefined;
let grpcService: GrpcService | undefined;
before(async () => {
  if (skipClient.http && skipClient.grpc && skipPerf) return;
  server = await startServer({ modelControlMode: "explicit", startupModels: ["identity_int32"] });
  regions = new SharedMemoryRegions(server);
  http = await serve(server, { port: 0, sharedMemory: regions });
  if (!GRPC_SKIP) grpcService = await serveGrpc(server, { port: 0, sharedMemory: regions });
});
after(async () => {
  await http?.close();
  await grpcService?.close();
  regions?.close();
  await server?.stop();
});

for (const protocol of ["http", "grpc"] as const) {
  test(
    `tritonclient.${protocol} with tritonclient.utils.shared_memory: inputs and outputs in regions`,
    {
      skip: skipClient[protocol],
    },
    async () => {
      const address = protocol === "http" ? `127.0.0.1:${http!.port}` : grpcService!.address;
      const { code, output } = await runPython([script, protocol, address]);
      assert.equal(code, 0, output);
      assert.match(output, new RegExp(`tritonclient\\.${protocol} shared memory: 20 inferences`));
      assert.deepEqual(regions!.status(), []);
      await idle(server!);
    },
  );
}

for (const protocol of ["http", "grpc"] as const) {
  test(`perf_analyzer -i ${protocol} --shared-memory system: every request through regions`, {
    skip: skipPerf || (protocol === "grpc" && GRPC_SKIP),
    timeout: 300_000,
  }, async () => {
    const url = protocol === "http" ? `127.0.0.1:${http!.port}` : grpcService!.address;
    const model = server!.model("identity_int32");
    const before = model.statistics().inference_stats.success.count;
    const { code, output } = await runPerfAnalyzer([
      "-m",
      "identity_int32",
      "-u",
      url,
      "-i",
      protocol,
      "--shared-memory",
      "system",
      "--output-shared-memory-size",
      "4096",
      "--shape",
      "INPUT0:16",
      "--concurrency-range",
      "4",
      "--request-count",
      "200",
    ]);
    assert.equal(code, 0, output);
    assert.match(output, /Throughput: [\d.]+ infer\/sec/);
    const served = model.statistics().inference_stats.success.count - before;
    assert.ok(served >= 200, `${served} inferences served`);
    // perf_analyzer unregisters its regions when done.
    assert.deepEqual(regions!.status(), []);
    await idle(server!);
  });
}
