/**
 * The KServe v2 HTTP/REST protocol as one fetch-style handler (`Request` → `Response`) over a
 * running {@link Server}: health, metadata, configuration, statistics, inference (JSON and binary
 * tensors), generate and generate_stream, the model repository extension and Prometheus metrics,
 * routed with Hono.
 *
 * @module
 */
import { describeValue, expectRecord } from "../../../src/value_checks.ts";
import { type Context, Hono } from "hono";
import type { Server } from "../../../src/server.ts";
import { TritonError } from "../../../src/errors.ts";
import { readJsonObject, type RequestLimits, type SizeLimit } from "../../common/body.ts";
import { errorResponse, responseForError } from "../../common/http_errors.ts";
import { invalid } from "../../common/refusals.ts";
import type { EventStream } from "../../common/event_stream.ts";
import { generateEndpoint } from "./generate.ts";
import { inferEndpoint } from "./infer_endpoint.ts";
import { string, unsigned, withoutNul } from "../../common/json.ts";
import { sharedMemoryOption, type SharedMemoryRegions } from "../shared_memory.ts";
import { Calls } from "../../common/lifecycle.ts";
import { countedFetch } from "../../common/counted_fetch.ts";
import { type Method, type Route as RouteOf, routesOf } from "../../common/routes.ts";
import {
  cudaSharedMemoryRegister,
  cudaSharedMemoryStatus,
  cudaSharedMemoryUnregister,
  modelConfig,
  modelMetadata,
  modelReady,
  modelStatistics,
  serverLive,
  serverMetadata,
  serverReady,
  sharedMemoryRegister,
  sharedMemoryStatus,
  sharedMemoryUnregister,
  versionOf,
} from "../operations.ts";
import { repositoryAction, repositoryIndexJson } from "./repository.ts";
import { settingsRoutes } from "./settings_routes.ts";
import { type TraceManager, traceOption, type TraceServeOptions } from "../trace_manager.ts";
import {
  type RestrictedApis,
  type RestrictedCategory,
  restrictionGuard,
} from "../../common/restricted.ts";
import type { FetchHandler, ServedService, ServiceHooks } from "../../common/listen.ts";

/** What the handler accepts and who may call what. */
export interface KServeOptions {
  /** The largest request body accepted, in bytes: JSON and binary tensor data together.
   * A larger `Content-Length`, or a chunked body that grows past it, is answered 413 naming
   * `maxRequestBytes` before the body is read further. Every tensor a request declares must fit
   * in its body, so this also bounds what a request can make the server allocate.
   * @default 2147483647 (2 GiB − 1: the largest message Triton's gRPC front end takes;
   *   `tritonserver` caps only the JSON parts of an HTTP request, see {@link maxJsonBytes}) */
  readonly maxRequestBytes?: number;
  /** The largest JSON accepted, in bytes: a JSON body (infer, generate, repository) or the JSON
   * header of a binary infer request (`Inference-Header-Content-Length`). Over it: 413 naming
   * `maxJsonBytes`, before the body is read where `Content-Length` declares its size. Binary
   * tensor data after the header counts only against {@link maxRequestBytes}.
   * @default 67108864 (64 MiB: `tritonserver`'s `--http-max-input-size`, which caps the same
   *   JSON parts) */
  readonly maxJsonBytes?: number;
  /** Categories of endpoints served only to requests carrying a header with a given value, e.g.
   * `{ "model-repository": { header: "admin-key", value: "…" } }` (Triton's
   * `--http-restricted-api`); the others get 403. Default: everything open. */
  readonly restrictedApis?: RestrictedApis;
  /** Trace settings (the "trace" extension; `tritonserver`'s `--trace-config`): where the traces
   * of the sampled inference requests are written, and the initial global settings, which
   * clients may change (`/v2/trace/setting`). Default: tracing off, no file. A {@link TraceManager}
   * instead: the one given to `serveGrpc()` and `serve()` alike, whose settings both share. */
  readonly trace?: TraceServeOptions | TraceManager;
  /** The system and CUDA shared memory regions clients may register and use (the
   * `system_shared_memory` and `cuda_shared_memory` extensions). Absent: registering is
   * UNSUPPORTED, as in `tritonserver` without `--allow-client-shm`. Give the same object to
   * `serveGrpc()` to share its regions. */
  readonly sharedMemory?: SharedMemoryRegions;
}

