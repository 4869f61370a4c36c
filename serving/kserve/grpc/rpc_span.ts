/**
 * The gRPC service's calls as OpenTelemetry server spans, through `@opentelemetry/api` alone:
 * each call continues the caller's trace (the application's registered propagator reads the
 * `traceparent` and `tracestate` metadata; the SDK's default is W3C trace context), named
 * `{service}/{method}` with OpenTelemetry's RPC attributes (`rpc.system`, `rpc.service`,
 * `rpc.method`, `rpc.grpc.status_code`) and a `message` event per message sent (and received, on
 * a stream). The span is active while the call is served, so the inferences it starts are its
 * children. Without a registered SDK the handlers are called as they are.
 *
 * @module
 */
import {
  type Attributes,
  type Context,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from "@opentelemetry/api";
import type { ServiceDefinition } from "@grpc/grpc-js";
import { sdkTracer } from "../../../src/telemetry.ts";
import {
  type CallMetadata,
  type DuplexCall,
  type DuplexHandler,
  type GrpcStatus,
  type ServiceImplementation,
  Status,
  type UnaryHandler,
} from "./transport.ts";

const metadataGetter: TextMapGetter<CallMetadata> = {
  get: (metadata, key) => {
    const values = metadata.get(key);
    return values.length === 0 ? undefined : values.map(String);
  },
  keys: () => [],
};

/** The gRPC codes OpenTelemetry counts as a server's error. */
const SERVER_ERRORS: ReadonlySet<number> = new Set([2, 4, 12, 13, 14, 15]);

/** One call's span and its message count. */
class RpcSpan {
  readonly span: Span;
  #sent = 0;
  #received = 0;
  #ended = false;

  constructor(span: Span) {
    this.span = span;
  }

  sent(message: unknown): void {
    const attributes: Attributes = { "message.type": "SENT", "message.id": ++this.#sent };
    if (message instanceof Uint8Array) attributes["message.uncompressed_size"] = message.length;
    this.span.addEvent("message", attributes);
  }

  received(): void {
    this.span.addEvent("message", { "message.type": "RECEIVED", "message.id": ++this.#received });
  }

  end(status: GrpcStatus | null): void {
    if (this.#ended) return;
    this.#ended = true;
    const code = status?.code ?? Status.OK;
    this.span.setAttribute("rpc.grpc.status_code", code);
    if (SERVER_ERRORS.has(code)) {
      this.span.setAttribute("error.type", String(code));
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: status?.details });
    }
    this.span.end();
  }
}

/** Starts the span of a call of `path` (`/package.Service/Method`); undefined where it does not
 * record. */
function startSpan(
  path: string,
  metadata: CallMetadata,
): { call: RpcSpan; active: Context } | undefined {
  const tracer = sdkTracer();
  if (tracer === undefined) return undefined;
  const parent = propagation.extract(context.active(), metadata, metadataGetter);
  const [, service, method] = path.split("/");
  const span = tracer.startSpan(
    `${service}/${method}`,
    {
      kind: SpanKind.SERVER,
      attributes: { "rpc.system": "grpc", "rpc.service": service, "rpc.method": method },
    },
    parent,
  );
  if (!span.isRecording()) return undefined;
  return { call: new RpcSpan(span), active: trace.setSpan(parent, span) };
}

function tracedUnary(path: string, handler: UnaryHandler): UnaryHandler {
  return (call, callback) => {
    const started = startSpan(path, call.metadata);
    if (started === undefined) return handler(call, callback);
    const { call: rpc, active } = started;
    rpc.received();
    context.with(active, () =>
      handler(call, (error, response) => {
        if (error === null) rpc.sent(response);
        rpc.end(error);
        callback(error, response);
      }));
  };
}

function tracedDuplex(path: string, handler: DuplexHandler): DuplexHandler {
  return (call) => {
    const started = startSpan(path, call.metadata);
    if (started === undefined) return handler(call);
    const { call: rpc, active } = started;
    call.on("cancelled", () => {
      rpc.span.addEvent("cancelled");
      rpc.end({ code: Status.CANCELLED, details: "cancelled" });
    });
    call.on("close", () => rpc.end(null));
    const traced: DuplexCall = {
      get metadata() {
        return call.metadata;
      },
      get destroyed() {
        return call.destroyed;
      },
      get writableNeedDrain() {
        return call.writableNeedDrain;
      },
      on(event: string, listener: (message?: unknown) => void) {
        if (event !== "data") return call.on(event as "end", listener as () => void);
        return call.on("data", (message: unknown) => {
          rpc.received();
          context.with(active, listener, undefined, message);
        });
      },
      off: (event, listener) => call.off(event, listener),
      write(message) {
        rpc.sent(message);
        return call.write(message);
      },
      end() {
        rpc.end(null);
        return call.end();
      },
      emit(event, status) {
        rpc.end(status);
        return call.emit(event, status);
      },
    };
    context.with(active, () => handler(traced));
  };
}

/**
 * `implementation`'s handlers with a server span per call (see the module documentation).
 * @param definition the service's methods (their paths, and which stream).
 */
export function tracedService(
  definition: ServiceDefinition,
  implementation: ServiceImplementation,
): ServiceImplementation {
  const traced: Record<string, UnaryHandler | DuplexHandler> = {};
  for (const [name, handler] of Object.entries(implementation)) {
    const method = definition[name];
    if (method === undefined) {
      traced[name] = handler;
    } else if (method.requestStream || method.responseStream) {
      traced[name] = tracedDuplex(method.path, handler as DuplexHandler);
    } else {
      traced[name] = tracedUnary(method.path, handler as UnaryHandler);
    }
  }
  return traced;
}
