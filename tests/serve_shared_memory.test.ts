/**
 * System shared memory over both front ends: regions registered by a POSIX shared memory key
 * (here files of /dev/shm, which is what `shm_open` names on Linux), inputs read from them and
 * outputs written into them in place by Triton's response allocator (the response's output is at
 * the region's address), byte-exact from 64 B to 4 MiB and never outside their part; the status
 * and unregister calls; every bound checked (registration past the object's end, a part past its
 * region, an output larger than its part: tritonserver's error, nothing written); a region
 * unregistered or closed while a request reads or writes it (a slow model, an aborted call) kept
 * until Triton and the caller are done; many requests in flight each in its own part; the same
 * answers over HTTP and gRPC (both transports); and off unless the front end is given the regions.
 * The test makes and reads the object through `truncate` and a registry of its own (Deno asks for
 * all permissions to touch /dev/shm as a file).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import process from "node:process";
import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import fc from "fast-check";
import { test } from "./support/test.ts";
import type { Server } from "../mod.ts";
import { type HttpService, serve, SharedMemoryRegions } from "../serve.ts";
import { type GrpcService, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import {
  inferOneWithSharedMemory,
  RequestSharedMemory,
} from "../serving/kserve/request_shared_memory.ts";
import { GRPC_SKIP, idle, startServer } from "./support/env.ts";
import { int32s, type Msg } from "./support/grpc_requests.ts";

const KEY = `/tritonffi-test-${process.pid}`;
const FILE = `/dev/shm${KEY}`;
const FILE_BYTES = 8192;
/** A larger object, for outputs of several MiB. */
const BIG_KEY = `${KEY}-big`;
const BIG_FILE = `/dev/shm${BIG_KEY}`;
const MiB = 1 << 20;
const BIG_FILE_BYTES = 12 * MiB;

let server: Server;
let regions: SharedMemoryRegions;
/** The test's own view of the whole object (a registry the front ends do not see). */
let probe: SharedMemoryRegions;
let http: HttpService;
let plain: HttpService;
const grpcs: GrpcService[] = [];

const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");
type GrpcClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

const LINUX = process.platform === "linux";

before(async () => {
  if (!LINUX) return;
  const made = spawnSync("truncate", ["-s", String(FILE_BYTES), FILE]);
  assert.equal(made.status, 0, `truncate: ${made.stderr}`);
  const big = spawnSync("truncate", ["-s", String(BIG_FILE_BYTES), BIG_FILE]);
  assert.equal(big.status, 0, `truncate: ${big.stderr}`);
  server = await startServer({ modelControlMode: "explicit", startupModels: ["identity_int32"] });
  regions = new SharedMemoryRegions(server);
  probe = new SharedMemoryRegions(server);
  probe.register("whole", KEY, 0, FILE_BYTES);
  probe.register("big", BIG_KEY, 0, BIG_FILE_BYTES);
  http = await serve(server, { port: 0, sharedMemory: regions });
  plain = await serve(server, { port: 0 });
  // Without gRPC (GRPC_SKIP) services() and the gRPC loops hold HTTP's alone.
  for (const transport of GRPC_SKIP ? [] : ["grpc-js", "http2"] as const) {
    grpcs.push(await serveGrpc(server, { port: 0, transport, sharedMemory: regions }));
  }
});
after(async () => {
  await http?.close();
  await plain?.close();
  for (const g of grpcs) await g.close();
  regions?.close();
  probe?.close();
  await server?.stop();
  if (LINUX) spawnSync("rm", ["-f", FILE, BIG_FILE]);
});

/** Skips where POSIX shared memory is not files of /dev/shm (not Linux). */
function skipped(t: { skip(reason: string): void }): boolean {
  if (LINUX) return false;
  t.skip("not Linux: the test makes its shared memory object as a file of /dev/shm");
  return true;
}

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

