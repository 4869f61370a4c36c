/**
 * `serveGrpc()`: the KServe v2 gRPC protocol (`inference.GRPCInferenceService` and
 * `grpc.health.v1.Health/Check`) over a running {@link Server}, in the same process, on Deno, Bun
 * and Node: the RPCs of `handlers.ts` and `stream_infer.ts`, carried by one of two transports,
 * `@grpc/grpc-js`'s server (`grpcjs_transport.ts`) or this project's over `node:http2`
 * (`h2_transport.ts`).
 *
 * @module
 */
import { describeValue } from "../../../src/value_checks.ts";
import { TritonError } from "../../../src/errors.ts";
import { env, runtimeName } from "../../../ffi/mod.ts";
import type { Server } from "../../../src/server.ts";
import { type CloseOptions, listenOptions } from "../../common/lifecycle.ts";
import { WORKER_POOL } from "../../common/listen.ts";
import { moduleBeside } from "../../common/module_url.ts";
import { ServiceOwner } from "../../common/service_owner.ts";
import { checkWorkers, workerOptions } from "../../common/worker_options.ts";
import { type RestrictedApis, restrictionCheck } from "../../common/restricted.ts";
import { checkRuntimeServesGrpc } from "./deno_http2.ts";
import { listenGrpcThread } from "./grpc_thread.ts";
import { traceForWorkers } from "../protocol_state.ts";
import type { TraceManager, TraceServeOptions } from "../trace_manager.ts";
import { sharedMemoryOption, SharedMemoryRegions } from "../shared_memory.ts";
import { bracketed, type CompressionLevel, type GrpcTransportName } from "./transport.ts";

