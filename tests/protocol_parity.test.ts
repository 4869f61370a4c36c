/**
 * The KServe rules are written once (`serving/kserve/operations.ts`,
 * `serving/kserve/inference.ts`): one table of bad requests, each sent over HTTP (`serve()`) and
 * over gRPC (`serveGrpc()`, on both transports), must get the same Triton error code (HTTP's
 * status and gRPC's status for it) and the same message — after tritonserver's own words where
 * its front ends word a refusal each their own way.
 */
import assert from "node:assert/strict";
import { after, before } from "node:test";
import * as grpc from "@grpc/grpc-js";
import { skippingAll } from "./support/test.ts";
import type { Server } from "../mod.ts";
import { HTTP_STATUS, type HttpService, serve, SharedMemoryRegions } from "../serve.ts";
import { GRPC_STATUS, type GrpcService, type GrpcTransportName, serveGrpc } from "../grpc.ts";
import { serviceDefinitions } from "../serving/kserve/grpc/definitions.ts";
import { GRPC_SKIP, startServer } from "./support/env.ts";
import { int32s, type Msg } from "./support/grpc_requests.ts";

// Every test here compares HTTP with gRPC (see GRPC_SKIP).
const test = skippingAll(GRPC_SKIP);

/** One request, as each protocol sends it. */
interface Row {
  readonly why: string;
  readonly http: { readonly path: string; readonly body?: unknown; readonly get?: boolean };
  /** The binary part of an HTTP infer request (after its JSON). */
  readonly binary?: Uint8Array;
  readonly rpc: string;
  readonly message: Msg;
  /** The Triton error code both must answer with; absent where the error is Triton's own (its
   * code may differ between cores), and then both must still answer the same one. */
  readonly code?: keyof typeof GRPC_STATUS;
  /** What the shared message must say. */
  readonly says: RegExp;
  /** Where tritonserver's front ends word a refusal each their own way: each protocol's message
   * starts with its words, and what follows them is the same (and matches `says`). */
  readonly words?: { readonly http: string; readonly grpc: string };
}

const INPUT = { name: "INPUT0", datatype: "INT32", shape: [1, 4] };
const RAW = int32s([1, 2, 3, 4]);
/** An identity_int32 infer request over HTTP with the input's bytes as binary data, and `extra`
 * fields (and input parameters) in its JSON. */
const httpInfer = (
  extra: Record<string, unknown> = {},
  input: Record<string, unknown> = INPUT,
  inputParams: Record<string, unknown> = {},
) => ({
  inputs: [{ ...input, parameters: { binary_data_size: RAW.byteLength, ...inputParams } }],
  ...extra,
});
const grpcInfer = (extra: Msg = {}, input: Msg = INPUT, inputParams: Msg = {}): Msg => ({
  model_name: "identity_int32",
  inputs: [{ ...input, parameters: inputParams }],
  raw_input_contents: [RAW],
  ...extra,
});
const INFER = "/v2/models/identity_int32/infer";
const CUDA_REGISTER = "/v2/cudasharedmemory/region/c/register";
/** A CUDA registration's answer where no CUDA runtime loads (the front ends answer alike). */
const NO_GPU = "failed to register CUDA shared memory region: 'c', GPUs not supported";
/** `says` for a CUDA registration answered `message`, or NO_GPU without a CUDA runtime. */
const cudaSays = (message: string) =>
  new RegExp(`^(${message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}|${NO_GPU})$`);