export type { Method };

/** @internal The KServe routes' {@link RouteOf}: categories of {@link RestrictedCategory}. */
export type Route = RouteOf<RestrictedCategory>;

export type { FetchHandler };

/** @internal What a runtime adapter needs beyond the handler, and the traces. */
export interface KServeService extends ServedService {
  /** The trace settings and traces. */
  readonly traces: TraceManager;
  /** Closes the trace manager where the service made it (writing what is left); one given in
   * the options is its owner's to close. */
  readonly finish: () => Promise<void>;
}

/** 2 GiB − 1. */
export const DEFAULT_MAX_REQUEST_BYTES: number = 2 ** 31 - 1;
/** 64 MiB. */
export const DEFAULT_MAX_JSON_BYTES: number = 64 * 1024 * 1024;

/** The limit `options[option]` sets, `fallback` when absent.
 * @throws {TritonError} INVALID_ARG for anything but a whole number of bytes >= 0. */
function sizeLimit(
  options: KServeOptions,
  option: "maxRequestBytes" | "maxJsonBytes",
  fallback: number,
): SizeLimit {
  const bytes = options[option] ?? fallback;
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new TritonError(
      "INVALID_ARG",
      `${option} must be an integer number of bytes >= 0, not ${describeValue(bytes)}`,
    );
  }
  return { bytes, option };
}

const JSON_TYPE = { "content-type": "application/json" };

function json(text: string, status = 200): Response {
  return new Response(text, { status, headers: JSON_TYPE });
}

/** The model name in the URL (percent-decoded).
 * @throws {TritonError} INVALID_ARG for a name holding a NUL character. */
function modelName(c: Context): string {
  return withoutNul(c.req.param("name")!, "the model name");
}

/** The model version in the URL, -1 when none. */
function versionIn(c: Context): number {
  return versionOf(c.req.param("version"));
}

/**
 * The KServe v2 protocol over `server` as a fetch-style handler, for `Deno.serve`, `Bun.serve`,
 * a Hono app (`app.mount("/", handler)`) or any server that speaks `Request`/`Response`. `serve()`
 * runs it on the runtime's own HTTP server.
 *
 * Endpoints: `GET /v2/health/live`, `/v2/health/ready`, `/v2`, `/v2/models/stats`,
 * `/v2/models/{name}[/versions/{v}]` with `/ready`, `/config`, `/stats`; `POST .../infer`,
 * `.../generate`, `.../generate_stream` (Server-Sent Events); `POST /v2/repository/index`,
 * `/v2/repository/models/{name}/load`, `.../unload`; `GET /metrics`. Errors are
 * `{"error": "..."}` with the status Triton gives their code (see `HTTP_STATUS`); an unknown path
 * is 404, a known path with another method 405, a too large body 413, a restricted API without its
 * header 403.
 *
 * Each response is written while it is held and disposed at once. A request whose client goes
 * away (its `Request.signal` aborts, or its event stream is cancelled) is cancelled in Triton.
 * @throws {TritonError} INVALID_ARG for bad options.
 */
export function kserveHandler(server: Server, options: KServeOptions = {}): FetchHandler {
  return kserveService(server, options).fetch;
}

