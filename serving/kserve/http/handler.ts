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
import { tracedFetch } from "../../common/http_span.ts";
import { type Route as RouteOf, routesOf } from "../../common/routes.ts";
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
  sharedMemoryStatus,
} from "../operations.ts";
import { cudaWithWorkers, kserveState, Op } from "../protocol_state.ts";
import { repositoryAction, repositoryIndexJson } from "./repository.ts";
import { SETTINGS_ROUTES } from "./settings_routes.ts";
import {
  type Handler,
  json,
  modelName,
  ok,
  type RouteLine,
  type Served,
  versionIn,
} from "./routing.ts";
import { type TraceManager, traceOption, type TraceServeOptions } from "../trace_manager.ts";
import {
  type RestrictedApis,
  type RestrictedCategory,
  restrictionGuard,
} from "../../common/restricted.ts";
import type { FetchHandler, ServedService, ServiceHooks } from "../../common/listen.ts";
import type { StateChanges } from "../../common/state_changes.ts";

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

/** The KServe routes' {@link RouteOf}: categories of {@link RestrictedCategory}. */
type Route = RouteOf<RestrictedCategory>;

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

const MODEL = "/v2/models/:name";
const VERSION = "/v2/models/:name/versions/:version{[0-9]+}";
/** A model's path with `suffix`, without and with a version. */
const atModel = (suffix: string) => [MODEL + suffix, VERSION + suffix];
/** A repository path, of the default repository and of a named one. */
const inRepository = (
  path: string,
) => [`/v2/repository${path}`, `/v2/repository/:repository${path}`];
const SHM = "/v2/systemsharedmemory";
const CUDA_SHM = "/v2/cudasharedmemory";
/** A shared memory path, of every region and of one. */
const ofRegions = (
  root: string,
  action: string,
) => [`${root}/${action}`, `${root}/region/:region/${action}`];

const live: Handler = (s) => new Response(null, { status: serverLive(s.server) ? 200 : 400 });
const ready: Handler = (s) => new Response(null, { status: serverReady(s.server) ? 200 : 400 });
const serverMetadataRoute: Handler = (s) =>
  json(JSON.stringify(serverMetadata(s.server, s.regions)));
const statistics = (s: Served, name: string, version: number) =>
  json(JSON.stringify({ model_stats: modelStatistics(s.server, name, version) }));
const allStatistics: Handler = (s) => statistics(s, "", -1);
const modelStatisticsRoute: Handler = (s, c) => statistics(s, modelName(c), versionIn(c));
const modelMetadataRoute: Handler = (s, c) =>
  json(JSON.stringify(modelMetadata(s.server, modelName(c), versionIn(c))));
const modelReadyRoute: Handler = (s, c) =>
  modelReady(s.server, modelName(c), versionIn(c))
    ? ok()
    : errorResponse(400, "Model version not ready");
const modelConfigRoute: Handler = (s, c) =>
  json(JSON.stringify(modelConfig(s.server, modelName(c), versionIn(c))));

const infer: Handler = (s, c) =>
  inferEndpoint(
    s.server.model(modelName(c), versionIn(c)),
    c.req.raw,
    s.limits,
    s.regions,
    s.traces.sample(modelName(c)),
  );

/** The generate extension, its response streamed as events where `streaming`. */
async function generate(s: Served, c: Context, streaming: boolean): Promise<Response> {
  const request = c.req.raw;
  const target = s.server.model(modelName(c), versionIn(c));
  const { response, stream } = await generateEndpoint(target, request, s.limits.json, streaming);
  if (stream) s.keepStream(request, response, stream);
  return response;
}
const generateOnce: Handler = (s, c) => generate(s, c, false);
const generateStream: Handler = (s, c) => generate(s, c, true);

const repositoryIndexRoute: Handler = async (s, c) =>
  json(
    repositoryIndexJson(
      s.server,
      await readJsonObject(c.req.raw, s.limits.json, "repository index"),
      c.req.param("repository"),
    ),
  );

/** Loading or unloading a model of the repository. */
async function repositoryModel(s: Served, c: Context, action: "load" | "unload") {
  const body = await readJsonObject(c.req.raw, s.limits.json, `${action} model`);
  await repositoryAction(s.server, action, modelName(c), body, c.req.param("repository"));
  return ok();
}
const load: Handler = (s, c) => repositoryModel(s, c, "load");
const unload: Handler = (s, c) => repositoryModel(s, c, "unload");

const systemShmStatus: Handler = (s, c) =>
  json(JSON.stringify(
    sharedMemoryStatus(s.regions, c.req.param("region") ?? "").map((r) => ({
      name: r.name,
      key: r.key,
      offset: r.offset,
      byte_size: r.byteSize,
    })),
  ));

