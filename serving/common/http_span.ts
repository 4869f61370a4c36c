/**
 * An HTTP front end's calls as OpenTelemetry server spans, through `@opentelemetry/api` alone:
 * each call continues the caller's trace (the application's registered propagator reads
 * `traceparent` and `tracestate`; the SDK's default is W3C trace context), is active while the
 * call is served (inferences it starts are its children) and carries OpenTelemetry's HTTP
 * server attributes. An event stream's span lasts until the stream ends, with a `message` event
 * per event sent. Without a registered SDK the span records nothing and the call is served as
 * it would be without this module.
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import { sdkTracer } from "../../src/telemetry.ts";
import type { FetchHandler } from "./listen.ts";

/** Where the call's {@link HttpSpan} sits in the context the call is served in. */
const HTTP_SPAN = createContextKey("tritonffi HTTP server span");

const headerGetter: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};

/** A Hono route (`/v2/models/:name/versions/:version{[0-9]+}/infer`) as OpenTelemetry writes a
 * route template (`/v2/models/{name}/versions/{version}/infer`). */
export function routeTemplate(path: string): string {
  return path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");
}

/** The server span of one HTTP call, while it records. */
export class HttpSpan {
  readonly span: Span;
  readonly #method: string;
  #messages = 0;
  /** The bytes of a stream's events sent so far. */
  #streamed = 0;
  #ended = false;

  constructor(span: Span, method: string) {
    this.span = span;
    this.#method = method;
  }

  /** The route that served the call (a Hono route path). */
  route(path: string): void {
    const route = routeTemplate(path);
    this.span.setAttribute("http.route", route);
    this.span.updateName(`${this.#method} ${route}`);
  }

  /** The call's response: its status, and its size where its headers say it (a stream's is
   * counted as it is sent). */
  respond(response: Response): void {
    const status = response.status;
    const attributes: Attributes = { "http.response.status_code": status };
    const size = Number(response.headers.get("content-length") ?? NaN);
    if (Number.isSafeInteger(size)) attributes["http.response.body.size"] = size;
    this.span.setAttributes(attributes);
    if (status >= 500) {
      this.span.setAttribute("error.type", String(status));
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }

  /** An event of a stream was sent (`bytes` long). */
  message(bytes: number): void {
    this.#messages++;
    this.#streamed += bytes;
    this.span.addEvent("message", {
      "message.type": "SENT",
      "message.id": this.#messages,
      "message.uncompressed_size": bytes,
    });
  }

  /** The call failed with an exception nothing answered. */
  failed(error: unknown): void {
    this.span.recordException(error instanceof Error ? error : String(error));
    this.span.setAttribute("error.type", error instanceof Error ? error.name : "Error");
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }

  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#messages > 0) {
      this.span.setAttributes({
        "tritonffi.stream.messages": this.#messages,
        "http.response.body.size": this.#streamed,
      });
    }
    this.span.end();
  }
}

/** The {@link HttpSpan} of the call being served in `ctx` (the active context by default). */
export function httpSpanOf(ctx: Context = context.active()): HttpSpan | undefined {
  return ctx.getValue(HTTP_SPAN) as HttpSpan | undefined;
}

/** Names the span of the call being served after `path`, the route serving it (routes.ts). */
export function servedBy(path: string): void {
  httpSpanOf()?.route(path);
}

/** The attributes OpenTelemetry's HTTP server conventions give a request. */
function requestAttributes(request: Request, url: URL): Attributes {
  const attributes: Attributes = {
    "http.request.method": request.method,
    "url.path": url.pathname,
    "url.scheme": url.protocol.replace(/:$/, ""),
    "server.address": url.hostname,
  };
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  attributes["server.port"] = port;
  if (url.search !== "") attributes["url.query"] = url.search.slice(1);
  const agent = request.headers.get("user-agent");
  if (agent !== null) attributes["user_agent.original"] = agent;
  const size = Number(request.headers.get("content-length") ?? NaN);
  if (Number.isSafeInteger(size)) attributes["http.request.body.size"] = size;
  return attributes;
}

/**
 * `fetch` with a server span per call (see the module documentation). Nothing is added where the
 * span does not record.
 * @param streams whether a response is an event stream, whose span ends with the stream.
 */
export function tracedFetch(
  fetch: FetchHandler,
  isStream: (response: Response) => boolean,
): FetchHandler {
  return (request) => {
    const tracer = sdkTracer();
    return tracer === undefined ? fetch(request) : traced(tracer, request);
  };
  async function traced(tracer: Tracer, request: Request): Promise<Response> {
    const parent = propagation.extract(context.active(), request.headers, headerGetter);
    const span = tracer.startSpan(request.method, { kind: SpanKind.SERVER }, parent);
    if (!span.isRecording()) return await fetch(request);
    const url = new URL(request.url);
    span.setAttributes(requestAttributes(request, url));
    const call = new HttpSpan(span, request.method);
    const active = trace.setSpan(parent, span).setValue(HTTP_SPAN, call);
    let response: Response;
    try {
      response = await context.with(active, () => fetch(request));
    } catch (e) {
      call.failed(e);
      call.end();
      throw e;
    }
    call.respond(response);
    if (response.body === null || !isStream(response)) {
      call.end();
      return response;
    }
    return new Response(counted(response.body, call), response);
  }
}

/** `body` read one chunk at a time as the client reads (as the original is), each chunk an event
 * of `call`, whose span ends with the stream. */
function counted(body: ReadableStream<Uint8Array>, call: HttpSpan): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(c) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (e) {
        call.failed(e);
        call.end();
        c.error(e);
        return;
      }
      if (next.done) {
        call.end();
        c.close();
        return;
      }
      call.message(next.value.byteLength);
      c.enqueue(next.value);
    },
    cancel(reason) {
      call.span.addEvent("cancelled");
      call.end();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