/** `count` bytes at `offset` of the shared memory object, a copy. */
function readBytes(offset: number, count: number): Uint8Array {
  const lease = probe.lease("whole", offset, count);
  const copy = lease.bytes.slice();
  lease.release();
  return copy;
}

/** Writes `values` as INT32 at `offset` of the shared memory object. */
function writeInts(offset: number, values: number[]): void {
  const lease = probe.lease("whole", offset, values.length * 4);
  lease.bytes.set(int32s(values));
  lease.release();
}

/** The INT32 values at `offset` of the shared memory object. */
function readInts(offset: number, count: number): number[] {
  return Array.from(new Int32Array(readBytes(offset, count * 4).buffer));
}

const shmParams = (region: string, byteSize: number, offset?: number) => ({
  shared_memory_region: region,
  shared_memory_byte_size: byteSize,
  ...(offset === undefined ? {} : { shared_memory_offset: offset }),
});

/** An identity_int32 request over HTTP: its input (16 elements) and output in regions. */
const httpInfer = (input: Record<string, unknown>, output: Record<string, unknown>, n = 16) => ({
  inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, n], parameters: input }],
  outputs: [{ name: "OUTPUT0", parameters: output }],
});

/** The same over gRPC (parameters as InferParameter messages), of `n` elements. */
function grpcInfer(
  input: Record<string, unknown>,
  output: Record<string, unknown>,
  n = 16,
): Msg {
  const params = (p: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(p).map((
        [k, v],
      ) => [k, typeof v === "string" ? { string_param: v } : { int64_param: String(v) }]),
    );
  return {
    model_name: "identity_int32",
    inputs: [{ name: "INPUT0", datatype: "INT32", shape: [1, n], parameters: params(input) }],
    outputs: [{ name: "OUTPUT0", parameters: params(output) }],
  };
}

test("regions registered over HTTP serve inputs and outputs in place, over HTTP and gRPC", async (t) => {
  if (skipped(t)) return;
  const values = Array.from({ length: 16 }, (_, i) => i * 1000 - 7);
  writeInts(0, values);
  assert.equal(
    (await post(http, "/v2/systemsharedmemory/region/in/register", {
      key: KEY,
      offset: 0,
      byte_size: 64,
    })).status,
    200,
  );
  assert.equal(
    (await post(http, "/v2/systemsharedmemory/region/out/register", {
      key: KEY,
      offset: 4096,
      byte_size: 1024,
    })).status,
    200,
  );
  const status = await (await fetch(`${http.url}/v2/systemsharedmemory/status`)).json();
  assert.deepEqual(status, [
    { name: "in", key: KEY, offset: 0, byte_size: 64 },
    { name: "out", key: KEY, offset: 4096, byte_size: 1024 },
  ]);
  const meta = await (await fetch(`${http.url}/v2`)).json() as { extensions: string[] };
  assert.ok(meta.extensions.includes("system_shared_memory"));
  const plainMeta = await (await fetch(`${plain.url}/v2`)).json() as { extensions: string[] };
  assert.ok(!plainMeta.extensions.includes("system_shared_memory"));

  // HTTP: the output is described without data; its bytes are in the region.
  const r = await post(
    http,
    "/v2/models/identity_int32/infer",
    httpInfer(shmParams("in", 64), shmParams("out", 64, 128)),
  );
  assert.equal(r.status, 200, JSON.stringify(r.json));
  assert.deepEqual((r.json as { outputs: unknown[] }).outputs, [
    { name: "OUTPUT0", datatype: "INT32", shape: [1, 16] },
  ]);
  assert.deepEqual(readInts(4096 + 128, 16), values);

  // gRPC, both transports: the status, then the same inference into another part.
  for (const [i, service] of grpcs.entries()) {
    const client = new Client(service.address, grpc.credentials.createInsecure()) as GrpcClient;
    try {
      const st = await call(client, "SystemSharedMemoryStatus", { name: "in" });
      assert.deepEqual(st, {
        regions: { in: { name: "in", key: KEY, offset: "0", byte_size: "64" } },
      });
      writeInts(4096 + 512, new Array(16).fill(0));
      const res = await call(
        client,
        "ModelInfer",
        grpcInfer(shmParams("in", 64), shmParams("out", 64, 512)),
      );
      assert.deepEqual(res.raw_output_contents, [Buffer.alloc(0)], `transport ${i}`);
      assert.deepEqual(readInts(4096 + 512, 16), values);
    } finally {
      client.close();
    }
  }
  await idle(server);
  assert.equal(
    (await post(http, "/v2/systemsharedmemory/region/in/unregister")).status,
    200,
  );
  const after = await fetch(`${http.url}/v2/systemsharedmemory/region/in/status`);
  assert.equal(after.status, 404);
  assert.deepEqual(await after.json(), {
    error: "Unable to find system shared memory region: 'in'",
  });
  assert.equal((await post(http, "/v2/systemsharedmemory/unregister")).status, 200);
  assert.deepEqual(regions.status(), []);
});