/** @internal {@link kserveHandler} with what `serve()` needs to close gracefully. */
export function kserveService(
  server: Server,
  options: KServeOptions = {},
  hooks: ServiceHooks = {},
): KServeService {
  expectRecord(
    "the KServe options",
    options,
    "{ maxRequestBytes?, maxJsonBytes?, restrictedApis?, sharedMemory?, trace? }",
  );
  const regions = sharedMemoryOption(options.sharedMemory);
  const bodyLimit = sizeLimit(options, "maxRequestBytes", DEFAULT_MAX_REQUEST_BYTES);
  const jsonLimit = sizeLimit(options, "maxJsonBytes", DEFAULT_MAX_JSON_BYTES);
  const limits: RequestLimits = {
    body: bodyLimit,
    json: jsonLimit.bytes <= bodyLimit.bytes ? jsonLimit : bodyLimit,
  };
  const guard = restrictionGuard(options.restrictedApis);
  const { manager: traces, owned: ownsTraces } = traceOption(server, options.trace);
  /** Streamed responses and their streams; the streams still open. */
  const streams = new WeakMap<Response, EventStream>();
  const open = new Set<EventStream>();
  const calls = new Calls();

  const app = new Hono();
  app.onError((err) => responseForError(err));
  app.notFound(() => errorResponse(404, "Not Found"));
  const notAllowed = () => errorResponse(405, "Method Not Allowed");

  const route: Route = routesOf(app, guard, notAllowed);
  const model = "/v2/models/:name";
  const version = "/v2/models/:name/versions/:version{[0-9]+}";
  const modelPaths = (suffix: string) => [model + suffix, version + suffix];

  route(
    "GET",
    ["/v2/health/live"],
    "health",
    () => new Response(null, { status: serverLive(server) ? 200 : 400 }),
  );
  route(
    "GET",
    ["/v2/health/ready"],
    "health",
    () => new Response(null, { status: serverReady(server) ? 200 : 400 }),
  );
  route("GET", ["/v2"], "metadata", () => json(JSON.stringify(serverMetadata(server, regions))));
  const stats = (name: string, v: number) =>
    json(JSON.stringify({ model_stats: modelStatistics(server, name, v) }));
  route("GET", ["/v2/models/stats"], "statistics", () => stats("", -1));
  route(
    "GET",
    modelPaths(""),
    "metadata",
    (c) => json(JSON.stringify(modelMetadata(server, modelName(c), versionIn(c)))),
  );
  route("GET", modelPaths("/ready"), "health", (c) => {
    return modelReady(server, modelName(c), versionIn(c))
      ? new Response(null, { status: 200 })
      : errorResponse(400, "Model version not ready");
  });
  route(
    "GET",
    modelPaths("/config"),
    "model-config",
    (c) => json(JSON.stringify(modelConfig(server, modelName(c), versionIn(c)))),
  );
  route("GET", modelPaths("/stats"), "statistics", (c) => stats(modelName(c), versionIn(c)));

  route(
    "POST",
    modelPaths("/infer"),
    "inference",
    (c) =>
      inferEndpoint(
        server.model(modelName(c), versionIn(c)),
        c.req.raw,
        limits,
        regions,
        traces.sample(modelName(c)),
      ),
  );
  const generate = async (c: Context, streaming: boolean): Promise<Response> => {
    const request = c.req.raw;
    const target = server.model(modelName(c), versionIn(c));
    const { response, stream } = await generateEndpoint(target, request, limits.json, streaming);
    if (stream) {
      streams.set(response, stream);
      open.add(stream);
      stream.ended.then(() => open.delete(stream));
      hooks.onStream?.(request);
    }
    return response;
  };
  route("POST", modelPaths("/generate"), "inference", (c) => generate(c, false));
  route("POST", modelPaths("/generate_stream"), "inference", (c) => generate(c, true));

  route(
    "POST",
    ["/v2/repository/index", "/v2/repository/:repository/index"],
    "model-repository",
    async (c) =>
      json(
        repositoryIndexJson(
          server,
          await readJsonObject(c.req.raw, limits.json, "repository index"),
          c.req.param("repository"),
        ),
      ),
  );
  for (const action of ["load", "unload"] as const) {
    route(
      "POST",
      [
        `/v2/repository/models/:name/${action}`,
        `/v2/repository/:repository/models/:name/${action}`,
      ],
      "model-repository",
      async (c) => {
        const body = await readJsonObject(c.req.raw, limits.json, `${action} model`);
        await repositoryAction(server, action, modelName(c), body, c.req.param("repository"));
        return new Response(null, { status: 200 });
      },
    );
  }
  const shm = "/v2/systemsharedmemory";
  route(
    "GET",
    [`${shm}/status`, `${shm}/region/:region/status`],
    "shared-memory",
    (c) =>
      json(JSON.stringify(
        sharedMemoryStatus(regions, c.req.param("region") ?? "").map((r) => ({
          name: r.name,
          key: r.key,
          offset: r.offset,
          byte_size: r.byteSize,
        })),
      )),
  );
  route("POST", [`${shm}/region/:region/register`], "shared-memory", async (c) => {
    const json = await readJsonObject(c.req.raw, limits.json, "register");
    const count = (key: string) =>
      json[key] === undefined ? undefined : unsigned(json[key], `'${key}'`);
    sharedMemoryRegister(
      regions,
      withoutNul(c.req.param("region")!, "the region name"),
      json.key === undefined ? undefined : string(json.key, "'key'"),
      count("offset"),
      count("byte_size"),
    );
    return new Response(null, { status: 200 });
  });
  route("POST", [`${shm}/unregister`, `${shm}/region/:region/unregister`], "shared-memory", (c) => {
    sharedMemoryUnregister(regions, c.req.param("region") ?? "");
    return new Response(null, { status: 200 });
  });
  const cudaShm = "/v2/cudasharedmemory";
  route(
    "GET",
    [`${cudaShm}/status`, `${cudaShm}/region/:region/status`],
    "shared-memory",
    (c) =>
      json(JSON.stringify(
        cudaSharedMemoryStatus(regions, c.req.param("region") ?? "").map((r) => ({
          name: r.name,
          device_id: r.deviceId,
          byte_size: r.byteSize,
        })),
      )),
  );
  route(
    "POST",
    [`${cudaShm}/register`, `${cudaShm}/region/:region/register`],
    "shared-memory",
    async (c) => {
      const json = await readJsonObject(c.req.raw, limits.json, "register");
      const name = withoutNul(c.req.param("region") ?? "", "the region name");
      cudaSharedMemoryRegister(regions, name, () => {
        const raw = json.raw_handle;
        const b64 = raw !== null && typeof raw === "object" && !Array.isArray(raw)
          ? raw.b64
          : undefined;
        if (raw !== undefined && b64 === undefined) {
          invalid("attempt to access non-existing object member 'b64'");
        }
        const count = (key: string) => {
          const v = json[key];
          return typeof v === "number" || typeof v === "bigint" || v === undefined
            ? v
            : unsigned(v, `'${key}'`);
        };
        return {
          rawHandle: b64 === undefined ? undefined : string(b64, "'raw_handle.b64'"),
          byteSize: count("byte_size"),
          deviceId: count("device_id"),
        };
      });
      return new Response(null, { status: 200 });
    },
  );
  route(
    "POST",
    [`${cudaShm}/unregister`, `${cudaShm}/region/:region/unregister`],
    "shared-memory",
    (c) => {
      cudaSharedMemoryUnregister(regions, c.req.param("region") ?? "");
      return new Response(null, { status: 200 });
    },
  );
  settingsRoutes(route, server, traces, limits.json);
  route(
    "GET",
    ["/metrics"],
    "metrics",
    () =>
      new Response(server.metrics(), { headers: { "content-type": "text/plain; charset=utf-8" } }),
  );

  const fetch = countedFetch((request) => app.fetch(request), responseForError, calls, streams);
  return {
    fetch,
    active: () => calls.size,
    traces,
    finish: () => ownsTraces ? traces.close() : Promise.resolve(),
    idle: () => calls.idle(),
    endStreams: (reason) => {
      for (const stream of open) stream.stop(reason);
    },
  };
}
