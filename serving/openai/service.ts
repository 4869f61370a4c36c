/**
 * The OpenAI-compatible API over a running {@link Server} as one fetch-style handler, routed
 * with Hono: `GET /v1/models`, `POST /v1/completions`, `/v1/chat/completions`, `/v1/embeddings`,
 * the health routes and `/metrics`; and `serveOpenAI()`, which serves it on the runtime's HTTP
 * server with the lifecycle of the KServe front end's `serve()`.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { describeValue, expectRecord } from "../../src/value_checks.ts";
import { TritonError } from "../../src/errors.ts";
import type { Server } from "../../src/server.ts";
import {
  type FetchHandler,
  type HttpService,
  listen,
  type ServedService,
  type ServiceHooks,
} from "../common/listen.ts";
import { readBody, type SizeLimit } from "../common/body.ts";
import type { EventStream } from "../common/event_stream.ts";
import { type JsonRecord, parseJson, record } from "../common/json.ts";
import { Calls } from "../common/lifecycle.ts";
import { countedFetch } from "../common/counted_fetch.ts";
import { tracedFetch } from "../common/http_span.ts";
import { type Method, routesOf } from "../common/routes.ts";
import { type Restriction, restrictionCheck } from "../common/restricted.ts";
import { type Answer, chat, completion } from "./completions.ts";
import { corsOriginsOf, withCors } from "./cors.ts";
import { embeddings } from "./embeddings.ts";
import { errorResponse, OpenAIError } from "./openai_error.ts";
import type { OpenAIModel } from "./mapping.ts";
import { type ServedModel, servedModels } from "./models.ts";
import { chatRequest, checkDepth, completionRequest, embeddingRequest } from "./request.ts";
import { modelObject } from "./responses.ts";
import { type HistogramData, LatencyHistograms, watchEmbeddings } from "./llm_telemetry.ts";
import type { StateApplier } from "../common/state_changes.ts";
import { moduleBeside } from "../common/module_url.ts";

/**
 * Categories of the OpenAI front end's routes that {@link OpenAIOptions.restrictedApis} can
 * restrict: `inference` (`/v1/completions`, `/v1/chat/completions`, `/v1/embeddings`),
 * `model-list` (`/v1/models`, `/v1/models/{id}`), `health` (`/health/ready`, `/v2/health/live`,
 * `/v2/health/ready`), `metrics` (`/metrics`).
 */
export type OpenAIRestrictedCategory = "inference" | "model-list" | "health" | "metrics";

/** Restrictions by category; a category not listed is open. */
export type OpenAIRestrictedApis = Readonly<Partial<Record<OpenAIRestrictedCategory, Restriction>>>;

const CATEGORIES: readonly OpenAIRestrictedCategory[] = [
  "inference",
  "model-list",
  "health",
  "metrics",
];

/** What the OpenAI handler serves and accepts. */
export interface OpenAIOptions {
  /** The models served, by the name OpenAI clients give as `model`. Default: every model of the
   * repository that is ready when the service starts and whose configuration follows vLLM's or
   * TensorRT-LLM's convention, under its Triton name, mapped by that convention. Each mapping is
   * checked against its model's configuration when the service starts. */
  readonly models?: Readonly<Record<string, OpenAIModel>>;
  /** The largest request body accepted, in bytes. A larger `Content-Length`, or a chunked body
   * that grows past it, is answered 413 before the body is read further.
   * @default 67108864 (64 MiB) */
  readonly maxRequestBytes?: number;
  /** The most choices one call may ask for (`n`, times the prompts of a completion); over it:
   * 400. Each choice is one request to the model.
   * @default 128 */
  readonly maxChoices?: number;
  /** Categories of routes served only to requests carrying a header with a given value, e.g.
   * `{ inference: { header: "api-key", value: "…" } }`; the others get 403 (the rule of
   * `serve()`'s `restrictedApis`). Default: everything open. */
  readonly restrictedApis?: OpenAIRestrictedApis;
  /** The origins whose browser pages may call the service (CORS), as a browser sends them in
   * `Origin`: scheme, host and port, e.g. `["http://localhost:5173", "https://ui.example.com"]`;
   * `"*"` allows any origin. Their requests' answers (errors included) carry
   * `Access-Control-Allow-Origin`, and their preflight (`OPTIONS`) is answered 204 with
   * `Access-Control-Allow-Methods: GET,POST`, the headers the page asked for (an API key's too,
   * without the restriction's check) and `Access-Control-Max-Age: 600`. Default: none (no page
   * of another origin can read an answer, and `OPTIONS` is 405), since the service may answer
   * anyone that reaches it: opening it to pages is a choice to make for the pages one runs. */
  readonly corsOrigins?: readonly string[];
}

