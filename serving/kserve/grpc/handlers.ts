/**
 * The RPCs of `inference.GRPCInferenceService` and `grpc.health.v1.Health/Check`: each decodes
 * its message into the arguments of the KServe operations (`../operations.ts`,
 * `../inference.ts`), calls them and gives back the response message. ModelStreamInfer is in
 * `stream_infer.ts`, LogSettings and TraceSetting in `settings.ts`, what they share in `rpc.ts`.
 *
 * @module
 */
import { answeredBatching, classifiedOutputs } from "../classification.ts";
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
  sharedMemoryRegister,
  sharedMemoryStatus,
  sharedMemoryUnregister,
  versionOf,
} from "../operations.ts";
import { inferOneSharing } from "../request_shared_memory.ts";
import {
  type GrpcInferRequest,
  type GrpcParameter,
  grpcParameter,
  inferResponseMessage,
  readInferRequest,
} from "./infer_messages.ts";
import { settingsRpcs } from "./settings_rpcs.ts";
import { modelStreamInfer } from "./stream_infer.ts";
import { type Message, type RpcContext, unary } from "./rpc.ts";
import type { ServiceImplementation } from "./transport.ts";

/** A string field ("" where absent). */
const str = (m: Message, key: string) => (m[key] as string | undefined) ?? "";

/** A message's `parameters` map as plain values. */
function parameters(m: Message): Record<string, CallParameter> {
  const out: Record<string, CallParameter> = {};
  const params = (m.parameters ?? {}) as Record<string, GrpcParameter>;
  for (const [key, p] of Object.entries(params)) out[key] = grpcParameter(p, `parameter '${key}'`);
  return out;
}

