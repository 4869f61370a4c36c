/**
 * OpenTelemetry spans of in-process inferences, made through `@opentelemetry/api` alone: where
 * the application registered an SDK, each inference is a span, the child of the span active when
 * it started; without one the API hands back a span that records nothing, and nothing more is
 * done (no Triton trace, no C call).
 *
 * A recording inference asks Triton for its own timestamps (a `TRITONSERVER_InferenceTrace` at
 * level TIMESTAMPS, through the binding's trace callbacks, see `trace.ts`) and lays them out as
 * `tritonserver`'s OpenTelemetry trace mode does: under the `InferRequest` span, a span named
 * after the model per request (an ensemble's steps under their ensemble's) with the attributes
 * `triton.model_name`, `triton.model_version`, `triton.trace_id`, `triton.trace_parent_id`,
 * `triton.request_id` and the events `REQUEST_START`, `QUEUE_START`, `REQUEST_END`; under it a
 * `compute` span with `COMPUTE_START`, `COMPUTE_INPUT_END`, `COMPUTE_OUTPUT_START`,
 * `COMPUTE_END`. Triton's timestamps come from a steady clock; they are placed on the span's
 * wall-clock timeline by taking the first one (the request's REQUEST_START) as the instant the
 * `InferRequest` span started (its start as the SDK took it): the intervals between Triton's
 * timestamps are Triton's own, and each lies at most the few microseconds between then and
 * Triton's REQUEST_START before the real instant.
 *
 * @module
 */
import {
  type Attributes,
  context,
  type HrTime,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { Ptr, TritonLibrary } from "../ffi/mod.ts";
import { TritonError } from "./errors.ts";
import { batchProperties } from "./metadata.ts";
import type { InferResponse } from "./response.ts";
import type { Tensor } from "./tensor.ts";
import {
  createTrace,
  type PendingTrace,
  type TraceActivity,
  type TraceSettings,
  traceSettings,
} from "./trace.ts";

/** The instrumentation scope name of the binding's spans (`trace.getTracer(TRACER_NAME)`). */
export const TRACER_NAME = "tritonffi";

/** Triton's name for the span of one inference (its OpenTelemetry trace mode's root span). */
const INFER_REQUEST = "InferRequest";

/**
 * The binding's tracer where an SDK is registered; undefined, after one look at the API's
 * globals, where none is. The API registers a provider as the delegate of its proxy provider:
 * without one, the proxy has no tracer to delegate to.
 */
export function sdkTracer(): Tracer | undefined {
  const provider = trace.getTracerProvider();
  return provider instanceof ProxyTracerProvider
    ? provider.getDelegateTracer(TRACER_NAME)
    : provider.getTracer(TRACER_NAME);
}

/** Wall-clock time now, in nanoseconds since the epoch (the clock the SDK stamps spans with). */
function wallNowNs(): bigint {
  const ms = performance.timeOrigin + performance.now();
  const whole = Math.floor(ms);
  return BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
}

/** A recording span's start as the SDK took it (`ReadableSpan.startTime`), in ns since the epoch;
 * undefined where the span does not carry one. */
function startOf(span: Span): bigint | undefined {
  const start = (span as unknown as { startTime?: unknown }).startTime;
  if (!Array.isArray(start) || start.length !== 2) return undefined;
  const [seconds, nanos] = start;
  if (!Number.isSafeInteger(seconds) || !Number.isSafeInteger(nanos)) return undefined;
  return BigInt(seconds) * 1_000_000_000n + BigInt(nanos);
}

function hrTime(ns: bigint): HrTime {
  return [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)];
}

/** What the model spans and the request see of an inference. */
interface InferenceTarget {
  readonly model: string;
  readonly version: number;
}

/**
 * @internal The span of one inference, while it records. Made by {@link startInferenceSpan};
 * `submit()` gives it the request's trace settings ({@link traceFor}) and its stream's events.
 */