test("every bound is checked: registration, parts of regions, outputs larger than their part", async (t) => {
  if (skipped(t)) return;
  const reg = (name: string, body: unknown) =>
    post(http, `/v2/systemsharedmemory/region/${name}/register`, body);
  // Past the object's end, an unknown key, a name twice, no key.
  assert.deepEqual(await reg("r", { key: KEY, offset: 8000, byte_size: 200 }), {
    status: 400,
    json: { error: "failed to register shared memory region 'r': invalid args" },
  });
  assert.deepEqual(await reg("r", { key: "/tritonffi-no-such-key", byte_size: 8 }), {
    status: 500,
    json: { error: "Unable to open shared memory region: '/tritonffi-no-such-key'" },
  });
  assert.deepEqual(await reg("r", { byte_size: 8 }), {
    status: 400,
    json: { error: "Shared memory register request has no 'key' field" },
  });
  assert.equal((await reg("r", { key: KEY, offset: 0, byte_size: 64 })).status, 200);
  assert.deepEqual(await reg("r", { key: KEY, offset: 0, byte_size: 64 }), {
    status: 400,
    json: { error: "shared memory region 'r' already in manager" },
  });
  assert.equal((await reg("small", { key: KEY, offset: 1000, byte_size: 16 })).status, 200);
  const infer = (body: unknown) => post(http, "/v2/models/identity_int32/infer", body);
  // A part past its region, an offset past it, a region not registered.
  assert.deepEqual(await infer(httpInfer(shmParams("r", 64, 4), {})), {
    status: 400,
    json: { error: "Invalid offset + byte size for shared memory region: 'r'" },
  });
  assert.deepEqual(await infer(httpInfer(shmParams("r", 4, 64), {})), {
    status: 400,
    json: { error: "Invalid offset for shared memory region: 'r'" },
  });
  assert.deepEqual(await infer(httpInfer(shmParams("nope", 64), {})), {
    status: 404,
    json: { error: "Unable to find shared memory region: 'nope'" },
  });
  // A size that does not fit the tensor; an output larger than its part.
  assert.deepEqual(await infer(httpInfer(shmParams("r", 60), {})), {
    status: 400,
    json: {
      error: "input 'INPUT0': INT32 shape [1, 16] needs 64 bytes, shared_memory_byte_size is 60",
    },
  });
  assert.deepEqual(await infer(httpInfer(shmParams("r", 64), shmParams("small", 16))), {
    status: 500,
    json: {
      error: "shared memory size specified with the request for output 'OUTPUT0' (16 bytes) " +
        "should be at least 64 bytes to hold the results",
    },
  });
  // Shared memory with binary data, or both data and a region.
  assert.equal(
    (await infer(httpInfer(shmParams("r", 64), { ...shmParams("r", 64), binary_data: true })))
      .status,
    400,
  );
  const both = await infer({
    inputs: [{
      name: "INPUT0",
      datatype: "INT32",
      shape: [1, 16],
      data: new Array(16).fill(1),
      parameters: shmParams("r", 64),
    }],
  });
  assert.equal(both.status, 400);
  assert.match((both.json as { error: string }).error, /gives 'data' and a region/);
  assert.equal((await post(http, "/v2/systemsharedmemory/unregister")).status, 200);
  await idle(server);
});

