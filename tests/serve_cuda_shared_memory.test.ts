/**
 * CUDA shared memory over both front ends, on the fake CUDA runtime (whose "device" memory is host
 * memory, and which opens an IPC handle in the process that made it, where real CUDA refuses): a
 * buffer the test `cudaMalloc`s, registered by its `cudaIpcGetMemHandle` handle over HTTP and
 * gRPC (both transports); inputs given to Triton in place as GPU memory and outputs copied into
 * the buffer, byte-exact; the status and unregister calls; every bound (a size past the buffer, a
 * part past its region), bad handles, one name space with the system regions; a region
 * unregistered while a request uses it closed only after; close() closing every opening; and
 * without a CUDA runtime, tritonserver's "GPUs not supported". The fake core stands for a core
 * built with GPU support (it reads and writes GPU memory through the CUDA runtime in the process);
 * the real core built here has none, and refuses an input in GPU memory, which is checked instead.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { test } from "./support/test.ts";
import type { Server } from "../mod.ts";
import { type HttpService, serve, SharedMemoryRegions } from "../serve.ts";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { fakeCuda, GRPC_SKIP, idle, isFakeCore, runScript, startServer } from "./support/env.ts";
import { int32s, type Msg } from "./support/grpc_requests.ts";

const cuda = await fakeCuda();
const skip = !cuda && "needs the fake CUDA runtime (TRITONFFI_CUDART)";
/** Whether the core takes inputs in GPU memory (the fake one; the real one built here has no GPU
 * support, and answers {@link CPU_ONLY}). */
const gpuCore = await isFakeCore();
const CPU_ONLY = "INPUT0: try to use CUDA copy while GPU is not supported";

/** The test's device buffer: inputs at 0, outputs from 4096. */
const BUFFER_BYTES = 8192;
let buffer = 0;
let handle: Uint8Array = new Uint8Array(0);
const b64 = () => Buffer.from(handle).toString("base64");

let server: Server;
let regions: SharedMemoryRegions;
let http: HttpService;
let plain: HttpService;
const grpcs: GrpcService[] = [];

const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");
type GrpcClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

before(async () => {
  if (!cuda) return;
  server = await startServer({ modelControlMode: "explicit", startupModels: ["identity_int32"] });
  regions = new SharedMemoryRegions(server);
  http = await serve(server, { port: 0, sharedMemory: regions });
  plain = await serve(server, { port: 0 });
  // Without gRPC (GRPC_SKIP) eachGrpc() has no transport and the tests check HTTP alone.
  for (const transport of GRPC_SKIP ? [] : ["grpc-js", "http2"] as const) {
    grpcs.push(await serveGrpc(server, { port: 0, transport, sharedMemory: regions }));
  }
  buffer = cuda.malloc(BUFFER_BYTES);
  handle = cuda.ipcHandle(buffer);
});
after(async () => {
  await http?.close();
  await plain?.close();
  for (const g of grpcs) await g.close();
  regions?.close();
  if (buffer) cuda?.free(buffer);
  await server?.stop();
});

async function post(
  service: HttpService,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`${service.url}${path}`, {
    method: "POST",
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, json: text === "" ? undefined : JSON.parse(text) };
}

function call(client: GrpcClient, rpc: string, message: Msg): Promise<Msg> {
  return new Promise((resolve, reject) => {
    client[rpc](message, (e: grpc.ServiceError | null, r: Msg) => (e ? reject(e) : resolve(r)));
  });
}

/** Runs `body` with a client of each gRPC transport. */
async function eachGrpc(body: (client: GrpcClient, i: number) => Promise<void>): Promise<void> {
  for (const [i, service] of grpcs.entries()) {
    const client = new Client(service.address, grpc.credentials.createInsecure()) as GrpcClient;
    try {
      await body(client, i);
    } finally {
      client.close();
    }
  }
}

/** Checks that a gRPC inference was refused by a core without GPU support. */
async function refused(answer: Promise<Msg>): Promise<void> {
  await assert.rejects(
    answer,
    (e: grpc.ServiceError) => e.code === grpc.status.INTERNAL && e.details === CPU_ONLY,
  );
}

