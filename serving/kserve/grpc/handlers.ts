/**
 * The RPCs of `inference.GRPCInferenceService` and `grpc.health.v1.Health/Check`: each decodes
 * its message into the arguments of the KServe operations (`../operations.ts`,
 * `../inference.ts`), calls them and gives back the response message; {@link INFERENCE_RPCS}
 * is the table of them. ModelStreamInfer is in `stream_infer.ts`, LogSettings and TraceSetting in
 * `settings_rpcs.ts`, what they share in `rpc.ts`.
 *
 * @module
 */
import { classifiedOutputs, respondingModelBatches } from "../classification.ts";
import { checkOneResponse } from "../inference.ts";
import {
  type CallParameter,
  cudaSharedMemoryRegister,
  cudaSharedMemoryStatus,
  cudaSharedMemoryUnregister,
  modelConfig,
  modelMetadata,
  modelReady,
  modelStatistics,
  repositoryIndex,
  repositoryLoad,
  repositoryUnload,
  serverLive,
  serverMetadata,
  serverReady,
  sharedMemoryStatus,
  versionOf,
} from "../operations.ts";
import { inferOneWithSharedMemory } from "../request_shared_memory.ts";
import { cudaWithWorkers, Op } from "../protocol_state.ts";
import {
  type GrpcInferRequest,
  type GrpcParameter,
  grpcParameter,
  inferResponseMessage,
  readInferRequest,
} from "./infer_messages.ts";
import { logSettingsRpc, traceSettingRpc } from "./settings_rpcs.ts";
import { modelStreamInfer } from "./stream_infer.ts";
import { type Message, type Rpc, type RpcContext, type RpcLine, unary } from "./rpc.ts";
import type { ServiceImplementation } from "./transport.ts";

/** A string field of `message` ("" where absent). */
const stringField = (message: Message, key: string) => (message[key] as string | undefined) ?? "";

/** A message's `parameters` map as plain values. */
function parameters(m: Message): Record<string, CallParameter> {
  const out: Record<string, CallParameter> = {};
  const params = (m.parameters ?? {}) as Record<string, GrpcParameter>;
  for (const [key, p] of Object.entries(params)) out[key] = grpcParameter(p, `parameter '${key}'`);
  return out;
}

/** The model a message names (`name`, `version` fields, or those given), its version as a number
 * (-1 for none). */
const modelOf = (m: Message, name = "name", version = "version") =>
  [stringField(m, name), versionOf(stringField(m, version))] as const;

const serverLiveRpc: Rpc = ({ server }) => ({ live: serverLive(server) });
const serverReadyRpc: Rpc = ({ server }) => ({ ready: serverReady(server) });
const modelReadyRpc: Rpc = ({ server }, m) => ({ ready: modelReady(server, ...modelOf(m)) });
const serverMetadataRpc: Rpc = ({ server, regions }) => serverMetadata(server, regions);
const modelMetadataRpc: Rpc = ({ server }, m) => modelMetadata(server, ...modelOf(m));
const modelConfigRpc: Rpc = ({ server }, m) => ({ config: modelConfig(server, ...modelOf(m)) });
const modelStatisticsRpc: Rpc = ({ server }, m) => ({
  model_stats: modelStatistics(server, ...modelOf(m)),
});

const repositoryIndexRpc: Rpc = ({ server }, m) => ({
  models: repositoryIndex(server, m.ready === true, stringField(m, "repository_name")).map((e) => ({
    name: e.name,
    version: e.version === undefined ? "" : String(e.version),
    state: e.state ?? "",
    reason: e.reason ?? "",
  })),
});

const repositoryModelLoadRpc: Rpc = async ({ server }, m) => {
  const name = stringField(m, "model_name");
  await repositoryLoad(server, name, parameters(m), stringField(m, "repository_name"));
  return {};
};

const repositoryModelUnloadRpc: Rpc = async ({ server }, m) => {
  const name = stringField(m, "model_name");
  await repositoryUnload(server, name, parameters(m), stringField(m, "repository_name"));
  return {};
};

/** ModelInfer: one request, one response, its outputs in shared memory where it says so. */
const modelInferRpc: Rpc = async (ctx, m, signal, encode) => {
  const message = m as unknown as GrpcInferRequest;
  const target = ctx.server.model(message.model_name, versionOf(message.model_version));
  checkOneResponse(target, "grpc");
  const read = readInferRequest(message, ctx.regions);
  const shm = read.sharedMemory;
  const response = await inferOneWithSharedMemory(target, {
    ...read.request,
    signal,
    trace: ctx.traces.sample(message.model_name),
  }, shm);
  try {
    // Encoded while held: its outputs may view Triton's buffers until it is disposed.
    const outputs = classifiedOutputs(
      response,
      read.classification,
      () => respondingModelBatches(ctx.server, response),
    );
    return encode(
      inferResponseMessage(response, undefined, (output) => shm.isOutput(output), outputs),
    );
  } finally {
    response.dispose();
    shm.releaseOutputs(); // its outputs in shared memory viewed their regions until now
  }
};

