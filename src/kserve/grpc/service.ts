/**
 * `serveGrpc()`: the KServe v2 gRPC protocol (`inference.GRPCInferenceService` and
 * `grpc.health.v1.Health/Check`) over a running {@link Server}, in the same process, on Deno, Bun
 * and Node: the RPCs' handlers, run by one of two transports, `@grpc/grpc-js`'s server
 * (`grpcjs_transport.ts`) or this project's over `node:http2` (`h2_transport.ts`).
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";
import type protobuf from "protobufjs";
import { describeValue } from "../../arguments.ts";
import { TritonError } from "../../errors.ts";
import { env, type ErrorCodeName, runtimeName } from "../../../ffi/mod.ts";
import type { InferResponse } from "../../response.ts";
import type { Server } from "../../server.ts";
import { invalid, unsupported } from "../errors.ts";
import { servedExtensions } from "../extensions.ts";
import { closing, listenOptions } from "../lifecycle.ts";
import { type RestrictedApis, type RestrictedCategory, restrictionCheck } from "../restricted.ts";
import {
  emptyFinalMessage,
  type GrpcInferRequest,
  inferResponseMessage,
  readInferRequest,
} from "./infer.ts";
import { listenGrpcJs } from "./grpcjs_transport.ts";
import { listenHttp2 } from "./h2_transport.ts";
import { protocolRoot } from "./schema.ts";
import {
  bracketed,
  type CallMetadata,
  type DuplexCall,
  type GrpcStatus,
  type GrpcTransportName,
  type ServiceImplementation,
  Status,
  type UnaryHandler,
} from "./transport.ts";

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
   * `maxMessageBytes`. Messages are held whole in memory, so a connection holds at most this
   * much per call in flight.
   * @default 2147483647 (2 GiB − 1: gRPC's largest, which Triton's gRPC front end takes) */
  readonly maxMessageBytes?: number;
  /**
   * What carries the calls: `"grpc-js"`, `@grpc/grpc-js`'s server, or `"http2"`, this project's
   * gRPC framing straight on `node:http2` (cleartext HTTP/2; messages uncompressed only: a call
   * sending `grpc-encoding: gzip` fails UNIMPLEMENTED). Both serve the same RPCs with the same
   * handlers. Where not given, the environment variable
   * `TRITONFFI_GRPC_TRANSPORT` (`grpc-js` or `http2`) chooses, so that a program or benchmark
   * can switch without a change in code; else the faster one on this runtime, measured side by
   * side under perf_analyzer (bench/README.md): `"http2"` on Bun and Node (1.2–1.9× the calls per
   * second of grpc-js), `"grpc-js"` on Deno (where its `node:http2` gave the new transport no
   * gain at concurrency 1 and a loss at 16).
   * @default "http2" on Bun and Node, "grpc-js" on Deno
   */
  readonly transport?: GrpcTransportName;
  /** Aborting it closes the service (as `close()`). */
  readonly signal?: AbortSignal;
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
   * Stops accepting calls and resolves once the calls in flight are done; with `timeout` (ms),
   * the calls still running then are ended and their requests cancelled in Triton. The `Server`
   * keeps running. Idempotent.
   * @throws {TritonError} INVALID_ARG for a bad timeout (as a rejection).
   */
  close(options?: { readonly timeout?: number }): Promise<void>;
  /** Resolves once the service is closed. */
  readonly closed: Promise<void>;
}

/** A Triton error code's gRPC status, as Triton's gRPC front end maps it. */
export const GRPC_STATUS: Readonly<Record<ErrorCodeName, number>> = {
  INVALID_ARG: Status.INVALID_ARGUMENT,
  UNSUPPORTED: Status.UNIMPLEMENTED,
  NOT_FOUND: Status.NOT_FOUND,
  UNAVAILABLE: Status.UNAVAILABLE,
  INTERNAL: Status.INTERNAL,
  ALREADY_EXISTS: Status.ALREADY_EXISTS,
  CANCELLED: Status.CANCELLED,
  UNKNOWN: Status.UNKNOWN,
};

/** The largest message either way: what gRPC allows (Triton raises the library's 4 MiB to it). */
const MAX_MESSAGE_BYTES = 2 ** 31 - 1;

const DECODE: protobuf.IConversionOptions = { longs: String, defaults: true };