/** Where and how {@link serveOpenAI} listens, and what it serves. */
export interface ServeOpenAIOptions extends OpenAIOptions {
  /** The address to listen on. Default `"127.0.0.1"`: only this machine can connect. Give
   * `"0.0.0.0"` (or `"::"`) to accept connections from other machines, and then consider
   * {@link OpenAIOptions.restrictedApis}. */
  readonly hostname?: string;
  /** TCP port. Default 9000; 0 = any free port (see {@link OpenAIService.port}). */
  readonly port?: number;
  /** Aborting it closes the service, as {@link OpenAIService.close} does. */
  readonly signal?: AbortSignal;
  /**
   * Threads that serve: the calling thread and `workers − 1` worker threads, each attached to
   * `server` and accepting its own connections on the same port (`reusePort`), as `serve()`'s
   * `workers` of `tritonffi/serve`. `/metrics` adds up every thread's latency histograms. Needs
   * the native callbacks; on Deno the `--unstable-net` flag; on Bun {@link allowBunWorkers}.
   * @default 1 (the calling thread alone)
   */
  readonly workers?: number;
  /** On Bun, serve with `workers` > 1 anyway (see `Server.attach()`'s `allowBunWorkers`). Without
   * it `TRITONFFI_ALLOW_BUN_WORKERS=1` decides. @default false */
  readonly allowBunWorkers?: boolean;
}

/** A running OpenAI service; see {@link serveOpenAI}. Closing it ends the event streams still
 * open after its timeout with a last event `{"error": {"message": "the HTTP service is closing",
 * "type": "server_error", …}}`. */
export type OpenAIService = HttpService;

/** 64 MiB. */
const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const DEFAULT_MAX_CHOICES = 128;
const OPTION_FIELDS = "{ models?, maxRequestBytes?, maxChoices?, restrictedApis?, corsOrigins? }";

/** `options[option]`, a whole number in [`min`, `max`], `fallback` when absent. */
function wholeOption(
  options: OpenAIOptions,
  option: "maxRequestBytes" | "maxChoices",
  fallback: number,
  min: number,
): number {
  const value = options[option] ?? fallback;
  if (!Number.isSafeInteger(value) || value < min) {
    throw new TritonError(
      "INVALID_ARG",
      `${option} must be an integer >= ${min}, not ${describeValue(value)}`,
    );
  }
  return value;
}

const JSON_TYPE = { "content-type": "application/json" };

/** The JSON object of a request body, under `limit`, nesting at most 100 levels.
 * @throws {OpenAIError} 400 for a body that is no JSON object. */
async function readJson(request: Request, limit: SizeLimit): Promise<JsonRecord> {
  const bytes = await readBody(request, limit);
  if (bytes.byteLength === 0) throw new OpenAIError(400, "the request body is empty");
  let body: JsonRecord;
  try {
    body = record(parseJson(bytes, "request"), "the request body");
  } catch (e) {
    // The caller's mistake, said in OpenAI's terms: a 400 without a Triton code name (those
    // are kept for the model's own errors).
    if (e instanceof TritonError) throw new OpenAIError(400, e.message);
    throw e;
  }
  checkDepth(body);
  return body;
}

/** What the routes of one service share. */
interface Served {
  readonly server: Server;
  /** The served models by the name calls give. */
  readonly models: ReadonlyMap<string, ServedModel>;
  /** Whether the service chose its models itself (no `models` option). */
  readonly modelsByConvention: boolean;
  /** When the service was made (seconds since the epoch): the models' `created`. */
  readonly created: number;
  readonly limit: SizeLimit;
  readonly maxChoices: number;
  /** Lifts the runtime's idle timeout for a call that streams (the first chunk may be long in
   * coming, and chunks far apart). */
  readonly streaming: (request: Request) => void;
  /** Keeps the event stream of a streamed response: the call counts until the stream ends, and
   * closing the service ends it. */
  readonly keepStream: (response: Response, stream: EventStream) => void;
  /** The latency histograms of `/metrics`. */
  readonly histograms: LatencyHistograms;
  /** Their Prometheus text, every thread's observations together. */
  readonly histogramText: () => Promise<string>;
}

