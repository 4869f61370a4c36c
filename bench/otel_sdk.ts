/**
 * An OpenTelemetry SDK for the benches (`BENCH_OTEL`): `"on"` registers a tracer provider that
 * samples every span, ends them into a processor that only counts them (no export: the cost
 * measured is the binding's spans and the SDK's span objects), the AsyncLocalStorage context
 * manager and the W3C propagator; `"unsampled"` the same with a sampler that records nothing (an
 * SDK is there, the spans are not sampled). Anything else registers nothing.
 *
 * @module
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  type ReadableSpan,
  type SpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

/** Counts the spans that ended. */
class CountingProcessor implements SpanProcessor {
  ended = 0;
  onStart(): void {}
  onEnd(_span: ReadableSpan): void {
    this.ended++;
  }
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** Registers what `mode` names; returns the count of spans ended, or undefined for none. */
export function registerSdk(mode: string | undefined): (() => number) | undefined {
  if (mode !== "on" && mode !== "unsampled") return undefined;
  const processor = new CountingProcessor();
  const provider = new TracerProvider({
    sampler: mode === "on" ? new AlwaysOnSampler() : new AlwaysOffSampler(),
    spanProcessors: [processor],
  });
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  return () => processor.ended;
}