/** `bytes` as a `Buffer` over the same memory (no copy). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function statusOf(error: unknown): GrpcStatus {
  if (error instanceof TritonError) {
    return { code: GRPC_STATUS[error.code] ?? Status.UNKNOWN, details: error.message };
  }
  return { code: Status.INTERNAL, details: error instanceof Error ? error.message : String(error) };
}

/** Resolves once `stream`'s write buffer has drained, or the stream closed, failed or was
 * cancelled (nothing left to wait for then) — at once where it has already. */
function whenDrained(stream: DuplexCall): Promise<void> {
  // A stream destroyed or ending says it needs no drain: its "close" may have been emitted.
  if (stream.destroyed || stream.writableNeedDrain === false) return Promise.resolve();
  return new Promise((resolve) => {
    const events = ["drain", "close", "error", "cancelled"] as const;
    const done = () => {
      for (const event of events) stream.off(event, done);
      resolve();
    };
    for (const event of events) stream.on(event, done);
  });
}

/** A version as the protocol gives it: "" → -1 (the server's choice). */
function versionOf(text: string): number {
  if (text === "") return -1;
  if (!/^\d+$/.test(text)) invalid(`invalid model version '${text}'`);
  return Number(text);
}

type Method = grpc.MethodDefinition<unknown, unknown>;

/** The transport `options.transport` names, else `TRITONFFI_GRPC_TRANSPORT`, else the
 * runtime's faster one (see {@link GrpcServeOptions.transport}). */
function transportOf(given: unknown): GrpcTransportName {
  const fromEnv = given === undefined ? env("TRITONFFI_GRPC_TRANSPORT") || undefined : undefined;
  const name = given ?? fromEnv ?? (runtimeName() === "deno" ? "grpc-js" : "http2");
  if (name === "grpc-js" || name === "http2") return name;
  throw new TritonError(
    "INVALID_ARG",
    `${fromEnv === undefined ? "transport" : "TRITONFFI_GRPC_TRANSPORT"} must be "grpc-js" or ` +
      `"http2", not ${describeValue(name)}`,
  );
}

/** @internal The two services' methods (paths and protobuf (de)serializers) over `root`; also
 * what a client is made from. */
export function serviceDefinitions(
  root: protobuf.Root = protocolRoot(),
): { inference: grpc.ServiceDefinition; health: grpc.ServiceDefinition } {
  const type = (name: string) => root.lookupType(name);
  const method = (
    service: string,
    name: string,
    request: string,
    response: string,
    streams = false,
  ): Method => {
    const req = type(request);
    const res = type(response);
    return {
      path: `/${service}/${name}`,
      requestStream: streams,
      responseStream: streams,
      requestSerialize: (m: unknown) =>
        Buffer.from(req.encode(req.fromObject(m as object)).finish()),
      requestDeserialize: (b: Buffer) => req.toObject(req.decode(b), DECODE),
      // A message already encoded (see `encoder` in serveGrpc) goes out as it is.
      responseSerialize: (m: unknown) =>
        asBuffer(m instanceof Uint8Array ? m : res.encode(m as object).finish()),
      responseDeserialize: (b: Buffer) => res.toObject(res.decode(b), DECODE),
    };
  };

  const S = "inference.GRPCInferenceService";
  const P = "inference.";
  const inference: grpc.ServiceDefinition = {
    ServerLive: method(S, "ServerLive", P + "ServerLiveRequest", P + "ServerLiveResponse"),
    ServerReady: method(S, "ServerReady", P + "ServerReadyRequest", P + "ServerReadyResponse"),
    ModelReady: method(S, "ModelReady", P + "ModelReadyRequest", P + "ModelReadyResponse"),
    ServerMetadata: method(
      S,
      "ServerMetadata",
      P + "ServerMetadataRequest",
      P + "ServerMetadataResponse",
    ),
    ModelMetadata: method(
      S,
      "ModelMetadata",
      P + "ModelMetadataRequest",
      P + "ModelMetadataResponse",
    ),
    ModelInfer: method(S, "ModelInfer", P + "ModelInferRequest", P + "ModelInferResponse"),
    ModelStreamInfer: method(
      S,
      "ModelStreamInfer",
      P + "ModelInferRequest",
      P + "ModelStreamInferResponse",
      true,
    ),
    ModelConfig: method(S, "ModelConfig", P + "ModelConfigRequest", P + "ModelConfigResponse"),
    ModelStatistics: method(
      S,
      "ModelStatistics",
      P + "ModelStatisticsRequest",
      P + "ModelStatisticsResponse",
    ),
    RepositoryIndex: method(
      S,
      "RepositoryIndex",
      P + "RepositoryIndexRequest",
      P + "RepositoryIndexResponse",
    ),
    RepositoryModelLoad: method(
      S,
      "RepositoryModelLoad",
      P + "RepositoryModelLoadRequest",
      P + "RepositoryModelLoadResponse",
    ),
    RepositoryModelUnload: method(
      S,
      "RepositoryModelUnload",
      P + "RepositoryModelUnloadRequest",
      P + "RepositoryModelUnloadResponse",
    ),
  };
  const health: grpc.ServiceDefinition = {
    Check: method(
      "grpc.health.v1.Health",
      "Check",
      "grpc.health.v1.HealthCheckRequest",
      "grpc.health.v1.HealthCheckResponse",
    ),
  };
  return { inference, health };
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
 * `maxMessageBytes` says less. `transport` picks what carries the calls: `@grpc/grpc-js`'s server
 * (the default on Deno) or this project's gRPC framing on `node:http2` (the default on Bun and
 * Node).
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
 *   `grpc-js` or `http2` included); UNAVAILABLE when it cannot listen.
 */