const readInts = (offset: number, count: number) =>
  Array.from(new Int32Array(cuda!.read(buffer + offset, count * 4).buffer));

const register = (name: string, byteSize: number, extra: Record<string, unknown> = {}) =>
  post(http, `/v2/cudasharedmemory/region/${name}/register`, {
    raw_handle: { b64: b64() },
    device_id: 0,
    byte_size: byteSize,
    ...extra,
  });

const shmParams = (region: string, byteSize: number, offset?: number) => ({
  shared_memory_region: region,
  shared_memory_byte_size: byteSize,
  ...(offset === undefined ? {} : { shared_memory_offset: offset }),
});

/** An identity_int32 request over HTTP: its input (16 elements) and output in regions. */
const httpInfer = (input: Record<string, unknown>, output: Record<string, unknown>) => ({
  inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 16], parameters: input }],
  outputs: [{ name: "OUTPUT0", parameters: output }],
});

/** The same over gRPC. */
function grpcInfer(input: Record<string, unknown>, output: Record<string, unknown>): Msg {
  const params = (p: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(p).map((
        [k, v],
      ) => [k, typeof v === "string" ? { string_param: v } : { int64_param: String(v) }]),
    );
  return {
    model_name: "identity_int32",
    inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, 16], parameters: params(input) }],
    outputs: [{ name: "OUTPUT0", parameters: params(output) }],
  };
}

test("a CUDA region registered over HTTP serves inputs and outputs, over HTTP and gRPC", {
  skip,
}, async () => {
  const values = Array.from({ length: 16 }, (_, i) => i * 977 - 5);
  cuda!.write(buffer, int32s(values));
  const opened = cuda!.live("ipc");
  assert.deepEqual(await register("gpu", BUFFER_BYTES), { status: 200, json: undefined });
  assert.equal(cuda!.live("ipc"), opened + 1, "one cudaIpcOpenMemHandle");
  const status = await (await fetch(`${http.url}/v2/cudasharedmemory/status`)).json();
  assert.deepEqual(status, [{ name: "gpu", device_id: 0, byte_size: BUFFER_BYTES }]);
  const one = await (await fetch(`${http.url}/v2/cudasharedmemory/region/gpu/status`)).json();
  assert.deepEqual(one, status);
  // The system status lists it not.
  assert.deepEqual(await (await fetch(`${http.url}/v2/systemsharedmemory/status`)).json(), []);
  const meta = await (await fetch(`${http.url}/v2`)).json() as { extensions: string[] };
  assert.ok(meta.extensions.includes("cuda_shared_memory"));
  const plainMeta = await (await fetch(`${plain.url}/v2`)).json() as { extensions: string[] };
  assert.ok(!plainMeta.extensions.includes("cuda_shared_memory"));

  const r = await post(
    http,
    "/v2/models/identity_int32/infer",
    httpInfer(shmParams("gpu", 64), shmParams("gpu", 64, 4096)),
  );
  if (gpuCore) {
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.deepEqual((r.json as { outputs: unknown[] }).outputs, [
      { name: "OUTPUT0", datatype: "INT32", shape: [1, 16] },
    ]);
    assert.deepEqual(readInts(4096, 16), values);
  } else {
    assert.deepEqual(r, { status: 500, json: { error: CPU_ONLY } });
  }

  await eachGrpc(async (client, i) => {
    const st = await call(client, "CudaSharedMemoryStatus", { name: "gpu" });
    assert.deepEqual(st, {
      regions: { gpu: { name: "gpu", device_id: "0", byte_size: String(BUFFER_BYTES) } },
    });
    const meta = await call(client, "ServerMetadata", {});
    assert.ok((meta.extensions as string[]).includes("cuda_shared_memory"));
    cuda!.write(buffer + 4096 + 512, new Uint8Array(64));
    const res = call(
      client,
      "ModelInfer",
      grpcInfer(shmParams("gpu", 64), shmParams("gpu", 64, 4096 + 512)),
    );
    if (!gpuCore) return await refused(res);
    assert.deepEqual((await res).raw_output_contents, [Buffer.alloc(0)], `transport ${i}`);
    assert.deepEqual(readInts(4096 + 512, 16), values, `transport ${i}`);
  });
  await idle(server);
  assert.equal((await post(http, "/v2/cudasharedmemory/region/gpu/unregister")).status, 200);
  assert.equal(cuda!.live("ipc"), opened, "closed by cudaIpcCloseMemHandle");
  const gone = await fetch(`${http.url}/v2/cudasharedmemory/region/gpu/status`);
  assert.equal(gone.status, 404);
  assert.deepEqual(await gone.json(), { error: "Unable to find cuda shared memory region: 'gpu'" });
});