const systemSharedMemoryStatusRpc: Rpc = ({ regions }, m) => ({
  regions: Object.fromEntries(
    sharedMemoryStatus(regions, stringField(m, "name")).map((r) => [r.name, {
      name: r.name,
      key: r.key,
      offset: r.offset,
      byte_size: r.byteSize,
    }]),
  ),
});

// Registered and unregistered for the whole service (every thread's copy of the regions).
const systemSharedMemoryRegisterRpc: Rpc = async ({ changes }, m) => {
  await changes.change(Op.SHM_REGISTER, [
    stringField(m, "name"),
    stringField(m, "key"),
    BigInt((m.offset as string | undefined) ?? "0"),
    BigInt((m.byte_size as string | undefined) ?? "0"),
  ]);
  return {};
};

const systemSharedMemoryUnregisterRpc: Rpc = async ({ changes }, m) => {
  await changes.change(Op.SHM_UNREGISTER, [stringField(m, "name")]);
  return {};
};

const cudaSharedMemoryStatusRpc: Rpc = ({ regions }, m) => ({
  regions: Object.fromEntries(
    cudaSharedMemoryStatus(regions, stringField(m, "name")).map((r) => [r.name, {
      name: r.name,
      device_id: r.deviceId,
      byte_size: r.byteSize,
    }]),
  ),
});

const cudaSharedMemoryRegisterRpc: Rpc = ({ regions, threads }, m) => {
  if (threads > 1 && regions !== undefined) cudaWithWorkers();
  cudaSharedMemoryRegister(regions, stringField(m, "name"), () => ({
    rawHandle: (m.raw_handle as Uint8Array | undefined) ?? new Uint8Array(0),
    deviceId: BigInt((m.device_id as string | undefined) ?? "0"),
    byteSize: BigInt((m.byte_size as string | undefined) ?? "0"),
  }));
  return {};
};

const cudaSharedMemoryUnregisterRpc: Rpc = ({ regions }, m) => {
  cudaSharedMemoryUnregister(regions, stringField(m, "name"));
  return {};
};

/**
 * The unary RPCs of `inference.GRPCInferenceService`, one a line: its restricted-API category,
 * its handler, and `"fromObject"` where the handler's plain object goes through protobufjs's
 * `fromObject` (64-bit numbers and enums as they are read). Each answers `<RPC>Response`.
 */
const INFERENCE_RPCS: Readonly<Record<string, RpcLine>> = {
  ServerLive: ["health", serverLiveRpc],
  ServerReady: ["health", serverReadyRpc],
  ModelReady: ["health", modelReadyRpc],
  ServerMetadata: ["metadata", serverMetadataRpc],
  ModelMetadata: ["metadata", modelMetadataRpc, "fromObject"],
  ModelConfig: ["model-config", modelConfigRpc, "fromObject"],
  ModelStatistics: ["statistics", modelStatisticsRpc, "fromObject"],
  RepositoryIndex: ["model-repository", repositoryIndexRpc],
  RepositoryModelLoad: ["model-repository", repositoryModelLoadRpc],
  RepositoryModelUnload: ["model-repository", repositoryModelUnloadRpc],
  ModelInfer: ["inference", modelInferRpc],
  LogSettings: ["logging", logSettingsRpc],
  TraceSetting: ["trace", traceSettingRpc],
  SystemSharedMemoryStatus: ["shared-memory", systemSharedMemoryStatusRpc, "fromObject"],
  SystemSharedMemoryRegister: ["shared-memory", systemSharedMemoryRegisterRpc],
  SystemSharedMemoryUnregister: ["shared-memory", systemSharedMemoryUnregisterRpc],
  CudaSharedMemoryStatus: ["shared-memory", cudaSharedMemoryStatusRpc, "fromObject"],
  CudaSharedMemoryRegister: ["shared-memory", cudaSharedMemoryRegisterRpc],
  CudaSharedMemoryUnregister: ["shared-memory", cudaSharedMemoryUnregisterRpc],
};

/** The handlers of `inference.GRPCInferenceService`: {@link INFERENCE_RPCS} over `ctx`, and
 * ModelStreamInfer (`stream_infer.ts`). */
export function inferenceHandlers(ctx: RpcContext): ServiceImplementation {
  const unaries = Object.entries(INFERENCE_RPCS).map(([name, [category, run, conversion]]) => [
    name,
    unary(ctx, category, `inference.${name}Response`, run, conversion),
  ]);
  return { ...Object.fromEntries(unaries), ModelStreamInfer: modelStreamInfer(ctx) };
}

/** The handler of `grpc.health.v1.Health/Check`: SERVING while the server is ready. */
export function healthHandlers(ctx: RpcContext): ServiceImplementation {
  // 1: SERVING, 2: NOT_SERVING
  const check: Rpc = ({ server }) => ({ status: serverReady(server) ? 1 : 2 });
  return { Check: unary(ctx, "health", "grpc.health.v1.HealthCheckResponse", check) };
}