/** A route's handler. */
type Handler = (served: Served, c: Context) => Response | Promise<Response>;

/** The served model a body names, of `kind`.
 * @throws {OpenAIError} 404 `model_not_found` for an unknown one; 400 for one of another kind. */
function modelFor<K extends ServedModel["kind"]>(
  s: Served,
  name: string,
  kind: K,
): Extract<ServedModel, { kind: K }> {
  const served = s.models.get(name);
  if (served === undefined) throw modelNotFound(s, name);
  if (served.kind !== kind) {
    throw new OpenAIError(
      400,
      kind === "embedding"
        ? `model '${name}' generates text: use /v1/completions or /v1/chat/completions`
        : `model '${name}' is an embedding model: use /v1/embeddings`,
      "model",
    );
  }
  return served as Extract<ServedModel, { kind: K }>;
}

/**
 * OpenAI's 404 for a model this service does not serve, in OpenAI's words. Where the service
 * chose its models itself and Triton has a model of that name (an embedding model, say, which no
 * convention names), the message goes on to say why it is not served and how to serve it. (Where
 * the user named the models, Triton's others are not mentioned.)
 */
function modelNotFound(s: Served, name: string): OpenAIError {
  let tritonHasIt = false;
  if (s.modelsByConvention) {
    try {
      tritonHasIt = s.server.models().some((m) => m.name === name);
    } catch {
      // A stopped server: nothing to add.
    }
  }
  const why = tritonHasIt
    ? `: Triton has a model '${name}', but without \`models\` serveOpenAI() serves only the ` +
      "models whose configuration follows vLLM's or TensorRT-LLM's convention; name it in " +
      "`models` to serve it (an embedding model as { embedding: { input, output } })"
    : "";
  return new OpenAIError(
    404,
    `The model '${name}' does not exist${why}`,
    "model",
    "model_not_found",
  );
}

/** `answer`'s response, its event stream kept where it streams. */
function streamed(s: Served, answer: Answer): Response {
  const { response, stream } = answer;
  if (stream) s.keepStream(response, stream);
  return response;
}

const listModels: Handler = ({ models, created }) =>
  new Response(
    JSON.stringify({
      object: "list",
      data: [...models.keys()].map((id) => modelObject(id, created)),
    }),
    { headers: JSON_TYPE },
  );

const oneModel: Handler = (s, c) => {
  const id = c.req.param("id") ?? "";
  if (!s.models.has(id)) throw modelNotFound(s, id);
  return new Response(JSON.stringify(modelObject(id, s.created)), { headers: JSON_TYPE });
};

const completions: Handler = async (s, c) => {
  const watch = { histograms: s.histograms, arrivedMs: performance.now() };
  const request = completionRequest(await readJson(c.req.raw, s.limit), s.maxChoices);
  const target = modelFor(s, request.model, "generation");
  if (request.stream) s.streaming(c.req.raw);
  return streamed(s, await completion(target, request, c.req.raw.signal, watch));
};

const chatCompletions: Handler = async (s, c) => {
  const watch = { histograms: s.histograms, arrivedMs: performance.now() };
  const request = chatRequest(await readJson(c.req.raw, s.limit), s.maxChoices);
  const target = modelFor(s, request.model, "generation");
  if (request.stream) s.streaming(c.req.raw);
  return streamed(s, await chat(target, request, c.req.raw.signal, watch));
};

const embeddingsRoute: Handler = async (s, c) => {
  const request = embeddingRequest(await readJson(c.req.raw, s.limit));
  const { plan, tokenizer } = modelFor(s, request.model, "embedding");
  return await watchEmbeddings(
    request.model,
    () => embeddings(plan, request, c.req.raw.signal, tokenizer),
  );
};

/** 200 while `up` says so, else 400 saying the server is not `what`. */
const health = (up: (server: Server) => boolean, what: string): Handler => ({ server }) =>
  up(server)
    ? new Response(null, { status: 200 })
    : errorResponse(new OpenAIError(400, `the server is not ${what}`));