const ROWS: readonly Row[] = [
  {
    why: "metadata of an unknown model",
    http: { path: "/v2/models/no_such_model", get: true },
    rpc: "ModelMetadata",
    message: { name: "no_such_model" },
    says: /no_such_model/,
  },
  {
    why: "configuration of an unknown model",
    http: { path: "/v2/models/no_such_model/config", get: true },
    rpc: "ModelConfig",
    message: { name: "no_such_model" },
    says: /no_such_model/,
  },
  {
    why: "statistics of an unknown model",
    http: { path: "/v2/models/no_such_model/stats", get: true },
    rpc: "ModelStatistics",
    message: { name: "no_such_model" },
    says: /no_such_model/,
  },
  {
    why: "statistics of a version that does not exist",
    http: { path: "/v2/models/identity_int32/versions/9/stats", get: true },
    rpc: "ModelStatistics",
    message: { name: "identity_int32", version: "9" },
    says: /identity_int32/,
  },
  {
    why: "a repository name in the index",
    http: { path: "/v2/repository/other/index", body: {} },
    rpc: "RepositoryIndex",
    message: { repository_name: "other" },
    code: "UNSUPPORTED",
    says: /^'repository_name' specification is not supported$/,
  },
  {
    why: "a repository name in a load",
    http: { path: "/v2/repository/other/models/identity_int32/load", body: {} },
    rpc: "RepositoryModelLoad",
    message: { repository_name: "other", model_name: "identity_int32" },
    code: "UNSUPPORTED",
    says: /^'repository_name' specification is not supported$/,
  },
  {
    why: "an unknown load parameter",
    http: {
      path: "/v2/repository/models/identity_int32/load",
      body: { parameters: { foo: "x" } },
    },
    rpc: "RepositoryModelLoad",
    message: { model_name: "identity_int32", parameters: { foo: { string_param: "x" } } },
    code: "INVALID_ARG",
    says: /^unknown load parameter 'foo' \(expected 'config' or 'file:<path>'\)$/,
  },
  {
    why: "a load configuration that is not JSON",
    http: {
      path: "/v2/repository/models/identity_int32/load",
      body: { parameters: { config: "{nope" } },
    },
    rpc: "RepositoryModelLoad",
    message: { model_name: "identity_int32", parameters: { config: { string_param: "{nope" } } },
    code: "INVALID_ARG",
    says: /^parameter 'config' is not JSON: /,
  },
  {
    why: "a load configuration that is no JSON object",
    http: {
      path: "/v2/repository/models/identity_int32/load",
      body: { parameters: { config: "[1]" } },
    },
    rpc: "RepositoryModelLoad",
    message: { model_name: "identity_int32", parameters: { config: { string_param: "[1]" } } },
    code: "INVALID_ARG",
    says: /^parameter 'config' must be a JSON object$/,
  },
  {
    why: "a load configuration that is no string",
    http: {
      path: "/v2/repository/models/identity_int32/load",
      body: { parameters: { config: true } },
    },
    rpc: "RepositoryModelLoad",
    message: { model_name: "identity_int32", parameters: { config: { bool_param: true } } },
    code: "INVALID_ARG",
    says: /^parameter 'config' must be a string, not true$/,
  },
  {
    why: "a model file that is no bytes",
    http: {
      path: "/v2/repository/models/identity_int32/load",
      body: { parameters: { "file:1/model.txt": 5 } },
    },
    rpc: "RepositoryModelLoad",
    message: {
      model_name: "identity_int32",
      parameters: { "file:1/model.txt": { int64_param: "5" } },
    },
    code: "INVALID_ARG",
    says: /^parameter 'file:1\/model.txt' must be the file's bytes .*, not 5$/,
  },
  {
    why: "unload_dependents that is no boolean",
    http: {
      path: "/v2/repository/models/identity_int32/unload",
      body: { parameters: { unload_dependents: "yes" } },
    },
    rpc: "RepositoryModelUnload",
    message: {
      model_name: "identity_int32",
      parameters: { unload_dependents: { string_param: "yes" } },
    },
    code: "INVALID_ARG",
    says: /^parameter 'unload_dependents' must be a boolean, not "yes"$/,
  },
  {
    why: "one-response inference on a decoupled model",
    http: { path: "/v2/models/repeat_int32/infer", body: httpInfer() },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({ model_name: "repeat_int32" }),
    code: "UNSUPPORTED",
    words: { // tritonserver's words, which its clients and scripts match on
      http: "HTTP end point doesn't support models with decoupled transaction policy",
      grpc: "ModelInfer RPC doesn't support models with decoupled transaction policy",
    },
    says: /^: model 'repeat_int32' is decoupled, .*ModelStreamInfer.*generate_stream/,
  },
  {
    why: "inference on an unknown model",
    http: { path: "/v2/models/no_such_model/infer", body: httpInfer() },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({ model_name: "no_such_model" }),
    says: /no_such_model/,
  },
  {
    why: "an unknown data type",
    http: { path: INFER, body: httpInfer({}, { ...INPUT, datatype: "FP99" }) },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({}, { ...INPUT, datatype: "FP99" }),
    code: "INVALID_ARG",
    says: /^input 'INPUT0' has invalid datatype "FP99"$/,
  },
  {
    why: "data that does not fill its shape",
    http: { path: INFER, body: httpInfer({}, { ...INPUT, shape: [1, 16] }) },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({}, { ...INPUT, shape: [1, 16] }),
    code: "INVALID_ARG",
    says: /INPUT0/,
  },
  {
    why: "an input in a shared memory region not registered",
    http: {
      path: INFER,
      body: { inputs: [{ ...INPUT, parameters: { shared_memory_region: "r" } }] },
    },
    rpc: "ModelInfer",
    message: grpcInfer({ raw_input_contents: [] }, INPUT, {
      shared_memory_region: { string_param: "r" },
    }),
    code: "NOT_FOUND",
    says: /^Unable to find shared memory region: 'r'$/,
  },
  {
    why: "a CUDA region registered without a name",
    http: { path: "/v2/cudasharedmemory/register", body: {} },
    rpc: "CudaSharedMemoryRegister",
    message: { name: "" },
    code: "INVALID_ARG",
    says: /^'region name' is necessary to register cuda shared memory region$/,
  },
  {
    why: "a CUDA handle that is not 64 bytes",
    http: {
      path: CUDA_REGISTER,
      body: { raw_handle: { b64: btoa("0123456789") }, device_id: 0, byte_size: 8 },
    },
    rpc: "CudaSharedMemoryRegister",
    message: { name: "c", raw_handle: new TextEncoder().encode("0123456789"), byte_size: 8 },
    code: "INVALID_ARG",
    says: cudaSays("'raw_handle' must be a valid base64 encoded cudaIpcMemHandle_t"),
  },
  {
    why: "a CUDA handle the runtime cannot open",
    http: {
      path: CUDA_REGISTER,
      body: { raw_handle: { b64: btoa("\0".repeat(64)) }, device_id: 0, byte_size: 8 },
    },
    rpc: "CudaSharedMemoryRegister",
    message: { name: "c", raw_handle: new Uint8Array(64), byte_size: 8 },
    code: "INVALID_ARG",
    says: cudaSays("failed to register shared memory region: invalid args"),
  },
  {
    why: "a negative CUDA device id",
    http: {
      path: CUDA_REGISTER,
      body: { raw_handle: { b64: btoa("\0".repeat(64)) }, device_id: -1, byte_size: 8 },
    },
    rpc: "CudaSharedMemoryRegister",
    message: { name: "c", raw_handle: new Uint8Array(64), device_id: -1, byte_size: 8 },
    code: "INVALID_ARG",
    says: cudaSays("'device_id' must be an unsigned integer, not -1"),
  },
  {
    why: "the status of a CUDA region not registered",
    http: { path: "/v2/cudasharedmemory/region/c/status", get: true },
    rpc: "CudaSharedMemoryStatus",
    message: { name: "c" },
    code: "NOT_FOUND",
    says: /^Unable to find cuda shared memory region: 'c'$/,
  },
  {
    why: "a negative classification count",
    http: {
      path: INFER,
      body: httpInfer({ outputs: [{ name: "OUTPUT0", parameters: { classification: -2 } }] }),
    },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({
      outputs: [{ name: "OUTPUT0", parameters: { classification: { int64_param: "-2" } } }],
    }),
    code: "INVALID_ARG",
    says: /^invalid value for 'classification' parameter, expected >= 0$/,
  },
  {
    why: "a classification count that is no integer",
    http: {
      path: INFER,
      body: httpInfer({ outputs: [{ name: "OUTPUT0", parameters: { classification: "2" } }] }),
    },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({
      outputs: [{ name: "OUTPUT0", parameters: { classification: { string_param: "2" } } }],
    }),
    code: "INVALID_ARG",
    says: /^invalid value type for 'classification' parameter, expected an integer, not "2"$/,
  },
  {
    why: "a classification count that is a fraction",
    http: {
      path: INFER,
      body: httpInfer({ outputs: [{ name: "OUTPUT0", parameters: { classification: 1.5 } }] }),
    },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({
      outputs: [{ name: "OUTPUT0", parameters: { classification: { double_param: 1.5 } } }],
    }),
    code: "INVALID_ARG",
    says: /^invalid value type for 'classification' parameter, expected an integer, not 1.5$/,
  },
  {
    why: "a classification output in shared memory",
    http: {
      path: INFER,
      body: httpInfer({
        outputs: [{
          name: "OUTPUT0",
          parameters: { classification: 2, shared_memory_region: "r" },
        }],
      }),
    },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({
      outputs: [{
        name: "OUTPUT0",
        parameters: {
          classification: { int64_param: "2" },
          shared_memory_region: { string_param: "r" },
        },
      }],
    }),
    code: "INVALID_ARG",
    says: /^Output can't set both 'shared_memory_region' and 'classification'$/,
  },
  {
    why: "a classification of a BYTES output",
    http: {
      path: "/v2/models/identity_bytes/infer",
      body: {
        inputs: [{ name: "INPUT0", datatype: "BYTES", shape: [1, 1], data: ["a"] }],
        outputs: [{ name: "OUTPUT0", parameters: { classification: 1 } }],
      },
    },
    rpc: "ModelInfer",
    message: {
      model_name: "identity_bytes",
      inputs: [{ name: "INPUT0", datatype: "BYTES", shape: [1, 1] }],
      raw_input_contents: [new Uint8Array([1, 0, 0, 0, 97])],
      outputs: [{ name: "OUTPUT0", parameters: { classification: { int64_param: "1" } } }],
    },
    code: "INVALID_ARG",
    says: /^class result not available for output due to unsupported type 'BYTES'$/,
  },
  {
    why: "a request parameter reserved for Triton",
    http: { path: INFER, body: httpInfer({ parameters: { triton_foo: 1 } }) },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({ parameters: { triton_foo: { int64_param: "1" } } }),
    code: "INVALID_ARG",
    says: /^parameter keys starting with 'triton_' are reserved for Triton: 'triton_foo'$/,
  },
  {
    why: "a sequence id that is no integer",
    http: { path: INFER, body: httpInfer({ parameters: { sequence_id: true } }) },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({ parameters: { sequence_id: { bool_param: true } } }),
    code: "INVALID_ARG",
    says: /^parameter 'sequence_id' must be an unsigned integer, not true$/,
  },
  {
    why: "a negative priority",
    http: { path: INFER, body: httpInfer({ parameters: { priority: -1 } }) },
    binary: RAW,
    rpc: "ModelInfer",
    message: grpcInfer({ parameters: { priority: { int64_param: "-1" } } }),
    code: "INVALID_ARG",
    says: /^parameter 'priority' must be an unsigned integer, not -1$/,
  },
];