test("CUDA regions registered and unregistered over gRPC (both transports)", {
  skip: skip || GRPC_SKIP,
}, async () => {
  const opened = cuda!.live("ipc");
  await eachGrpc(async (client, i) => {
    const name = `g${i}`;
    await call(client, "CudaSharedMemoryRegister", {
      name,
      raw_handle: handle,
      device_id: 0,
      byte_size: 256,
    });
    assert.deepEqual(regions.cudaStatus(name), [{ name, deviceId: 0, byteSize: 256 }]);
    const listed = await (await fetch(`${http.url}/v2/cudasharedmemory/region/${name}/status`))
      .json();
    assert.deepEqual(listed, [{ name, device_id: 0, byte_size: 256 }]);
    // Input and output in the same region, over this transport.
    const values = Array.from({ length: 16 }, (_, k) => k - 100 * i);
    cuda!.write(buffer + 64, int32s(values));
    const res = call(
      client,
      "ModelInfer",
      grpcInfer(shmParams(name, 64, 64), shmParams(name, 64, 128)),
    );
    if (gpuCore) {
      await res;
      assert.deepEqual(readInts(128, 16), values);
    } else await refused(res);
    await call(client, "CudaSharedMemoryUnregister", { name });
    await assert.rejects(
      call(client, "CudaSharedMemoryStatus", { name }),
      (e: grpc.ServiceError) =>
        e.code === grpc.status.NOT_FOUND &&
        e.details === `Unable to find cuda shared memory region: '${name}'`,
    );
  });
  await idle(server);
  assert.equal(cuda!.live("ipc"), opened);
});

