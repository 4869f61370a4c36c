/**
 * An OpenTelemetry SDK registered for the length of one test: a tracer provider whose spans go
 * to an in-memory exporter, the AsyncLocalStorage context manager and the W3C trace-context
 * propagator, all unregistered afterwards (Bun runs every test file in one process).
 *
 * @module
 */
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanExporter,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

/** What a test sees of the registered SDK. */
export interface Recording {
  readonly exporter: InMemorySpanExporter;
  /** Resolves with the finished spans once `done` holds for them (rejects after `timeoutMs`). */
  spans(done: (spans: ReadableSpan[]) => boolean, timeoutMs?: number): Promise<ReadableSpan[]>;
}

/** Runs `fn` with an SDK registered; spans also go to `extra` exporters. */
export async function recording<T>(
  fn: (r: Recording) => Promise<T>,
  extra: SpanExporter[] = [],
): Promise<T> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    spanProcessors: [exporter, ...extra].map((e) => new SimpleSpanProcessor({ exporter: e })),
  });
  const manager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(manager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const spans = async (done: (spans: ReadableSpan[]) => boolean, timeoutMs = 10_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const finished = exporter.getFinishedSpans();
      if (done(finished)) return finished;
      if (Date.now() > until) {
        throw new Error(`spans not done: ${finished.map((s) => s.name).join(", ")}`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  try {
    return await fn({ exporter, spans });
  } finally {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  }
}

/** A span's time as nanoseconds since the epoch. */
export function ns(time: readonly [number, number]): bigint {
  return BigInt(time[0]) * 1_000_000_000n + BigInt(time[1]);
}

/** The span named `name` (exactly one). */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1) {
    throw new Error(`${found.length} spans named ${name} in ${spans.map((s) => s.name)}`);
  }
  return found[0];
}