/** The HTTP answer to `row`: its status and error message. */
async function overHttp(http: HttpService, row: Row): Promise<{ status: number; error: string }> {
  let init: RequestInit = { method: "GET" };
  if (!row.http.get) {
    const json = new TextEncoder().encode(JSON.stringify(row.http.body));
    const body = row.binary ? new Uint8Array([...json, ...row.binary]) : json;
    init = {
      method: "POST",
      body,
      headers: row.binary
        ? { "inference-header-content-length": String(json.byteLength) }
        : { "content-type": "application/json" },
    };
  }
  const r = await fetch(`${http.url}${row.http.path}`, init);
  const text = await r.text();
  return { status: r.status, error: JSON.parse(text).error };
}

const CODE_OF_GRPC = new Map(
  Object.entries(GRPC_STATUS).map(([code, status]) => [status, code as keyof typeof GRPC_STATUS]),
);

const definitions = serviceDefinitions();
const Client = grpc.makeGenericClientConstructor(definitions.inference, "GRPCInferenceService");
type GrpcClient = grpc.Client & Record<string, (...args: unknown[]) => unknown>;

/** The gRPC answer to `row`: its status code and details. */
function overGrpc(client: GrpcClient, row: Row): Promise<{ code: number; details: string }> {
  return new Promise((resolve, reject) => {
    client[row.rpc](row.message, (e: grpc.ServiceError | null) => {
      if (e) resolve({ code: e.code, details: e.details });
      else reject(new Error(`${row.why}: gRPC answered without an error`));
    });
  });
}