test(
  "bad handles, sizes past the buffer, parts past the region: clear errors",
  { skip },
  async () => {
    const opened = cuda!.live("ipc");
    const reg = (name: string, body: unknown) =>
      post(http, `/v2/cudasharedmemory/region/${name}/register`, body);
    const error = (status: number, message: string) => ({ status, json: { error: message } });
    // Not a handle the runtime opens; not 64 bytes; not base64; fields missing.
    assert.deepEqual(
      await reg("r", {
        raw_handle: { b64: Buffer.alloc(64).toString("base64") },
        device_id: 0,
        byte_size: 8,
      }),
      error(400, "failed to register shared memory region: invalid args"),
    );
    // A device id past C's int (cudaSetDevice's parameter) names no device: refused as one.
    assert.deepEqual(
      await reg("r", { raw_handle: { b64: b64() }, device_id: 2 ** 31, byte_size: 8 }),
      error(400, "failed to register shared memory region: invalid args"),
    );
    for (const text of [Buffer.alloc(63).toString("base64"), "not base64!"]) {
      assert.deepEqual(
        await reg("r", { raw_handle: { b64: text }, device_id: 0, byte_size: 8 }),
        error(400, "'raw_handle' must be a valid base64 encoded cudaIpcMemHandle_t"),
      );
    }
    assert.deepEqual(
      await reg("r", { device_id: 0, byte_size: 8 }),
      error(400, "Shared memory register request has no 'raw_handle' field"),
    );
    assert.deepEqual(
      await reg("r", { raw_handle: { b64: b64() }, device_id: 0 }),
      error(400, "attempt to access non-existing object member 'byte_size'"),
    );
    assert.deepEqual(
      await reg("r", { raw_handle: {}, device_id: 0, byte_size: 8 }),
      error(400, "attempt to access non-existing object member 'b64'"),
    );
    // Past the buffer's end (the driver's allocation size): refused, nothing left open.
    assert.deepEqual(
      await register("r", BUFFER_BYTES + 1),
      error(400, "failed to register shared memory region 'r': invalid args"),
    );
    assert.equal(cuda!.live("ipc"), opened);
    // One name space with the system regions; a name twice.
    assert.equal((await register("r", 128)).status, 200);
    assert.deepEqual(
      await register("r", 128),
      error(400, "shared memory region 'r' already in manager"),
    );
    assert.deepEqual(
      await post(http, "/v2/systemsharedmemory/region/r/register", { key: "/x", byte_size: 8 }),
      error(400, "shared memory region 'r' already in manager"),
    );
    assert.deepEqual(
      await fetch(`${http.url}/v2/systemsharedmemory/region/r/status`).then(async (r) => ({
        status: r.status,
        json: await r.json(),
      })),
      error(
        404,
        "The region named 'r' is registered as CUDA shared memory, not system shared memory",
      ),
    );
    // A system region's name, asked of the CUDA status, or registered as a CUDA region.
    if (process.platform === "linux") {
      const key = `/tritonffi-cuda-test-${process.pid}`;
      assert.equal(spawnSync("truncate", ["-s", "64", `/dev/shm${key}`]).status, 0);
      try {
        regions.register("sys", key, 0, 64);
        assert.deepEqual(
          await fetch(`${http.url}/v2/cudasharedmemory/region/sys/status`).then(async (r) => ({
            status: r.status,
            json: await r.json(),
          })),
          error(
            404,
            "The region named 'sys' is registered as system shared memory, not CUDA shared memory",
          ),
        );
        assert.deepEqual(
          await register("sys", 64),
          error(400, "shared memory region 'sys' already in manager"),
        );
        // The CUDA unregister leaves a system region be.
        assert.equal((await post(http, "/v2/cudasharedmemory/region/sys/unregister")).status, 200);
        assert.equal(regions.status("sys").length, 1);
      } finally {
        regions.unregister("sys");
        spawnSync("rm", ["-f", `/dev/shm${key}`]);
      }
    }
    // The system unregister leaves a CUDA region be.
    assert.equal((await post(http, "/v2/systemsharedmemory/region/r/unregister")).status, 200);
    assert.equal(regions.cudaStatus("r").length, 1);
    // Parts past the region (128 bytes, not the buffer's 8192), a size that does not fit.
    const infer = (body: unknown) => post(http, "/v2/models/identity_int32/infer", body);
    assert.deepEqual(
      await infer(httpInfer(shmParams("r", 64, 100), {})),
      error(400, "Invalid offset + byte size for shared memory region: 'r'"),
    );
    assert.deepEqual(
      await infer(httpInfer(shmParams("r", 64), shmParams("r", 64, 128))),
      error(400, "Invalid offset for shared memory region: 'r'"),
    );
    assert.deepEqual(
      await infer(httpInfer(shmParams("r", 60), {})),
      error(
        400,
        "input 'INPUT0': INT32 shape [1, 16] needs 64 bytes, shared_memory_byte_size is 60",
      ),
    );
    assert.deepEqual(
      await infer(httpInfer(shmParams("r", 64), shmParams("r", 16, 64))),
      error(
        500,
        gpuCore
          ? "shared memory size specified with the request for output 'OUTPUT0' (16 bytes) " +
            "should be at least 64 bytes to hold the results"
          : CPU_ONLY,
      ),
    );
    // A negative device id over gRPC.
    await eachGrpc(async (client) => {
      await assert.rejects(
        call(client, "CudaSharedMemoryRegister", {
          name: "neg",
          raw_handle: handle,
          device_id: -1,
          byte_size: 8,
        }),
        (e: grpc.ServiceError) =>
          e.code === grpc.status.INVALID_ARGUMENT &&
          e.details === "'device_id' must be an unsigned integer, not -1",
      );
    });
    assert.equal((await post(http, "/v2/cudasharedmemory/unregister")).status, 200);
    await idle(server);
    assert.equal(cuda!.live("ipc"), opened);
  },
);

