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
import { Calls, type CloseOptions, closing, listenOptions } from "../../common/lifecycle.ts";
import { workerOptions } from "../../common/worker_options.ts";
import { type RestrictedApis, restrictionCheck } from "../../common/restricted.ts";
import { serviceDefinitions } from "./definitions.ts";
import { healthHandlers, inferenceHandlers } from "./handlers.ts";
import type { RpcContext } from "./rpc.ts";
import { listenGrpcJs } from "./grpcjs_transport.ts";
import { listenHttp2 } from "./h2_transport.ts";
import { checkRuntimeServesGrpc } from "./deno_http2.ts";
import { protocolRoot } from "./schema.ts";
import { tracedService } from "./rpc_span.ts";
import { type TraceManager, traceOption, type TraceServeOptions } from "../trace_manager.ts";
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
}

/** A listening gRPC service; see {@link serveGrpc}. */
export interface GrpcService extends AsyncDisposable {
  /** The address it listens on. */
  readonly hostname: string;
  /** The port it listens on. */
  readonly port: number;
  /** `hostname:port`, as gRPC clients take it (IPv6 in brackets). */
  readonly address: string;
  /** Calls being served (a stream counts until it ends). */
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
  /** Resolves once the service is closed. */
  readonly closed: Promise<void>;
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
 * runtime's faster one, or `"http2"` where responses are compressed (see
 * {@link GrpcServeOptions.transport}).
 * @throws {TritonError} INVALID_ARG for an unknown name, or grpc-js with responses to compress. */
function transportOf(given: unknown, level: CompressionLevel): GrpcTransportName {
  const fromEnv = given === undefined ? env("TRITONFFI_GRPC_TRANSPORT") || undefined : undefined;
  const fallback = level !== "none" || runtimeName() !== "deno" ? "http2" : "grpc-js";
  const name = given ?? fromEnv ?? fallback;
  const source = fromEnv === undefined ? "transport" : "TRITONFFI_GRPC_TRANSPORT";
  if (name === "grpc-js" && level !== "none") {
    throw new TritonError(
      "INVALID_ARG",
      `inferResponseCompression "${level}" needs the "http2" transport (${source} is ` +
        `"grpc-js", whose server does not compress responses)`,
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
 * @throws {TritonError} INVALID_ARG for bad options (a `TRITONFFI_GRPC_TRANSPORT` other than
 *   `grpc-js` or `http2` included); UNSUPPORTED on Deno without `allowDenoHttp2` (see there),
 *   and for a `workers` option other than 1 (gRPC is served on the calling thread only);
 *   UNAVAILABLE when it cannot listen.
 */
export async function serveGrpc(
  server: Server,
  options: GrpcServeOptions = {},
): Promise<GrpcService> {
  const { hostname, port, signal } = listenOptions(
    "serveGrpc()",
    options,
    "{ hostname?, port?, restrictedApis?, maxMessageBytes?, transport?, inferResponseCompression?, sharedMemory?, trace?, signal?, allowDenoHttp2? }",
    8001,
  );
  if (workerOptions("serveGrpc()", options).workers > 1) {
    throw new TritonError(
      "UNSUPPORTED",
      "serveGrpc() serves on one thread only (workers: 1): its worker threads are not built " +
        "yet; serve() and serveOpenAI() take workers",
    );
  }
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
  const transport = transportOf(options.transport, level);
  const restricted = restrictionCheck(options.restrictedApis);
  // After the options' own checks (a bad option is named wherever it is given), before anything
  // is made that would need closing.
  checkRuntimeServesGrpc(options.allowDenoHttp2);
  const traces = traceOption(server, options.trace);
  const ctx: RpcContext = {
    server,
    calls: new Calls(),
    denied: (category, call) =>
      restricted(category, (header) => {
        const values = call.metadata.get(header);
        return values.length > 0 ? String(values[0]) : null;
      }),
    root: protocolRoot(),
    traces: traces.manager,
    regions: sharedMemoryOption(options.sharedMemory),
  };
  const definitions = serviceDefinitions(ctx.root);
  const listener = await (transport === "http2" ? listenHttp2 : listenGrpcJs)({
    hostname,
    port,
    maxMessageBytes,
    responseCompression: {
      level,
      methods: new Set([
        definitions.inference.ModelInfer.path,
        definitions.inference.ModelStreamInfer.path,
      ]),
    },
    services: [
      {
        definition: definitions.inference,
        implementation: tracedService(definitions.inference, inferenceHandlers(ctx)),
      },
      {
        definition: definitions.health,
        implementation: tracedService(definitions.health, healthHandlers(ctx)),
      },
    ],
  });

  const { close, closed } = closing({
    finish: () => traces.owned ? traces.manager.close() : Promise.resolve(),
    stopAccepting: () => listener.stopAccepting(),
    idle: () => ctx.calls.idle(),
    endInFlight: () => {
      ctx.calls.abortAll(new TritonError("UNAVAILABLE", "the gRPC service is closing"));
      listener.endInFlight();
    },
  }, signal);
  return {
    hostname,
    port: listener.port,
    address: `${bracketed(hostname)}:${listener.port}`,
    get active() {
      return ctx.calls.size;
    },
    transport,
    close,
    closed,
    [Symbol.asyncDispose]: () => close(),
  };
}