test("a region unregistered while a request reads it stays mapped until the request is done", async (t) => {
  if (skipped(t)) return;
  const values = Array.from({ length: 16 }, (_, i) => 3 * i);
  writeInts(0, values);
  regions.register("held", KEY, 0, 64);
  const lease = regions.lease("held", 0, 64);
  regions.unregister("held");
  // Unregistered, yet leased: still listed, and reads still see its bytes.
  assert.deepEqual(regions.status("held"), [{ name: "held", key: KEY, offset: 0, byteSize: 64 }]);
  assert.deepEqual(Array.from(new Int32Array(lease.bytes.slice().buffer)), values);
  lease.release();
  assert.throws(() => regions.status("held"), /Unable to find system shared memory region/);
  // Many requests at once, the region unregistered under them: every answer exact.
  regions.register("held", KEY, 0, 64);
  const answers = Array.from(
    { length: 32 },
    () => post(http, "/v2/models/identity_int32/infer", httpInfer(shmParams("held", 64), {})),
  );
  regions.unregister("held");
  for (const r of await Promise.all(answers)) {
    if (r.status === 404) continue; // sent after the unregister
    assert.equal(r.status, 200, JSON.stringify(r.json));
  }
  regions.unregister();
  await idle(server);
});

test("without SharedMemoryRegions: registering is UNSUPPORTED, status empty, regions not found", async (t) => {
  if (skipped(t)) return;
  const r = await post(plain, "/v2/systemsharedmemory/region/x/register", {
    key: KEY,
    byte_size: 8,
  });
  assert.equal(r.status, 501);
  assert.match((r.json as { error: string }).error, /^Client shared memory is disabled/);
  assert.deepEqual(await (await fetch(`${plain.url}/v2/systemsharedmemory/status`)).json(), []);
  const inf = await post(
    plain,
    "/v2/models/identity_int32/infer",
    httpInfer(shmParams("x", 64), {}),
  );
  assert.equal(inf.status, 404);
  const bad = () => serve(server, { port: 0, sharedMemory: {} as never });
  await assert.rejects(bad, /sharedMemory must be a SharedMemoryRegions/);
});

test("property: any offsets and sizes — exact bytes or a clear error, never a read outside", async (t) => {
  if (skipped(t)) return;
  const values = Array.from({ length: 16 }, (_, i) => i + 100);
  writeInts(2048, values);
  regions.register("p", KEY, 2048, 256);
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 300 }),
        fc.nat({ max: 300 }),
        async (offset, byteSize) => {
          const r = await post(
            http,
            "/v2/models/identity_int32/infer",
            httpInfer(shmParams("p", byteSize, offset), {}),
          );
          const error = (r.json as { error?: string }).error;
          if (offset >= 256) {
            assert.equal(error, "Invalid offset for shared memory region: 'p'");
          } else if (offset + byteSize > 256) {
            assert.equal(error, "Invalid offset + byte size for shared memory region: 'p'");
          } else if (byteSize !== 64) {
            assert.match(String(error), /needs 64 bytes, shared_memory_byte_size is/);
          } else {
            assert.equal(r.status, 200, String(error));
            const expect = Array.from(
              new Int32Array(readBytes(2048 + offset, 64).buffer),
            );
            const out = (r.json as { outputs: { data: number[] }[] }).outputs[0].data;
            assert.deepEqual(out, expect);
          }
        },
      ),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 60), seed: Number(process.env.FUZZ_SEED ?? 7) },
    );
  } finally {
    regions.unregister("p");
    await idle(server);
  }
});