/** Options of {@link serveGrpc}. */
export interface GrpcServeOptions {
  /** Address to listen on. @default "127.0.0.1" (only this machine; `"0.0.0.0"` in a container) */
  readonly hostname?: string;
  /** Port; 0 picks a free one. @default 8001 */
  readonly port?: number;
  /** Categories of RPCs served only to calls carrying a metadata header with a given value
   * (Triton's `--grpc-restricted-protocol`); the others fail UNAVAILABLE. Default: all open. */
  readonly restrictedApis?: RestrictedApis;
  /** The largest message either way, in bytes: a request over it is refused before it is read
   * further, a response over it is not sent; both fail RESOURCE_EXHAUSTED naming
   * `maxMessageBytes`. A compressed request message counts twice: as sent, and as inflated
   * (inflating stops once past it). Messages are held whole in memory, so a connection holds at
   * most this much per call in flight.
   * @default 2147483647 (2 GiB − 1: gRPC's largest, which Triton's gRPC front end takes) */
  readonly maxMessageBytes?: number;
  /**
   * What carries the calls: `"grpc-js"`, `@grpc/grpc-js`'s server, or `"http2"`, this project's
   * gRPC framing straight on `node:http2` (cleartext HTTP/2). Both serve the same RPCs with the
   * same handlers, and both take request messages compressed with `gzip` or `deflate`; only
   * `"http2"` compresses responses (see {@link inferResponseCompression}). Where not given, the
   * environment variable `TRITONFFI_GRPC_TRANSPORT` (`grpc-js` or `http2`) chooses, so that a
   * program or benchmark can switch without a change in code; else `"http2"` where
   * {@link inferResponseCompression} compresses, and otherwise the faster one on this runtime,
   * measured side by side under perf_analyzer (bench/README.md, "gRPC on `node:http2`"): `"http2"`
   * on Bun and Node, `"grpc-js"` on Deno (where its `node:http2` gave the new transport no gain at
   * concurrency 1 and a loss at 16).
   * @default "http2" on Bun and Node, "grpc-js" on Deno
   */
  readonly transport?: GrpcTransportName;
  /**
   * How much the responses of ModelInfer and ModelStreamInfer are compressed, as
   * `tritonserver`'s `--grpc-infer-response-compression-level`: at `"low"`, `"medium"` or
   * `"high"` a call whose `grpc-accept-encoding` lists gzip or deflate gets its responses in one
   * of them, chosen as grpc++ chooses (of gzip and deflate in that order, those accepted: the
   * first at low, the middle one at medium, the last at high), at zlib's default level; a message
   * that would not shrink goes uncompressed. Other RPCs are never compressed. Compressing is done
   * on the event loop, message by message. Needs the `"http2"` transport: grpc-js's server does
   * not compress.
   * @default "none"
   */
  readonly inferResponseCompression?: CompressionLevel;
  /** Trace settings (the "trace" extension; `tritonserver`'s `--trace-config`): where the traces
   * of the sampled inference requests are written, and the initial global settings, which
   * clients may change (TraceSetting). Default: tracing off, no file. A {@link TraceManager}
   * instead: the one given to `serveGrpc()` and `serve()` alike, whose settings both share. */
  readonly trace?: TraceServeOptions | TraceManager;
  /** The system and CUDA shared memory regions clients may register and use (the
   * `system_shared_memory` and `cuda_shared_memory` extensions). Absent: registering is
   * UNIMPLEMENTED, as in
   * `tritonserver` without `--allow-client-shm`. Give the same object to `serve()` to share its
   * regions. */
  readonly sharedMemory?: SharedMemoryRegions;
  /** Aborting it closes the service (as `close()`). */
  readonly signal?: AbortSignal;
  /**
   * Serve on Deno all the same. Deno's `node:http2` server (2.9), which both transports run on,
   * can be crashed by any client: the process aborts inside nghttp2 when a client closes a
   * connection that carried about 100 calls, as `@grpc/grpc-js` clients do when they close a
   * channel (docs/serving.md has what was measured). So on Deno `serveGrpc()` refuses to start
   * unless this is true, or, where it is not given, `TRITONFFI_ALLOW_DENO_HTTP2=1`. Ignored on
   * Bun and Node, which are not affected.
   * @default false
   */
  readonly allowDenoHttp2?: boolean;
  /**
   * Threads that serve: the calling thread and `workers − 1` worker threads, each attached to
   * `server` (`Server.share()` / `Server.attach()`) and accepting its own connections on the same
   * port (`reusePort`: Linux spreads new connections over them; a connection's calls all go to
   * the thread that accepted it). Shared memory regions, log and trace settings are one for the
   * whole service, whichever thread answers (docs/serving.md, "Workers"). Needs the `"http2"`
   * transport (chosen where {@link transport} is not given; grpc-js's server cannot share a
   * port), the native callbacks, on Deno the `--unstable-net` flag, on Bun the
   * {@link allowBunWorkers} opt-in. With more than 1, CUDA shared memory and tracing are
   * UNSUPPORTED, and `trace` cannot be a {@link TraceManager}.
   * @default 1 (the calling thread alone)
   */
  readonly workers?: number;
  /** On Bun, serve with `workers` > 1 anyway (see `Server.attach()`'s `allowBunWorkers`: a worker
   * that dies while Triton holds its requests is not safe there). Without it
   * `TRITONFFI_ALLOW_BUN_WORKERS=1` decides. @default false */
  readonly allowBunWorkers?: boolean;
}

/** @internal The options a worker thread of {@link serveGrpc} starts with (structured-cloneable). */
export interface WorkerGrpcOptions {
  readonly transport: GrpcTransportName;
  readonly maxMessageBytes: number;
  readonly level: CompressionLevel;
  readonly restrictedApis: RestrictedApis | undefined;
  readonly trace: TraceServeOptions | undefined;
  /** Whether the service serves shared memory (each worker keeps its own copy of the regions). */
  readonly sharedMemory: boolean;
}

/** A listening gRPC service; see {@link serveGrpc}. */
export interface GrpcService extends AsyncDisposable {
  /** The address it listens on. */
  readonly hostname: string;
  /** The port it listens on. */
  readonly port: number;
  /** `hostname:port`, as gRPC clients take it (IPv6 in brackets). */
  readonly address: string;
  /** Calls being served by the calling thread (a stream counts until it ends). */
  readonly active: number;
  /** The transport carrying the calls (see {@link GrpcServeOptions.transport}). */
  readonly transport: GrpcTransportName;
  /**
   * Stops accepting calls and resolves once the calls in flight are done; with `timeoutMs`
   * (milliseconds), the calls still running then are ended and their requests cancelled in
   * Triton. The `Server` keeps running. Idempotent.
   * @throws {TritonError} INVALID_ARG for a bad timeout or an unknown option (`timeout`, the old
   *   name, included), as the rejection.
   */
  close(options?: CloseOptions): Promise<void>;
  /** Resolves once the service is closed. Rejects with a {@link TritonError} INTERNAL when a
   * worker thread died (or could not apply a change of protocol state) and the service closed
   * itself for it; {@link close} then rejects with the same error. */
  readonly closed: Promise<void>;
  /** Threads serving (the `workers` option): 1 is the calling thread alone. */
  readonly workers: number;
  /** Calls (RPCs; a stream counts once) each thread has taken so far, the calling thread first
   * (index 0). */
  requestsPerWorker(): number[];
}