/** The handlers of `inference.GRPCInferenceService`. */
export function inferenceHandlers(ctx: RpcContext): ServiceImplementation {
  const { server } = ctx;
  const P = "inference.";
  const encodeInferResponse = (() => {
    const t = ctx.root.lookupType(P + "ModelInferResponse");
    return (message: object): Uint8Array => t.encode(message).finish();
  })();
  const model = (m: Message, name = "name", version = "version") =>
    [str(m, name), versionOf(str(m, version))] as const;
  return {
    ServerLive: unary(ctx, "health", P + "ServerLiveResponse", () => ({
      live: serverLive(server),
    })),
    ServerReady: unary(ctx, "health", P + "ServerReadyResponse", () => ({
      ready: serverReady(server),
    })),
    ModelReady: unary(ctx, "health", P + "ModelReadyResponse", (m) => ({
      ready: modelReady(server, ...model(m)),
    })),
    ServerMetadata: unary(
      ctx,
      "metadata",
      P + "ServerMetadataResponse",
      () => serverMetadata(server, ctx.regions),
    ),
    ModelMetadata: unary(
      ctx,
      "metadata",
      P + "ModelMetadataResponse",
      (m) => modelMetadata(server, ...model(m)),
      true,
    ),
    ModelConfig: unary(ctx, "model-config", P + "ModelConfigResponse", (m) => ({
      config: modelConfig(server, ...model(m)),
    }), true),
    ModelStatistics: unary(ctx, "statistics", P + "ModelStatisticsResponse", (m) => ({
      model_stats: modelStatistics(server, ...model(m)),
    }), true),
    RepositoryIndex: unary(ctx, "model-repository", P + "RepositoryIndexResponse", (m) => ({
      models: repositoryIndex(server, m.ready === true, str(m, "repository_name")).map((e) => ({
        name: e.name,
        version: e.version === undefined ? "" : String(e.version),
        state: e.state ?? "",
        reason: e.reason ?? "",
      })),
    })),
    RepositoryModelLoad: unary(
      ctx,
      "model-repository",
      P + "RepositoryModelLoadResponse",
      async (m) => {
        const name = str(m, "model_name");
        await repositoryLoad(server, name, parameters(m), str(m, "repository_name"));
        return {};
      },
    ),
    RepositoryModelUnload: unary(
      ctx,
      "model-repository",
      P + "RepositoryModelUnloadResponse",
      async (m) => {
        const name = str(m, "model_name");
        await repositoryUnload(server, name, parameters(m), str(m, "repository_name"));
        return {};
      },
    ),
    ModelInfer: unary(ctx, "inference", P + "ModelInferResponse", async (m, signal) => {
      const message = m as unknown as GrpcInferRequest;
      const target = server.model(message.model_name, versionOf(message.model_version));
      checkOneResponse(target, "grpc");
      const read = readInferRequest(message, ctx.regions);
      const shm = read.sharedMemory;
      const response = await inferOneSharing(target, {
        ...read.request,
        signal,
        trace: ctx.traces.sample(message.model_name),
      }, shm);
      try {
        // Encoded while held: its outputs may view Triton's buffers until it is disposed.
        const outputs = classifiedOutputs(
          response,
          read.classification,
          () => answeredBatching(server, response),
        );
        return encodeInferResponse(
          inferResponseMessage(response, undefined, (output) => shm.isOutput(output), outputs),
        );
      } finally {
        response.dispose();
        shm.releaseOutputs(); // its outputs in shared memory viewed their regions until now
      }
    }),
    ...settingsRpcs(ctx),
    ModelStreamInfer: modelStreamInfer(ctx),
    SystemSharedMemoryStatus: unary(
      ctx,
      "shared-memory",
      P + "SystemSharedMemoryStatusResponse",
      (m) => ({
        regions: Object.fromEntries(
          sharedMemoryStatus(ctx.regions, str(m, "name")).map((r) => [r.name, {
            name: r.name,
            key: r.key,
            offset: r.offset,
            byte_size: r.byteSize,
          }]),
        ),
      }),
      true,
    ),
    SystemSharedMemoryRegister: unary(
      ctx,
      "shared-memory",
      P + "SystemSharedMemoryRegisterResponse",
      (m) => {
        sharedMemoryRegister(
          ctx.regions,
          str(m, "name"),
          str(m, "key"),
          BigInt((m.offset as string | undefined) ?? "0"),
          BigInt((m.byte_size as string | undefined) ?? "0"),
        );
        return {};
      },
    ),
    SystemSharedMemoryUnregister: unary(
      ctx,
      "shared-memory",
      P + "SystemSharedMemoryUnregisterResponse",
      (m) => {
        sharedMemoryUnregister(ctx.regions, str(m, "name"));
        return {};
      },
    ),
    CudaSharedMemoryStatus: unary(
      ctx,
      "shared-memory",
      P + "CudaSharedMemoryStatusResponse",
      (m) => ({
        regions: Object.fromEntries(
          cudaSharedMemoryStatus(ctx.regions, str(m, "name")).map((r) => [r.name, {
            name: r.name,
            device_id: r.deviceId,
            byte_size: r.byteSize,
          }]),
        ),
      }),
      true,
    ),
    CudaSharedMemoryRegister: unary(
      ctx,
      "shared-memory",
      P + "CudaSharedMemoryRegisterResponse",
      (m) => {
        cudaSharedMemoryRegister(ctx.regions, str(m, "name"), () => ({
          rawHandle: (m.raw_handle as Uint8Array | undefined) ?? new Uint8Array(0),
          deviceId: BigInt((m.device_id as string | undefined) ?? "0"),
          byteSize: BigInt((m.byte_size as string | undefined) ?? "0"),
        }));
        return {};
      },
    ),
    CudaSharedMemoryUnregister: unary(
      ctx,
      "shared-memory",
      P + "CudaSharedMemoryUnregisterResponse",
      (m) => {
        cudaSharedMemoryUnregister(ctx.regions, str(m, "name"));
        return {};
      },
    ),
  };
}

/** The handler of `grpc.health.v1.Health/Check`: SERVING while the server is ready. */
export function healthHandlers(ctx: RpcContext): ServiceImplementation {
  return {
    Check: unary(ctx, "health", "grpc.health.v1.HealthCheckResponse", () => ({
      status: serverReady(ctx.server) ? 1 : 2, // SERVING, NOT_SERVING
    })),
  };
}