export async function serveGrpc(
  server: Server,
  options: GrpcServeOptions = {},
): Promise<GrpcService> {
  const { hostname, port, signal } = listenOptions(
    "serveGrpc()",
    options,
    "{ hostname?, port?, restrictedApis?, maxMessageBytes?, transport?, signal? }",
    8001,
  );
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
  const transport = transportOf(options.transport);
  const restricted = restrictionCheck(options.restrictedApis);
  const root = protocolRoot();
  const type = (name: string) => root.lookupType(name);
  /**
   * Encodes a message of type `name` at once, into bytes of its own. An inference response's
   * outputs can be views of Triton's buffers, which go back to Triton when the response is
   * disposed; grpc-js serializes a message only when it gets to it (after the handler returns,
   * or after the writes queued before it on a stream), so a response is encoded while it is held.
   */
  const encoder = (name: string) => {
    const t = type(name);
    return (message: object): Uint8Array => t.encode(message).finish();
  };
  const encodeInferResponse = encoder("inference.ModelInferResponse");
  const encodeStreamResponse = encoder("inference.ModelStreamInferResponse");

  /** Calls in flight, each with what cancels its requests. */
  const calls = new Set<AbortController>();
  let waiters: (() => void)[] = [];
  const begin = (): AbortController => {
    const controller = new AbortController();
    calls.add(controller);
    return controller;
  };
  const end = (controller: AbortController) => {
    if (!calls.delete(controller) || calls.size > 0) return;
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  };

  /** Whether the call may use `category`; answers UNAVAILABLE when not. */
  const allowed = (category: RestrictedCategory, call: { metadata: CallMetadata }) =>
    restricted(category, (header) => {
      const values = call.metadata.get(header);
      return values.length > 0 ? String(values[0]) : null;
    });

  /** A unary RPC: `run` gives the response object (its message type's plain form). */
  const unary = (
    category: RestrictedCategory,
    responseType: string,
    run: (request: Record<string, unknown>, signal: AbortSignal) => unknown,
    convert = false,
  ): UnaryHandler => {
    const res = type(responseType);
    return (call, callback) => {
      const denied = allowed(category, call);
      if (denied !== undefined) return callback({ code: Status.UNAVAILABLE, details: denied });
      const controller = begin();
      // grpc-js emits "cancelled" when the call's stream closes, answered or not: only a call
      // still in flight (not yet ended) is cancelled.
      call.on("cancelled", () => {
        if (calls.has(controller)) controller.abort(new Error("the client cancelled the call"));
      });
      new Promise((resolve) =>
        resolve(run(call.request as Record<string, unknown>, controller.signal))
      ).then(
        (value) => {
          end(controller);
          callback(null, convert ? res.fromObject(value as object) : value);
        },
        (e) => {
          end(controller);
          callback(statusOf(e));
        },
      );
    };
  };

  const infer = async (message: GrpcInferRequest, signal: AbortSignal) => {
    const { request } = readInferRequest(message);
    const model = server.model(message.model_name, versionOf(message.model_version));
    let response: InferResponse | undefined;
    for await (const r of model.infer({ ...request, signal })) {
      if (response !== undefined) {
        r.dispose();
        response.dispose();
        unsupported(
          "ModelInfer RPC doesn't support models with decoupled transaction policy",
        );
      }
      response = r;
    }
    if (response === undefined) unsupported("the model sent no response; use ModelStreamInfer");
    try {
      return encodeInferResponse(inferResponseMessage(response, undefined));
    } finally {
      response.dispose();
    }
  };

  const definitions = serviceDefinitions(root);
  const P = "inference.";
  type Req = Record<string, unknown>;
  const str = (r: Req, k: string) => (r[k] as string | undefined) ?? "";
  const handlers: ServiceImplementation = {
    ServerLive: unary("health", P + "ServerLiveResponse", () => ({ live: server.live() })),
    ServerReady: unary("health", P + "ServerReadyResponse", () => ({ ready: server.ready() })),
    ModelReady: unary("health", P + "ModelReadyResponse", (r) => ({
      ready: server.model(str(r, "name"), versionOf(str(r, "version"))).ready(),
    })),
    ServerMetadata: unary("metadata", P + "ServerMetadataResponse", () => {
      const meta = server.metadata();
      return { ...meta, extensions: servedExtensions(meta.extensions) };
    }),
    ModelMetadata: unary(
      "metadata",
      P + "ModelMetadataResponse",
      (r) => server.model(str(r, "name"), versionOf(str(r, "version"))).metadata(),
      true,
    ),
    ModelConfig: unary("model-config", P + "ModelConfigResponse", (r) => ({
      config: server.model(str(r, "name"), versionOf(str(r, "version"))).config(),
    }), true),
    ModelStatistics: unary("statistics", P + "ModelStatisticsResponse", (r) => {
      const name = str(r, "name");
      const version = versionOf(str(r, "version"));
      if (name === "") return { model_stats: server.statistics() };
      if (version !== -1) return { model_stats: [server.model(name, version).statistics()] };
      const stats = server.statistics().filter((s) => s.name === name);
      if (stats.length === 0) stats.push(server.model(name).statistics());
      return { model_stats: stats };
    }, true),
    RepositoryIndex: unary("model-repository", P + "RepositoryIndexResponse", (r) => {
      if (str(r, "repository_name") !== "") {
        unsupported("'repository_name' specification is not supported");
      }
      return {
        models: server.models({ readyOnly: r.ready === true }).map((m) => ({
          name: m.name,
          version: m.version === undefined ? "" : String(m.version),
          state: m.state ?? "",
          reason: m.reason ?? "",
        })),
      };
    }),
    RepositoryModelLoad: unary("model-repository", P + "RepositoryModelLoadResponse", async (r) => {
      if (str(r, "repository_name") !== "") {
        unsupported("'repository_name' specification is not supported");
      }
      const options: { config?: Record<string, unknown>; files?: Record<string, Uint8Array> } = {};
      const params = r.parameters as Record<string, Record<string, unknown>>;
      for (const [key, p] of Object.entries(params)) {
        if (key === "config") {
          if (typeof p.string_param !== "string") invalid("parameter 'config' must be a string");
          let config: unknown;
          try {
            config = JSON.parse(p.string_param);
          } catch (e) {
            invalid(`parameter 'config' is not JSON: ${e instanceof Error ? e.message : e}`);
          }
          if (config === null || typeof config !== "object" || Array.isArray(config)) {
            invalid("parameter 'config' must be a JSON object");
          }
          options.config = config as Record<string, unknown>;
        } else if (key.startsWith("file:")) {
          if (!(p.bytes_param instanceof Uint8Array)) {
            invalid(`parameter '${key}' must be bytes_param`);
          }
          (options.files ??= {})[key.slice(5)] = p.bytes_param;
        } else {
          invalid(`unknown load parameter '${key}' (expected 'config' or 'file:<path>')`);
        }
      }
      await server.loadModel(str(r, "model_name"), options as never);
      return {};
    }),
    RepositoryModelUnload: unary(
      "model-repository",
      P + "RepositoryModelUnloadResponse",
      async (r) => {
        if (str(r, "repository_name") !== "") {
          unsupported("'repository_name' specification is not supported");
        }
        const params = r.parameters as Record<string, Record<string, unknown>>;
        const dependents = params.unload_dependents;
        if (dependents !== undefined && typeof dependents.bool_param !== "boolean") {
          invalid("parameter 'unload_dependents' must be a boolean");
        }
        await server.unloadModel(str(r, "model_name"), {
          unloadDependents: dependents?.bool_param === true,
        });
        return {};
      },
    ),
    ModelInfer: unary(
      "inference",
      P + "ModelInferResponse",
      (r, signal) => infer(r as unknown as GrpcInferRequest, signal),
    ),
    ModelStreamInfer: (call: DuplexCall) => {
      const denied = allowed("inference", call);
      if (denied !== undefined) {
        call.emit("error", { code: Status.UNAVAILABLE, details: denied });
        return;
      }
      const controller = begin();
      const running = new Set<Promise<void>>();
      /** Once no request of the stream runs, the call is over (idempotent). */
      let finishing: Promise<void> | undefined;
      const finish = () =>
        finishing ??= (async () => {
          while (running.size > 0) await Promise.allSettled([...running]);
          end(controller);
        })();
      const abort = () => {
        if (!calls.has(controller)) return; // the stream ended: grpc-js still emits "cancelled"
        controller.abort(new Error("the client cancelled the stream"));
        void finish();
      };
      call.on("cancelled", abort);
      /** Resolves when the stream's write buffer drains, or it ends; one wait shared by all the
       * stream's requests. */
      let draining: Promise<void> | undefined;
      const drained = () =>
        draining ??= whenDrained(call).finally(() => {
          draining = undefined;
        });
      const endsOnError = call.metadata.get("triton_grpc_error").length > 0;
      let failed = false;
      const fail = (e: unknown) => {
        if (failed) return;
        failed = true;
        controller.abort(new Error("the stream ended with an error"));
        call.emit("error", statusOf(e));
      };
      const one = async (message: GrpcInferRequest) => {
        try {
          const { request, emptyFinal } = readInferRequest(message);
          const model = server.model(message.model_name, versionOf(message.model_version));
          let sawFinal = false;
          for await (const r of model.infer({ ...request, signal: controller.signal })) {
            let flowing: boolean;
            try {
              if (r.final) sawFinal = true;
              flowing = call.write(encodeStreamResponse({
                error_message: "",
                infer_response: inferResponseMessage(r, r.final),
              }));
            } finally {
              r.dispose();
            }
            // A client reading slower than the model answers: the next response waits in the
            // binding (and in Triton) until the stream drains, instead of piling up here.
            if (!flowing) await drained();
          }
          if (!sawFinal && emptyFinal) {
            call.write({
              error_message: "",
              infer_response: emptyFinalMessage(
                { name: message.model_name, version: versionOf(message.model_version) },
                message.id,
              ),
            });
          }
        } catch (e) {
          if (controller.signal.aborted) return;
          if (endsOnError) return fail(e);
          call.write({
            error_message: statusOf(e).details,
            infer_response: {
              model_name: message.model_name,
              model_version: message.model_version,
              id: message.id,
            },
          });
        }
      };
      call.on("data", (message) => {
        if (failed) return;
        const p = one(message as GrpcInferRequest).finally(() => running.delete(p));
        running.add(p);
      });
      call.on("end", async () => {
        while (running.size > 0) await Promise.allSettled([...running]);
        if (!failed) call.end();
        void finish();
      });
      call.on("error", () => abort());
    },
  };

  const healthHandlers: ServiceImplementation = {
    Check: unary("health", "grpc.health.v1.HealthCheckResponse", () => ({
      status: server.ready() ? 1 : 2, // SERVING, NOT_SERVING
    })),
  };

  const listener = await (transport === "http2" ? listenHttp2 : listenGrpcJs)({
    hostname,
    port,
    maxMessageBytes,
    services: [
      { definition: definitions.inference, implementation: handlers },
      { definition: definitions.health, implementation: healthHandlers },
    ],
  });

  const idle = () =>
    calls.size === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r));
  const { close, closed } = closing({
    stopAccepting: () => listener.stopAccepting(),
    idle,
    endInFlight: () => {
      for (const c of calls) c.abort(new TritonError("UNAVAILABLE", "the gRPC service is closing"));
      listener.endInFlight();
    },
  }, signal);
  return {
    hostname,
    port: listener.port,
    address: `${bracketed(hostname)}:${listener.port}`,
    get active() {
      return calls.size;
    },
    transport,
    close,
    closed,
    [Symbol.asyncDispose]: () => close(),
  };
}
