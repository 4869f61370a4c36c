/**
 * CUDA shared memory as users use it, with Triton's own clients: `tritonclient.http` and `.grpc`
 * with `tritonclient.utils.cuda_shared_memory` (GPU regions created in the client's process,
 * registered by their IPC handles, inputs and outputs in them, byte-exact, status, unregister),
 * against `serve()` and `serveGrpc()` sharing one `SharedMemoryRegions`. It needs what CI lacks,
 * and is skipped with the reason otherwise: a GPU, `tritonclient[all]` with cuda-python, and the
 * server on a real CUDA runtime (`TRITONFFI_CUDART=/usr/local/cuda/lib64/libcudart.so`): the
 * tests' fake runtime cannot open a real GPU's IPC handles.
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { type HttpService, serve, SharedMemoryRegions } from "../serve.ts";
import type { Server } from "../mod.ts";
import { test } from "./support/test.ts";
import { fakeCuda, GRPC_SKIP, idle, startServer } from "./support/env.ts";
import { runPython, skipUnlessImportable, supportScript } from "./support/tritonclient.ts";

const script = supportScript("tritonclient_cuda_shm_check.py");
const skip = (await skipUnlessImportable("tritonclient.utils.cuda_shared_memory")) ||
  ((await fakeCuda()) !== undefined &&
    "the server's CUDA runtime is the tests' fake one, which cannot open a real GPU's IPC " +
      "handles (set TRITONFFI_CUDART to a real libcudart.so on a machine with a GPU)");

let server: Server | undefined;
let regions: SharedMemoryRegions | undefined;
let http: HttpService | undefined;
let grpcService: GrpcService | undefined;
before(async () => {
  if (skip) return;
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
    `tritonclient.${protocol} with tritonclient.utils.cuda_shared_memory: inputs and outputs in GPU regions`,
    { skip: skip || (protocol === "grpc" && GRPC_SKIP) },
    async () => {
      const address = protocol === "http" ? `127.0.0.1:${http!.port}` : grpcService!.address;
      const { code, output } = await runPython([script, protocol, address]);
      assert.equal(code, 0, output);
      assert.match(
        output,
        new RegExp(`tritonclient\\.${protocol} cuda shared memory: 20 inferences`),
      );
      assert.deepEqual(regions!.cudaStatus(), []);
      await idle(server!);
    },
  );
}