test("a CUDA region unregistered while a request uses it is closed when the request is done", {
  skip,
}, async () => {
  const opened = cuda!.live("ipc");
  const values = Array.from({ length: 16 }, (_, i) => 7 * i + 1);
  cuda!.write(buffer, int32s(values));
  regions.registerCuda("held", handle, 0, 1024);
  const lease = regions.lease("held", 0, 64);
  assert.equal(lease.device?.address, buffer);
  assert.equal(lease.device?.deviceId, 0);
  assert.equal(lease.bytes.byteLength, 0, "no host view of GPU memory");
  regions.unregisterCuda("held");
  // Unregistered, yet leased: still listed and still open.
  assert.deepEqual(regions.cudaStatus("held"), [{ name: "held", deviceId: 0, byteSize: 1024 }]);
  assert.equal(cuda!.live("ipc"), opened + 1);
  lease.release();
  lease.release();
  assert.equal(cuda!.live("ipc"), opened);
  assert.throws(() => regions.cudaStatus("held"), /Unable to find cuda shared memory region/);
  // Many requests at once, the region unregistered under them: every answer exact.
  regions.registerCuda("held", handle, 0, 1024);
  const answers = Array.from(
    { length: 32 },
    (_, i) =>
      post(
        http,
        "/v2/models/identity_int32/infer",
        httpInfer(shmParams("held", 64), shmParams("held", 64, 128 + 64 * (i % 8))),
      ),
  );
  regions.unregisterCuda("held");
  let served = 0;
  for (const r of await Promise.all(answers)) {
    if (r.status === 404) continue; // sent after the unregister
    if (!gpuCore) {
      assert.deepEqual(r, { status: 500, json: { error: CPU_ONLY } });
      continue;
    }
    assert.equal(r.status, 200, JSON.stringify(r.json));
    served++;
  }
  await idle(server);
  if (served > 0) assert.deepEqual(readInts(128, 16), values);
  assert.equal(cuda!.live("ipc"), opened, "closed once the last request let go");
});

test(
  "close() closes every CUDA region; disabled front ends answer UNSUPPORTED",
  { skip },
  async () => {
    const own = new SharedMemoryRegions(server);
    const opened = cuda!.live("ipc");
    own.registerCuda("a", handle, 0, 64);
    own.registerCuda("b", handle, 0, 128);
    assert.equal(cuda!.live("ipc"), opened + 2, "each registration opens the handle");
    const lease = own.lease("b", 0, 64);
    own.close();
    assert.equal(cuda!.live("ipc"), opened + 1, "the leased one stays open");
    assert.deepEqual(own.cudaStatus().map((r) => r.name), ["b"]);
    lease.release();
    assert.equal(cuda!.live("ipc"), opened);
    assert.deepEqual(own.cudaStatus(), []);

    const r = await post(plain, "/v2/cudasharedmemory/region/x/register", {
      raw_handle: { b64: b64() },
      device_id: 0,
      byte_size: 8,
    });
    assert.equal(r.status, 501);
    assert.match((r.json as { error: string }).error, /^Client shared memory is disabled/);
    assert.equal((await post(plain, "/v2/cudasharedmemory/unregister")).status, 501);
    assert.deepEqual(await (await fetch(`${plain.url}/v2/cudasharedmemory/status`)).json(), []);
  },
);

test("without a CUDA runtime, registering answers tritonserver's 'GPUs not supported'", async () => {
  const r = await runScript("support/no_cuda_shm.ts", { TRITONFFI_CUDART: "none" });
  assert.equal(r.code, 0, r.stderr);
  const line = r.stdout.trim().split("\n").at(-1)!;
  assert.deepEqual(JSON.parse(line), {
    register: "INVALID_ARG: failed to register CUDA shared memory region: 'x', GPUs not supported",
    status: [],
    extensions: true,
  });
});