export class InferenceSpan {
  readonly #tracer: Tracer;
  readonly #span: Span;
  readonly #startNs: bigint;
  /** `performance.now()` when the span started: its end is {@link #startNs} plus the time since,
   * on one clock with its start and Triton's timestamps. */
  readonly #startPerfMs = performance.now();
  /** Triton's steady-clock time of the first activity (placed at {@link #startNs}). */
  #anchor: bigint | undefined;
  /** Per Triton trace id: its request span, its compute span. */
  readonly #requests = new Map<bigint, Span>();
  readonly #computes = new Map<bigint, Span>();
  /** What must happen before the span ends: the stream's end, and the trace's (when traced). */
  #waiting = 1;
  #responses = 0;
  #ended = false;

  constructor(tracer: Tracer, span: Span, startNs: bigint) {
    this.#tracer = tracer;
    this.#span = span;
    this.#startNs = startNs;
  }

  /** The span itself (for tests and front ends). */
  get span(): Span {
    return this.#span;
  }

  /** One of Triton's timestamped activities. */
  activity(a: TraceActivity): void {
    if (a.type !== "timestamp" || this.#ended) return;
    this.#anchor ??= a.timestampNs;
    const at = hrTime(this.#startNs + (a.timestampNs - this.#anchor));
    const id = a.traceId;
    switch (a.activity) {
      case "REQUEST_START": {
        const parent = a.parentId === 0n
          ? this.#span
          : this.#requests.get(a.parentId) ?? this.#span;
        const attributes: Attributes = {
          "triton.model_name": a.model,
          "triton.model_version": a.modelVersion,
          "triton.trace_id": Number(a.traceId),
          "triton.trace_parent_id": Number(a.parentId),
        };
        if (a.requestId !== "") attributes["triton.request_id"] = a.requestId;
        const span = this.#child(a.model, parent, at, attributes);
        span.addEvent(a.activity, at);
        this.#requests.set(id, span);
        return;
      }
      case "QUEUE_START":
        this.#requests.get(id)?.addEvent(a.activity, at);
        return;
      case "REQUEST_END": {
        const span = this.#requests.get(id);
        span?.addEvent(a.activity, at);
        span?.end(at);
        return;
      }
      case "COMPUTE_START": {
        const parent = this.#requests.get(id) ?? this.#span;
        const span = this.#child("compute", parent, at, {});
        span.addEvent(a.activity, at);
        this.#computes.set(id, span);
        return;
      }
      case "COMPUTE_INPUT_END":
      case "COMPUTE_OUTPUT_START":
        this.#computes.get(id)?.addEvent(a.activity, at);
        return;
      case "COMPUTE_END": {
        const span = this.#computes.get(id);
        span?.addEvent(a.activity, at);
        span?.end(at);
        return;
      }
    }
  }

  #child(name: string, parent: Span, at: HrTime, attributes: Attributes): Span {
    return this.#tracer.startSpan(
      name,
      { kind: SpanKind.INTERNAL, startTime: at, attributes },
      trace.setSpan(ROOT_CONTEXT, parent),
    );
  }

  /** The request's trace was made: the span also waits for its end. */
  traced(): void {
    this.#waiting++;
  }

  /** Triton released the trace: no activity comes after. */
  traceEnded(): void {
    this.#release();
  }

  /** A response arrived. */
  response(response: InferResponse): void {
    this.#responses++;
    if (response.error) this.failed(response.error);
  }