/** Triton's metrics, then the latency histograms. */
const metrics: Handler = async ({ server, histogramText }) =>
  new Response(withNewline(server.metrics()) + await histogramText(), {
    headers: { "content-type": "text/plain; charset=utf-8" },
  });

/** `text` ending with a newline where it has any text (Prometheus text is line by line). */
function withNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

/** The routes, one a line: method, paths, restricted-API category, handler. */
const ROUTES: readonly (readonly [Method, string[], OpenAIRestrictedCategory, Handler])[] = [
  ["GET", ["/v1/models"], "model-list", listModels],
  ["GET", ["/v1/models/:id{.+}"], "model-list", oneModel],
  ["POST", ["/v1/completions"], "inference", completions],
  ["POST", ["/v1/chat/completions"], "inference", chatCompletions],
  ["POST", ["/v1/embeddings"], "inference", embeddingsRoute],
  ["GET", ["/health/ready", "/v2/health/ready"], "health", health((s) => s.ready(), "ready")],
  ["GET", ["/v2/health/live"], "health", health((s) => s.live(), "live")],
  ["GET", ["/metrics"], "metrics", metrics],
];

/**
 * @internal {@link openaiHandler} with what `serveOpenAI()` needs to close gracefully.
 * @throws {TritonError} as {@link openaiHandler}.
 */
export function openaiService(
  server: Server,
  options: OpenAIOptions = {},
  hooks: ServiceHooks = {},
): ServedService {
  expectRecord("the OpenAI options", options, OPTION_FIELDS);
  const limit: SizeLimit = {
    bytes: wholeOption(options, "maxRequestBytes", DEFAULT_MAX_REQUEST_BYTES, 0),
    option: "maxRequestBytes",
  };
  const maxChoices = wholeOption(options, "maxChoices", DEFAULT_MAX_CHOICES, 1);
  const check = restrictionCheck<OpenAIRestrictedCategory>(options.restrictedApis, CATEGORIES);
  const origins = corsOriginsOf(options.corsOrigins);
  const models = servedModels(server, options.models);
  /** Streamed responses and their streams; the streams still open. */
  const streams = new WeakMap<Response, EventStream>();
  const open = new Set<EventStream>();
  const calls = new Calls();
  const histograms = new LatencyHistograms();
  const state: StateApplier = {
    // The owner: its histograms with every worker's observations.
    apply: async (op) => {
      if (op !== HISTOGRAMS) throw new TritonError("UNSUPPORTED", `no operation ${op}`);
      const others = await hooks.gather?.(HISTOGRAM_DATA, []) ?? [];
      return histograms.render(others as HistogramData[]);
    },
    // A worker: its observations, for the owner to add up.
    mirror: (op) => {
      if (op !== HISTOGRAM_DATA) throw new TritonError("UNSUPPORTED", `no operation ${op}`);
      return histograms.data();
    },
    snapshot: () => [],
  };

  const app = new Hono();
  app.onError((err) => errorResponse(err));
  app.notFound((c) =>
    errorResponse(new OpenAIError(404, `no route ${c.req.method} ${c.req.path}`))
  );
  const notAllowed = (c: Context) =>
    errorResponse(new OpenAIError(405, `${c.req.method} is not allowed on ${c.req.path}`));
  const route = routesOf<OpenAIRestrictedCategory>(app, (category, request) => {
    const denied = check(category, (header) => request.headers.get(header));
    return denied === undefined
      ? undefined
      : errorResponse(new OpenAIError(403, denied, null, "restricted_api"));
  }, notAllowed);
  const served: Served = {
    server,
    models,
    modelsByConvention: options.models === undefined,
    created: Math.floor(Date.now() / 1000),
    limit,
    maxChoices,
    streaming: (request) => hooks.onStream?.(request),
    keepStream: (response, stream) => {
      streams.set(response, stream);
      open.add(stream);
      stream.ended.then(() => open.delete(stream));
    },
    histograms,
    // On several threads the owner adds up every thread's observations.
    histogramText: () =>
      hooks.changes === undefined
        ? Promise.resolve(histograms.render())
        : hooks.changes.change(HISTOGRAMS, []) as Promise<string>,
  };
  for (const [method, paths, category, handler] of ROUTES) {
    route(method, paths, category, (c) => handler(served, c));
  }

  const counted = tracedFetch(
    countedFetch((request) => app.fetch(request), errorResponse, calls, streams),
    (response) => streams.has(response),
  );
  const fetch = withCors(counted, origins, errorResponse);
  return {
    fetch,
    active: () => calls.size,
    idle: () => calls.idle(),
    endStreams: (reason) => {
      for (const stream of open) stream.stop(reason);
    },
    state,
  };
}