/** `count` bytes at `offset` of the large object (a view: read before anything else runs). */
function bigBytes(offset: number, count: number): Uint8Array {
  const lease = probe.lease("big", offset, count);
  const copy = lease.bytes.slice();
  lease.release();
  return copy;
}

/** Whether two byte arrays are equal (fast at several MiB). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength)
    .equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** The front ends: HTTP, then gRPC on both transports. */
const services = (): [string, HttpService | GrpcService][] => [
  ["http", http],
  ...grpcs.map((g, i): [string, GrpcService] => [`grpc ${["grpc-js", "http2"][i]}`, g]),
];

/** identity_int32 over `service` with input and output in regions: the HTTP status or gRPC
 * message, or the gRPC error. */
async function inferVia(
  service: HttpService | GrpcService,
  input: Record<string, unknown>,
  output: Record<string, unknown>,
  n: number,
  signal?: AbortSignal,
): Promise<{ status: number; json?: unknown; message?: Msg; error?: grpc.ServiceError }> {
  if ("url" in service) {
    const r = await fetch(`${service.url}/v2/models/identity_int32/infer`, {
      method: "POST",
      body: JSON.stringify(httpInfer(input, output, n)),
      signal,
    });
    return { status: r.status, json: await r.json() };
  }
  const client = new Client(service.address, grpc.credentials.createInsecure()) as GrpcClient;
  try {
    const message = await call(client, "ModelInfer", grpcInfer(input, output, n));
    return { status: 0, message };
  } catch (e) {
    return { status: (e as grpc.ServiceError).code, error: e as grpc.ServiceError };
  } finally {
    client.close();
  }
}

