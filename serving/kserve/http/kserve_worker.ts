/**
 * The KServe HTTP service in a worker thread of `serve()` with `workers` > 1: started by the
 * owner's pool (../../common/worker_pool.ts), it serves what `serve()` serves on the same port,
 * attached to the owner's server, with its own copy of the shared memory regions (mirrored from
 * the owner's, see ../protocol_state.ts).
 *
 * @module
 */
import { runServeWorker } from "../../common/serve_worker.ts";
import { SharedMemoryRegions } from "../shared_memory.ts";
import { kserveService } from "./handler.ts";
import type { WorkerKServeOptions } from "./serve.ts";

await runServeWorker((server, options, hooks) => {
  const o = options as WorkerKServeOptions;
  const regions = o.sharedMemory ? new SharedMemoryRegions(server) : undefined;
  const service = kserveService(server, { ...o, sharedMemory: regions }, hooks);
  return {
    ...service,
    finish: async () => {
      await service.finish();
      regions?.close();
    },
  };
});