/** The largest message either way: what gRPC allows (Triton raises the library's 4 MiB to it). */
const MAX_MESSAGE_BYTES = 2 ** 31 - 1;

const LEVELS: readonly unknown[] = ["none", "low", "medium", "high"];

/** The compression level `given` names (see {@link GrpcServeOptions.inferResponseCompression}).
 * @throws {TritonError} INVALID_ARG for another value. */
function levelOf(given: unknown): CompressionLevel {
  if (given === undefined) return "none";
  if (LEVELS.includes(given)) return given as CompressionLevel;
  throw new TritonError(
    "INVALID_ARG",
    `inferResponseCompression must be "none", "low", "medium" or "high", not ${
      describeValue(given)
    }`,
  );
}

/** The transport `options.transport` names, else `TRITONFFI_GRPC_TRANSPORT`, else the
 * runtime's faster one, or `"http2"` where responses are compressed or `threads` > 1 (see
 * {@link GrpcServeOptions.transport}).
 * @throws {TritonError} INVALID_ARG for an unknown name, or grpc-js with responses to compress;
 *   UNSUPPORTED for grpc-js with `threads` > 1. */
function transportOf(given: unknown, level: CompressionLevel, threads: number): GrpcTransportName {
  const fromEnv = given === undefined ? env("TRITONFFI_GRPC_TRANSPORT") || undefined : undefined;
  const fallback = level !== "none" || threads > 1 || runtimeName() !== "deno"
    ? "http2"
    : "grpc-js";
  const name = given ?? fromEnv ?? fallback;
  const source = fromEnv === undefined ? "transport" : "TRITONFFI_GRPC_TRANSPORT";
  if (name === "grpc-js" && level !== "none") {
    throw new TritonError(
      "INVALID_ARG",
      `inferResponseCompression "${level}" needs the "http2" transport (${source} is ` +
        `"grpc-js", whose server does not compress responses)`,
    );
  }
  if (name === "grpc-js" && threads > 1) {
    throw new TritonError(
      "UNSUPPORTED",
      `serveGrpc(): workers > 1 needs the "http2" transport (${source} is "grpc-js", whose ` +
        "server binds its port without SO_REUSEPORT, so no second thread can listen on it)",
    );
  }
  if (name === "grpc-js" || name === "http2") return name;
  throw new TritonError(
    "INVALID_ARG",
    `${source} must be "grpc-js" or "http2", not ${describeValue(name)}`,
  );
}

