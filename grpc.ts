/**
 * tritonffi/grpc: Triton's KServe v2 gRPC protocol over a running {@link Server} of `tritonffi`,
 * in the same process — what Triton's gRPC clients and `perf_analyzer -i grpc` (streaming
 * included) talk to. This entry loads `@grpc/grpc-js`; `tritonffi` itself loads none.
 *
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 * import { serveGrpc } from "tritonffi/grpc";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * await using service = await serveGrpc(server, { port: 0 }); // 0: any free port (default 8001)
 * console.log(`KServe v2 gRPC on ${service.address}`);
 * ```
 * @module
 */
export {
  type GrpcServeOptions,
  type GrpcService,
  serveGrpc,
} from "./serving/kserve/grpc/service.ts";
export { GRPC_STATUS } from "./serving/kserve/grpc/status.ts";
export type { CompressionLevel, GrpcTransportName } from "./serving/kserve/grpc/transport.ts";
export type {
  RestrictedApis,
  RestrictedCategory,
  Restriction,
} from "./serving/common/restricted.ts";
export {
  type SharedMemoryLease,
  SharedMemoryRegions,
  type SharedMemoryRegionStatus,
} from "./serving/kserve/shared_memory.ts";
export {
  type TraceLevelSetting,
  TraceManager,
  type TraceServeOptions,
  type TraceSettingsValue,
} from "./serving/kserve/trace_manager.ts";
export type {
  CudaSharedMemoryRegionStatus,
  DeviceBytes,
} from "./serving/kserve/cuda_shared_memory.ts";