/** The owner's operation: the latency histograms' text, every thread's observations added. */
const HISTOGRAMS = "histograms.text";
/** A worker's answer: its observations ({@link HistogramData}). */
const HISTOGRAM_DATA = "histograms.data";

/**
 * The OpenAI-compatible API over `server` as a fetch-style handler, for `Deno.serve`,
 * `Bun.serve`, a Hono app or any server that speaks `Request`/`Response`; {@link serveOpenAI}
 * runs it on the runtime's own HTTP server.
 *
 * Routes: `GET /v1/models`, `/v1/models/{id}`; `POST /v1/completions`, `/v1/chat/completions`
 * (with `"stream": true` as Server-Sent Events, `data: <chunk>` … `data: [DONE]`),
 * `/v1/embeddings`; `GET /health/ready`, `/v2/health/live`, `/v2/health/ready` (200, or 400 when
 * not); `GET /metrics` (Prometheus text). Every error is `{"error": {"message", "type", "param",
 * "code"}}`: 400 `invalid_request_error` for a bad body (`param` names the field), 404
 * `model_not_found` for an unknown model, 403 for a restricted route without its header, 405, 413
 * over `maxRequestBytes`, and the model's errors with the status of their Triton code (`code` is
 * its name: 400 INVALID_ARG, 500 INTERNAL, 503 UNAVAILABLE, …).
 *
 * A client that goes away (its `Request.signal` aborts, or its event stream is cancelled) cancels
 * the call's requests in Triton.
 * @throws {TritonError} INVALID_ARG for bad options, or a mapping that does not fit its model
 *   (naming the model and the tensor); Triton's error for a model in `models` that is not ready.
 */
export function openaiHandler(server: Server, options: OpenAIOptions = {}): FetchHandler {
  return openaiService(server, options).fetch;
}

/**
 * Serves the OpenAI-compatible API for `server` (see {@link openaiHandler} for the routes) on
 * this runtime's HTTP server: `Deno.serve` on Deno (needs `--allow-net`), `Bun.serve` on Bun,
 * `node:http` on Node through `@hono/node-server`. Resolves once it listens, with the same
 * lifecycle as `serve()` of `tritonffi/serve` (`close({ timeoutMs })`, `closed`, `await using`,
 * the `signal` option).
 * @example
 * ```ts
 * import { Server } from "tritonffi";
 * import { serveOpenAI } from "tritonffi/openai";
 *
 * await using server = await new Server({ modelRepository: "./models" }).start();
 * await using openai = await serveOpenAI(server, { port: 0 }); // 0: any free port (default 9000)
 * const models = await (await fetch(`${openai.url}/v1/models`)).json();
 * console.log(models.data.map((m: { id: string }) => m.id));
 * ```
 * @throws {TritonError} INVALID_ARG for bad options or a mapping that does not fit its model
 *   (naming the model and the tensor); Triton's error for a model in `models` that is not ready;
 *   UNAVAILABLE when it cannot listen; UNSUPPORTED for `workers` > 1 where this process cannot
 *   serve on several threads (see {@link ServeOpenAIOptions.workers}), naming why. Each as the
 *   rejection.
 */
export function serveOpenAI(
  server: Server,
  options: ServeOpenAIOptions = {},
): Promise<OpenAIService> {
  return listen({
    what: "serveOpenAI()",
    options,
    fields: `{ hostname?, port?, signal?, ${OPTION_FIELDS.slice(2)}`,
    defaultPort: 9000,
    service: (hooks) => openaiService(server, options, hooks),
    workers: {
      server,
      entry: moduleBeside(import.meta.url, "openai_worker"),
      options: (): OpenAIOptions => {
        const {
          signal: _signal,
          workers: _workers,
          allowBunWorkers: _allow,
          hostname: _hostname,
          port: _port,
          ...rest
        } = options;
        return rest;
      },
    },
  });
}
