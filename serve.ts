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
export { type HttpService, serve, type ServeOptions } from "./src/kserve/http/serve.ts";
export { type FetchHandler, kserveHandler, type KServeOptions } from "./src/kserve/http/handler.ts";
export { HTTP_STATUS } from "./src/kserve/http/errors.ts";
export type { RestrictedApis, RestrictedCategory, Restriction } from "./src/kserve/restricted.ts";
export {
  type SharedMemoryLease,
  SharedMemoryRegions,
  type SharedMemoryRegionStatus,
} from "./src/kserve/shared_memory.ts";
export {
  type TraceLevelSetting,
  TraceManager,
  type TraceServeOptions,
  type TraceSettingsValue,
} from "./src/kserve/trace_manager.ts";
export type { CudaSharedMemoryRegionStatus, DeviceBytes } from "./src/kserve/cuda_shared_memory.ts";