let server: Server;
let http: HttpService;
let regions: SharedMemoryRegions;
const grpcs = new Map<GrpcTransportName, GrpcService>();

before(async () => {
  server = await startServer({
    modelControlMode: "explicit",
    startupModels: ["identity_int32", "identity_bytes", "repeat_int32"],
  });
  // With shared memory, so that registrations reach their checks.
  regions = new SharedMemoryRegions(server);
  http = await serve(server, { port: 0, sharedMemory: regions });
  if (GRPC_SKIP) return;
  for (const transport of ["grpc-js", "http2"] as const) {
    grpcs.set(transport, await serveGrpc(server, { port: 0, transport, sharedMemory: regions }));
  }
});
after(async () => {
  await http?.close();
  for (const g of grpcs.values()) await g.close();
  regions?.close();
  await server?.stop();
});

for (const transport of ["grpc-js", "http2"] as const) {
  test(`the same bad requests get the same code and message over HTTP and gRPC (${transport})`, async () => {
    const client = new Client(
      grpcs.get(transport)!.address,
      grpc.credentials.createInsecure(),
    ) as GrpcClient;
    try {
      for (const row of ROWS) {
        const h = await overHttp(http, row);
        const g = await overGrpc(client, row);
        // The Triton code of gRPC's status (each code has a status of its own).
        const code = CODE_OF_GRPC.get(g.code);
        assert.ok(code !== undefined, `${row.why}: gRPC status ${g.code} is no Triton code's`);
        if (row.code) assert.equal(code, row.code, `${row.why} (gRPC): ${g.details}`);
        assert.equal(h.status, HTTP_STATUS[code], `${row.why} (HTTP): ${h.error}`);
        const [hSaid, gSaid] = [h.error, g.details];
        if (row.words) {
          assert.ok(hSaid.startsWith(row.words.http), `${row.why} (HTTP): ${hSaid}`);
          assert.ok(gSaid.startsWith(row.words.grpc), `${row.why} (gRPC): ${gSaid}`);
        }
        const hRest = hSaid.slice(row.words?.http.length ?? 0);
        assert.match(hRest, row.says, `${row.why} (HTTP)`);
        assert.equal(
          gSaid.slice(row.words?.grpc.length ?? 0),
          hRest,
          `${row.why}: the messages differ`,
        );
      }
    } finally {
      client.close();
    }
  });
}
