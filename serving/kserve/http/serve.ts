/**
 * `serve()`: the KServe v2 HTTP/REST protocol over a running {@link Server}, on the runtime's own
 * HTTP server (`Deno.serve`, `Bun.serve`, `node:http`), from one fetch-style handler.
 *
 * @module
 */
import { type KServeOptions, kserveService } from "./handler.ts";
import type { Server } from "../../../src/server.ts";
import { type HttpService, listen } from "../../common/listen.ts";
import { moduleBeside } from "../../common/module_url.ts";
import type { TraceServeOptions } from "../trace_manager.ts";
import { traceForWorkers } from "../protocol_state.ts";

export type { HttpService };

/** Where and how {@link serve} listens, and what it accepts. */
export interface ServeOptions extends KServeOptions {
  /** The address to listen on. Default `"127.0.0.1"`: only this machine can connect. Give
   * `"0.0.0.0"` (or `"::"`) to accept connections from other machines — a container, a
   * Kubernetes pod — and then consider {@link KServeOptions.restrictedApis} for the model
   * repository endpoints. */
  readonly hostname?: string;
  /** TCP port. Default 8000 (Triton's HTTP port); 0 = any free port (see {@link HttpService.port}). */
  readonly port?: number;
  /** Aborting it closes the service, as {@link HttpService.close} does. */
  readonly signal?: AbortSignal;
  /**
   * Threads that serve: the calling thread and `workers − 1` worker threads, each attached to
   * `server` (`Server.share()` / `Server.attach()`) and accepting its own connections on the same
   * port (`reusePort`: Linux spreads new connections over them). Shared memory regions, log and
   * trace settings are one for the whole service, whichever thread answers (docs/serving.md,
   * "Workers"). Needs the native callbacks; on Deno the `--unstable-net` flag; on Bun the
   * {@link allowBunWorkers} opt-in. With more than 1, CUDA shared memory and tracing are
   * UNSUPPORTED, and `trace` cannot be a `TraceManager`.
   * @default 1 (the calling thread alone)
   */
  readonly workers?: number;
  /** On Bun, serve with `workers` > 1 anyway (see `Server.attach()`'s `allowBunWorkers`: a worker
   * that dies while Triton holds its requests is not safe there). Without it
   * `TRITONFFI_ALLOW_BUN_WORKERS=1` decides. @default false */
  readonly allowBunWorkers?: boolean;
}

/** @internal The options a worker thread of {@link serve} starts with (structured-cloneable). */
export type WorkerKServeOptions = Omit<KServeOptions, "sharedMemory" | "trace"> & {
  /** Whether the service serves shared memory (each worker keeps its own copy of the regions). */
  readonly sharedMemory: boolean;
  readonly trace?: TraceServeOptions;
};

/** The options of {@link serve}'s worker threads.
 * @throws {TritonError} UNSUPPORTED for a `TraceManager` or a trace level other than OFF. */
function workerOptions(options: ServeOptions): WorkerKServeOptions {
  const {
    signal: _signal,
    workers: _workers,
    allowBunWorkers: _allow,
    hostname: _hostname,
    port: _port,
    sharedMemory,
    trace,
    ...rest
  } = options;
  return {
    ...rest,
    sharedMemory: sharedMemory !== undefined,
    trace: traceForWorkers("serve()", trace),
  };
}

/**
 * Serves the KServe v2 HTTP/REST protocol for `server` (see `kserveHandler` for the endpoints)
 * on this runtime's HTTP server: `Deno.serve` on Deno (needs `--allow-net`), `Bun.serve` on Bun,
 * `node:http` on Node through `@hono/node-server`, which makes its lightweight `Request` and
 * `Response` the globals (they pass `instanceof` and behave as the standard ones). Resolves once
 * it listens. Closing it ({@link HttpService.close}) ends the event streams still open after its
 * timeout with a last event `{"error": "the HTTP service is closing"}`.
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 * import { serve } from "tritonffi/serve";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * await using http = await serve(server, { port: 0 }); // 0: any free port (default 8000)
 * const ready = await fetch(`${http.url}/v2/health/ready`);
 * console.log(`KServe v2 on ${http.url}: ready ${ready.status}`); // ready 200
 * ```
 * @throws {TritonError} INVALID_ARG for bad options; UNAVAILABLE when it cannot listen (the
 *   port is taken, the address is not this machine's); UNSUPPORTED for `workers` > 1 where this
 *   process cannot serve on several threads (see {@link ServeOptions.workers}), naming why; a
 *   worker's error when one cannot start. Each as the rejection.
 */
export function serve(server: Server, options: ServeOptions = {}): Promise<HttpService> {
  return listen({
    what: "serve()",
    options,
    fields: "{ hostname?, port?, signal?, … }",
    defaultPort: 8000,
    service: (hooks) => kserveService(server, options, hooks),
    workers: {
      server,
      entry: moduleBeside(import.meta.url, "kserve_worker"),
      options: () => workerOptions(options),
    },
  });
}
