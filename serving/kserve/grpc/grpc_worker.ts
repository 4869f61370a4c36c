/**
 * The gRPC service in a worker thread of `serveGrpc()` with `workers` > 1: started by the owner's
 * pool (../../common/worker_pool.ts), it serves what `serveGrpc()` serves on the same port
 * (`"http2"` transport, `reusePort`), attached to the owner's server, with its own copy of the
 * shared memory regions (mirrored from the owner's, see ../protocol_state.ts).
 *
 * @module
 */
import { closing } from "../../common/lifecycle.ts";
import { runWorker } from "../../common/serve_worker.ts";
import { SharedMemoryRegions } from "../shared_memory.ts";
import { listenGrpcThread } from "./grpc_thread.ts";
import type { WorkerGrpcOptions } from "./service.ts";

await runWorker(async (server, start, changes) => {
  const o = start.options as WorkerGrpcOptions;
  const regions = o.sharedMemory ? new SharedMemoryRegions(server) : undefined;
  const counters = new Int32Array(start.counters);
  let thread;
  try {
    thread = await listenGrpcThread(server, {
      ...o,
      hostname: start.hostname,
      port: start.port,
      regions,
      threads: counters.length,
      changes,
      snapshot: start.snapshot,
      counters,
      index: start.index,
    });
  } catch (e) {
    regions?.close();
    throw e;
  }
  const { steps } = thread;
  const { close } = closing({
    ...steps,
    finish: async () => {
      await steps.finish?.();
      regions?.close();
    },
  }, undefined);
  return {
    state: thread.state,
    close: (timeoutMs) => close(timeoutMs === undefined ? {} : { timeoutMs }),
  };
});