const systemShmRegister: Handler = async (s, c) => {
  const json = await readJsonObject(c.req.raw, s.limits.json, "register");
  const count = (key: string) =>
    json[key] === undefined ? undefined : unsigned(json[key], `'${key}'`);
  await s.changes.change(Op.SHM_REGISTER, [
    withoutNul(c.req.param("region")!, "the region name"),
    json.key === undefined ? undefined : string(json.key, "'key'"),
    count("offset"),
    count("byte_size"),
  ]);
  return ok();
};

const systemShmUnregister: Handler = async (s, c) => {
  await s.changes.change(Op.SHM_UNREGISTER, [c.req.param("region") ?? ""]);
  return ok();
};

const cudaShmStatus: Handler = (s, c) =>
  json(JSON.stringify(
    cudaSharedMemoryStatus(s.regions, c.req.param("region") ?? "").map((r) => ({
      name: r.name,
      device_id: r.deviceId,
      byte_size: r.byteSize,
    })),
  ));

const cudaShmRegister: Handler = async (s, c) => {
  const json = await readJsonObject(c.req.raw, s.limits.json, "register");
  const name = withoutNul(c.req.param("region") ?? "", "the region name");
  if (s.threads > 1 && s.regions !== undefined) cudaWithWorkers();
  cudaSharedMemoryRegister(s.regions, name, () => {
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
  return ok();
};

const cudaShmUnregister: Handler = (s, c) => {
  cudaSharedMemoryUnregister(s.regions, c.req.param("region") ?? "");
  return ok();
};

const metrics: Handler = (s) =>
  new Response(s.server.metrics(), { headers: { "content-type": "text/plain; charset=utf-8" } });

/** The routes, one a line, in the order they are registered. */
const ROUTES: readonly RouteLine[] = [
  ["GET", ["/v2/health/live"], "health", live],
  ["GET", ["/v2/health/ready"], "health", ready],
  ["GET", ["/v2"], "metadata", serverMetadataRoute],
  ["GET", ["/v2/models/stats"], "statistics", allStatistics],
  ["GET", atModel(""), "metadata", modelMetadataRoute],
  ["GET", atModel("/ready"), "health", modelReadyRoute],
  ["GET", atModel("/config"), "model-config", modelConfigRoute],
  ["GET", atModel("/stats"), "statistics", modelStatisticsRoute],
  ["POST", atModel("/infer"), "inference", infer],
  ["POST", atModel("/generate"), "inference", generateOnce],
  ["POST", atModel("/generate_stream"), "inference", generateStream],
  ["POST", inRepository("/index"), "model-repository", repositoryIndexRoute],
  ["POST", inRepository("/models/:name/load"), "model-repository", load],
  ["POST", inRepository("/models/:name/unload"), "model-repository", unload],
  ["GET", ofRegions(SHM, "status"), "shared-memory", systemShmStatus],
  ["POST", [`${SHM}/region/:region/register`], "shared-memory", systemShmRegister],
  ["POST", ofRegions(SHM, "unregister"), "shared-memory", systemShmUnregister],
  ["GET", ofRegions(CUDA_SHM, "status"), "shared-memory", cudaShmStatus],
  ["POST", ofRegions(CUDA_SHM, "register"), "shared-memory", cudaShmRegister],
  ["POST", ofRegions(CUDA_SHM, "unregister"), "shared-memory", cudaShmUnregister],
  ...SETTINGS_ROUTES,
  ["GET", ["/metrics"], "metrics", metrics],
];

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
  const threads = hooks.threads ?? 1;
  const state = kserveState({ server, regions, traces, threads, mirror: hooks.mirror });
  // One thread: a change is applied here, at once.
  const changes: StateChanges = hooks.changes ?? {
    change: async (op, args) => await state.apply(op, args),
  };

  const app = new Hono();
  app.onError((err) => responseForError(err));
  app.notFound(() => errorResponse(404, "Not Found"));
  const notAllowed = () => errorResponse(405, "Method Not Allowed");

  const route: Route = routesOf(app, guard, notAllowed);
  const served: Served = {
    server,
    regions,
    limits,
    traces,
    threads,
    changes,
    keepStream: (request, response, stream) => {
      streams.set(response, stream);
      open.add(stream);
      stream.ended.then(() => open.delete(stream));
      hooks.onStream?.(request);
    },
  };
  for (const [method, paths, category, handler] of ROUTES) {
    route(method, paths, category, (c) => handler(served, c));
  }

  const fetch = tracedFetch(
    countedFetch((request) => app.fetch(request), responseForError, calls, streams),
    (response) => streams.has(response),
  );
  return {
    fetch,
    active: () => calls.size,
    traces,
    state,
    finish: () => {
      state.stop();
      return ownsTraces ? traces.close() : Promise.resolve();
    },
    idle: () => calls.idle(),
    endStreams: (reason) => {
      for (const stream of open) stream.stop(reason);
    },
  };
}
