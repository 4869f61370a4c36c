/**
 * tritonffi/serve: Triton's KServe v2 HTTP/REST protocol over a running {@link Server} of
 * `tritonffi`, in the same process — `serve()` listens on Deno, Bun or Node; `kserveHandler()` is
 * the same service as a fetch handler, for a server of your own. This entry loads the HTTP
 * libraries (Hono); `tritonffi` itself loads none.
 *
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 * import { serve } from "tritonffi/serve";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * await using http = await serve(server, { port: 0 }); // 0: any free port (default 8000)
 * const live = await fetch(`${http.url}/v2/health/live`);
 * console.log(live.status); // 200
 * ```
 * @module
 */
export { type HttpService, serve, type ServeOptions } from "./serving/kserve/http/serve.ts";
export {
  type FetchHandler,
  kserveHandler,
  type KServeOptions,
} from "./serving/kserve/http/handler.ts";
export { HTTP_STATUS } from "./serving/common/http_errors.ts";
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