/**
 * Serves `server` over gRPC at `hostname:port` and resolves once it listens.
 *
 * RPCs: ServerLive, ServerReady, ModelReady, ServerMetadata, ModelMetadata, ModelConfig,
 * ModelStatistics, RepositoryIndex, RepositoryModelLoad/Unload, ModelInfer, ModelStreamInfer
 * (many requests on one stream; every response carries `triton_final_response`; an empty final
 * response where the request asks with `triton_enable_empty_final_response`; an error is sent as
 * `error_message` and the stream goes on, unless the call carries the `triton_grpc_error`
 * header, which ends it with the error's status), and `grpc.health.v1.Health/Check`. Errors carry
 * the gRPC status Triton gives their code ({@link GRPC_STATUS}). A client that cancels or goes
 * away cancels its requests in Triton. Messages may be as large as gRPC allows (2 GiB − 1) unless
 * `maxMessageBytes` says less. Request messages may be compressed (`grpc-encoding: gzip` or
 * `deflate`); inference responses are compressed where `inferResponseCompression` says.
 * `transport` picks what carries the calls: `@grpc/grpc-js`'s server (the default on Deno) or
 * this project's gRPC framing on `node:http2` (the default on Bun and Node).
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 * import { serveGrpc } from "tritonffi/grpc";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * await using grpcService = await serveGrpc(server, { port: 0 }); // 0: any free port (default 8001)
 * console.log(`KServe v2 gRPC on ${grpcService.address}`);
 * ```
 * With `workers` > 1 the calling thread and worker threads serve the same port
 * ({@link GrpcServeOptions.workers}).
 * @throws {TritonError} INVALID_ARG for bad options (a `TRITONFFI_GRPC_TRANSPORT` other than
 *   `grpc-js` or `http2` included, a `workers` that is no integer in [1, 256]); UNSUPPORTED on
 *   Deno without `allowDenoHttp2` (see there), and for `workers` > 1 where this process cannot
 *   serve on several threads (the `"grpc-js"` transport, JS callbacks, Bun without
 *   `allowBunWorkers`, Deno without `--unstable-net`, a {@link TraceManager} or tracing on),
 *   naming why; UNAVAILABLE when it cannot listen; a worker's error when one cannot start. Each
 *   as the rejection.
 */
export async function serveGrpc(
  server: Server,
  options: GrpcServeOptions = {},
): Promise<GrpcService> {
  const { hostname, port, signal } = listenOptions(
    "serveGrpc()",
    options,
    "{ hostname?, port?, restrictedApis?, maxMessageBytes?, transport?, inferResponseCompression?, sharedMemory?, trace?, signal?, allowDenoHttp2?, workers?, allowBunWorkers? }",
    8001,
  );
  const { workers: threads, allowBunWorkers } = workerOptions("serveGrpc()", options);
  const maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  if (
    !Number.isInteger(maxMessageBytes) || maxMessageBytes < 0 || maxMessageBytes > MAX_MESSAGE_BYTES
  ) {
    throw new TritonError(
      "INVALID_ARG",
      `maxMessageBytes must be an integer number of bytes in [0, ${MAX_MESSAGE_BYTES}], not ` +
        describeValue(maxMessageBytes),
    );
  }
  const level = levelOf(options.inferResponseCompression);
  const transport = transportOf(options.transport, level, threads);
  restrictionCheck(options.restrictedApis);
  const regions = sharedMemoryOption(options.sharedMemory);
  // After the options' own checks (a bad option is named wherever it is given), before anything
  // is made that would need closing.
  checkRuntimeServesGrpc(options.allowDenoHttp2);
  const workerInit = threads > 1
    ? checkWorkers("serveGrpc()", {
      server,
      entry: moduleBeside(import.meta.url, "grpc_worker"),
      options: (): WorkerGrpcOptions => ({
        transport,
        maxMessageBytes,
        level,
        restrictedApis: options.restrictedApis,
        trace: traceForWorkers("serveGrpc()", options.trace),
        sharedMemory: regions !== undefined,
      }),
    }, allowBunWorkers)
    : undefined;

  const owner = new ServiceOwner("serveGrpc()", threads);
  const thread = await listenGrpcThread(server, {
    hostname,
    port,
    transport,
    maxMessageBytes,
    level,
    restrictedApis: options.restrictedApis,
    trace: options.trace,
    regions,
    ...owner.hooks(),
    counters: owner.counters,
    index: 0,
  });
  owner.setState(thread.state);
  const { steps } = thread;
  if (threads > 1) {
    try {
      await owner.startWorkers({
        server,
        entry: moduleBeside(import.meta.url, "grpc_worker"),
        hostname,
        port: thread.port,
        options: workerInit,
      });
    } catch (e) {
      await steps.stopAccepting();
      await steps.finish?.();
      throw e;
    }
  }
  const { close, closed } = owner.lifecycle(steps, signal);
  return {
    hostname,
    port: thread.port,
    address: `${bracketed(hostname)}:${thread.port}`,
    get active() {
      return thread.active();
    },
    transport,
    close,
    closed,
    workers: threads,
    requestsPerWorker: () => owner.requestsPerWorker(),
    [Symbol.asyncDispose]: () => close(),
    ...(owner.pool === undefined ? {} : { [WORKER_POOL]: owner.pool }),
  };
}
