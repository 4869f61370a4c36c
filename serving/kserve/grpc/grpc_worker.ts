/**
 * The gRPC service in a worker thread of `serveGrpc()` with `workers` > 1: started by the owner's
 * pool (../../common/worker_pool.ts), it serves what `serveGrpc()` serves on the same port
 * (`"http2"` transport, `reusePort`), attached to the owner's server, with its own copy of the
 * shared memory regions (mirrored from the owner's, see ../protocol_state.ts).
 *
 * @module
 */
import process from "node:process";
import { runtimeName } from "../../../ffi/mod.ts";
import { closing, type ClosingSteps } from "../../common/lifecycle.ts";
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
  if (runtimeName() === "node") endConnectionsBeforeDying(steps);
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

/** The longest an uncaught error waits for the connections to close (milliseconds). */
const DYING_GRACE_MS = 2000;

/**
 * Node: a worker thread that ends while `node:http2` still reads a stream can abort the whole
 * process (Node's `Assertion failed: onread->IsFunction()`; measured here under load: 2 of 6
 * deaths of an uncaught error, 1 of 8 terminations; with this, 0 of 22). So an uncaught error in this thread first ends every
 * connection (their calls fail UNAVAILABLE, as when the service closes), then is thrown again,
 * uncaught: the thread dies of it and the owner fails the whole service, as on the other
 * runtimes.
 */
function endConnectionsBeforeDying(steps: ClosingSteps): void {
  const dying = (error: unknown) => {
    process.off("uncaughtException", dying);
    const stopped = steps.stopAccepting();
    steps.endInFlight();
    let timer: ReturnType<typeof setTimeout> | undefined;
    void Promise.race([
      stopped,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, DYING_GRACE_MS))),
    ]).finally(() => {
      clearTimeout(timer);
      setImmediate(() => {
        throw error;
      });
    });
  };
  process.on("uncaughtException", dying);
}