test("outputs of 64 B, 64 KiB and 4 MiB are written in place by Triton, byte-exact, never past their part", async (t) => {
  if (skipped(t)) return;
  const OUT = 6 * MiB; // the output region, after the input's
  const PART = 4; // the output's part starts 4 bytes into its region
  const SLACK = 4096;
  regions.register("bin", BIG_KEY, 0, 4 * MiB);
  regions.register("bout", BIG_KEY, OUT, 4 * MiB + SLACK);
  try {
    let seed = 0;
    for (const bytes of [64, 64 * 1024, 4 * MiB]) {
      const n = bytes / 4;
      for (const [name, service] of services()) {
        seed++;
        const values = Int32Array.from({ length: n }, (_, i) => Math.imul(i + seed, 0x9e3779b1));
        const input = new Uint8Array(values.buffer);
        const inLease = probe.lease("big", 0, bytes);
        inLease.bytes.set(input);
        inLease.release();
        const outLease = probe.lease("big", OUT, bytes + SLACK);
        outLease.bytes.fill(0xa5);
        outLease.release();
        const r = await inferVia(
          service,
          shmParams("bin", bytes),
          shmParams("bout", bytes, PART),
          n,
        );
        const what = `${name}, ${bytes} bytes`;
        if ("url" in service) {
          assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.json)}`);
          // The output is described, its data is not in the message.
          assert.deepEqual((r.json as { outputs: unknown[] }).outputs, [
            { name: "OUTPUT0", datatype: "INT32", shape: [1, n] },
          ], what);
        } else {
          assert.equal(r.error, undefined, `${what}: ${r.error?.details}`);
          assert.deepEqual(r.message!.raw_output_contents, [Buffer.alloc(0)], what);
          const outputs = r.message!.outputs as Msg[];
          assert.equal(outputs.length, 1, what);
          assert.equal(outputs[0].contents ?? null, null, what);
        }
        const region = bigBytes(OUT, bytes + SLACK);
        assert.ok(sameBytes(region.subarray(PART, PART + bytes), input), `${what}: bytes differ`);
        assert.ok(region.subarray(0, PART).every((b) => b === 0xa5), `${what}: written before`);
        assert.ok(
          region.subarray(PART + bytes).every((b) => b === 0xa5),
          `${what}: written past its part`,
        );
      }
    }
  } finally {
    regions.unregister("bin");
    regions.unregister("bout");
    await idle(server);
  }
  assert.deepEqual(regions.status(), []);
});

test("an output larger than its part: tritonserver's error on both protocols, nothing written", async (t) => {
  if (skipped(t)) return;
  writeInts(0, Array.from({ length: 16 }, (_, i) => i));
  regions.register("in16", KEY, 0, 64);
  regions.register("tiny", KEY, 6000, 64);
  const message = "shared memory size specified with the request for output 'OUTPUT0' (16 bytes) " +
    "should be at least 64 bytes to hold the results";
  try {
    for (const [name, service] of services()) {
      const sentinel = probe.lease("whole", 6000, 64);
      sentinel.bytes.fill(0x5a);
      sentinel.release();
      const r = await inferVia(service, shmParams("in16", 64), shmParams("tiny", 16, 8), 16);
      if ("url" in service) {
        assert.deepEqual({ status: r.status, json: r.json }, {
          status: 500,
          json: { error: message },
        });
      } else {
        assert.equal(r.status, grpc.status.INTERNAL, name);
        assert.equal(r.error!.details, message, name);
      }
      assert.ok(readBytes(6000, 64).every((b) => b === 0x5a), `${name}: the region was written`);
    }
  } finally {
    regions.unregister("in16");
    regions.unregister("tiny");
    await idle(server);
  }
});

test("Triton's allocator returns the region's address for a placed output; others by the policy", async (t) => {
  if (skipped(t)) return;
  // 128 KiB: over the size the binding copies out of a response, so the output is a view.
  const BYTES = 128 * 1024;
  regions.register("addr", BIG_KEY, MiB, MiB);
  const ffi = server.native().lib.ffi;
  const addressOf = (bytes: Uint8Array) => ffi.address(ffi.addressOf(bytes));
  const part = regions.lease("addr", 256, BYTES);
  const small = regions.lease("addr", 512 * 1024, 64);
  try {
    part.bytes.fill(0);
    const shm = new RequestSharedMemory(regions);
    shm.output("OUTPUT0", { region: "addr", offset: 256, byteSize: BYTES });
    const data = Int32Array.from({ length: BYTES / 4 }, (_, i) => i * 11 - 3);
    const response = await inferOneWithSharedMemory(server.model("identity_int32"), {
      inputs: { INPUT0: { dtype: "INT32", shape: [1, BYTES / 4], data } },
    }, shm);
    try {
      const out = response.outputs.OUTPUT0.toBytes();
      // The response's output is the region: its address, and a write to one shows in the other.
      assert.equal(addressOf(out), addressOf(part.bytes));
      assert.ok(sameBytes(part.bytes, new Uint8Array(data.buffer)));
      part.bytes[0] ^= 0xff;
      assert.equal(out[0], part.bytes[0]);
    } finally {
      response.dispose();
      shm.releaseOutputs();
    }

    // Two outputs, one placed: the other is allocated by the request's policy (host memory).
    await server.loadModel("add_sub");
    small.bytes.fill(0);
    const shm2 = new RequestSharedMemory(regions);
    shm2.output("OUTPUT0", { region: "addr", offset: 512 * 1024, byteSize: 64 });
    const a = Float32Array.from({ length: 16 }, (_, i) => i * 0.5);
    const b = new Float32Array(16).fill(2);
    const r2 = await inferOneWithSharedMemory(
      server.model("add_sub"),
      { inputs: { INPUT0: a, INPUT1: b } },
      shm2,
    );
    try {
      assert.deepEqual(
        Array.from(new Float32Array(small.bytes.slice().buffer)),
        Array.from(a, (x) => x + 2),
      );
      assert.deepEqual(Array.from(r2.output("OUTPUT1", "FP32").data), Array.from(a, (x) => x - 2));
    } finally {
      r2.dispose();
      shm2.releaseOutputs();
    }
  } finally {
    part.release();
    small.release();
    regions.unregister("addr");
    await idle(server);
  }
  // Every lease ended: the region is unmapped.
  assert.deepEqual(regions.status(), []);
});

test("regions unregistered or closed during a slow inference stay mapped until Triton and the caller are done", async (t) => {
  if (skipped(t)) return;
  const config = server.model("identity_int32").config();
  await server.loadModel("identity_int32", {
    config: { ...config, parameters: { execute_delay_ms: { string_value: "300" } } },
  });
  const [, grpcJs, http2] = services();
  const cases: [string, HttpService | GrpcService, "unregister" | "close" | "abort"][] = [
    ["http", http, "unregister"],
    ["http", http, "abort"],
    grpcJs && [grpcJs[0], grpcJs[1], "unregister"],
    http2 && [http2[0], http2[1], "close"],
  ].filter((c) => c !== undefined) as [
    string,
    HttpService | GrpcService,
    "unregister" | "close" | "abort",
  ][];
  try {
    for (const [i, [name, service, how]] of cases.entries()) {
      const values = Array.from({ length: 16 }, (_, k) => (k + 1) * (i + 7));
      writeInts(0, values);
      writeInts(4096, new Array(16).fill(0));
      regions.register("sin", KEY, 0, 64);
      regions.register("sout", KEY, 4096, 64);
      const controller = new AbortController();
      const pending = inferVia(
        service,
        shmParams("sin", 64),
        shmParams("sout", 64),
        16,
        how === "abort" ? controller.signal : undefined,
      ).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100)); // Triton is executing it now
      if (how === "abort") controller.abort();
      if (how === "close") {
        regions.close();
      } else {
        assert.equal((await post(http, "/v2/systemsharedmemory/unregister")).status, 200);
      }
      // Triton still writes "sout" (and reads "sin"): both stay mapped, and listed, till done.
      assert.deepEqual(regions.status().map((s) => s.name), ["sin", "sout"], `${name}, ${how}`);
      const r = await pending;
      if (how !== "abort") {
        const answer = r as Awaited<ReturnType<typeof inferVia>>;
        assert.equal(answer.error, undefined, `${name}: ${answer.error?.details}`);
        assert.ok(answer.status === 200 || answer.status === 0, `${name}: ${answer.status}`);
        assert.deepEqual(readInts(4096, 16), values, `${name}, ${how}`);
      }
      await idle(server);
      assert.deepEqual(regions.status(), [], `${name}, ${how}: unmapped once done`);
    }
  } finally {
    regions.unregister();
    await server.loadModel("identity_int32", { config });
    await idle(server);
  }
});

test("many requests in flight, each output placed in its own part: every part exact", async (t) => {
  if (skipped(t)) return;
  const COUNT = 48;
  regions.register("cin", KEY, 0, COUNT * 64);
  regions.register("cout", BIG_KEY, 0, COUNT * 64);
  try {
    const expected: number[][] = [];
    for (let i = 0; i < COUNT; i++) {
      expected.push(Array.from({ length: 16 }, (_, k) => i * 1000 + k));
      writeInts(i * 64, expected[i]);
    }
    const zero = probe.lease("big", 0, COUNT * 64);
    zero.bytes.fill(0);
    zero.release();
    const all = services();
    const answers = await Promise.all(
      expected.map((_, i) =>
        inferVia(
          all[i % all.length][1],
          shmParams("cin", 64, i * 64),
          shmParams("cout", 64, i * 64),
          16,
        )
      ),
    );
    answers.forEach((r, i) => {
      assert.ok(
        r.status === 200 || r.status === 0,
        `request ${i}: ${r.status} ${r.error?.details}`,
      );
      const got = Array.from(new Int32Array(bigBytes(i * 64, 64).buffer));
      assert.deepEqual(got, expected[i], `request ${i}`);
    });
  } finally {
    regions.unregister("cin");
    regions.unregister("cout");
    await idle(server);
  }
  assert.deepEqual(regions.status(), []);
});