  /** The inference failed: before Triton took it (then the span ends now) or after. */
  failed(error: unknown, submitted = true): void {
    if (this.#ended) return;
    const code = error instanceof TritonError ? error.code : "INTERNAL";
    const message = error instanceof Error ? error.message : String(error);
    this.#span.setStatus({ code: SpanStatusCode.ERROR, message });
    this.#span.setAttribute("error.type", code);
    if (!submitted) this.#end();
  }

  /** The stream ended (FINAL came and Triton released the request). */
  finished(): void {
    this.#release();
  }

  #release(): void {
    if (--this.#waiting === 0) this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    const elapsedNs = BigInt(Math.round((performance.now() - this.#startPerfMs) * 1e6));
    const now = hrTime(this.#startNs + elapsedNs);
    // Spans Triton never closed (a trace cut short) end with their inference.
    for (const span of [...this.#computes.values(), ...this.#requests.values()]) {
      if (span.isRecording()) span.end(now);
    }
    this.#span.setAttribute("triton.response_count", this.#responses);
    this.#span.end(now);
  }
}

/**
 * @internal Starts the span of an inference of `target` with `tensors` where it records (an SDK
 * is registered and samples it), as the child of the active span; undefined, after nothing but
 * the API's no-op calls, where it does not.
 */
export function startInferenceSpan(
  lib: TritonLibrary,
  server: Ptr,
  target: InferenceTarget,
  requestId: string | undefined,
  tensors: readonly (readonly [string, Tensor])[],
): InferenceSpan | undefined {
  const tracer = sdkTracer();
  if (tracer === undefined) return undefined;
  const span = tracer.startSpan(INFER_REQUEST, { kind: SpanKind.INTERNAL }, context.active());
  if (!span.isRecording()) return undefined;
  // Triton's first timestamp is placed at the span's own start, as the SDK took it (its
  // ReadableSpan's startTime: the SDK's clock, Date-based, can differ by milliseconds from
  // performance.timeOrigin + now, and a child placed by the other clock could start before its
  // parent); our clock only where the span does not say.
  const startNs = startOf(span) ?? wallNowNs();
  const attributes: Attributes = {
    "triton.model_name": target.model,
    "triton.model_version": target.version,
  };
  if (requestId !== undefined && requestId !== "") attributes["triton.request_id"] = requestId;
  const batch = batchSizeOf(lib, server, target, tensors);
  if (batch !== undefined) attributes["triton.batch_size"] = batch;
  span.setAttributes(attributes);
  return new InferenceSpan(tracer, span, startNs);
}

/** The batch size of a request: its first input's first dimension where the model batches, else
 * 1; undefined where the model's batching cannot be read. */
function batchSizeOf(
  lib: TritonLibrary,
  server: Ptr,
  target: InferenceTarget,
  tensors: readonly (readonly [string, Tensor])[],
): number | undefined {
  try {
    const { firstDim } = batchProperties(lib, server, target.model, target.version);
    if (!firstDim) return 1;
    return tensors.length > 0 ? tensors[0][1].shape[0] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @internal The trace of a request: the user's `trace` option, and Triton's timestamps for the
 * request's span where one records. The user's `onActivity` gets what its level asked for.
 * Where the core has no tracing, a request traced for its span alone goes without the timestamps.
 * @throws {TritonError} UNSUPPORTED where the user asked for a trace and the core has none.
 */
export function traceFor(
  lib: TritonLibrary,
  user: TraceSettings | undefined,
  span: InferenceSpan | undefined,
): PendingTrace | undefined {
  if (span === undefined) return user && createTrace(lib, user);
  const wanted = user?.level ?? 0;
  const timestamps = traceSettings({ onActivity: () => {} }).level;
  const settings: TraceSettings = {
    level: wanted | timestamps,
    tensors: user?.tensors ?? false,
    onActivity: (a) => {
      span.activity(a);
      if (user && (a.type === "tensor" || (wanted & timestamps) !== 0)) user.onActivity(a);
    },
    onEnd: () => {
      span.traceEnded();
      user?.onEnd?.();
    },
  };
  try {
    const pending = createTrace(lib, settings);
    span.traced();
    return pending;
  } catch (e) {
    if (user !== undefined || !(e instanceof TritonError) || e.code !== "UNSUPPORTED") throw e;
    return undefined;
  }
}
