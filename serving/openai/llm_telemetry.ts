/**
 * What LLM users watch of a completion or chat call: its latency as Prometheus histograms on the
 * service's `/metrics`, always, and, where an OpenTelemetry SDK is registered, a span following
 * OpenTelemetry's generative-AI conventions.
 *
 * Histograms (label `model_name`, the OpenAI model name; seconds; vLLM's names and buckets under
 * the prefix `tritonffi:`, so that a vLLM dashboard works with the prefix changed):
 * - `tritonffi:time_to_first_token_seconds`: from the call's arrival to its first text;
 * - `tritonffi:time_per_output_token_seconds`: from the first text to the last, divided by the
 *   output tokens after the first (the count the usage reports, the model's or its tokenizer's,
 *   else the pieces of text it sent), observed once per call that generated two tokens or more;
 * - `tritonffi:e2e_request_latency_seconds`: from the call's arrival to its last event.
 * One observation per call (all its choices together), whether it streams or not; a call that
 * fails is observed only in the end-to-end histogram, one whose client left in none.
 *
 * The span, `{gen_ai.operation.name} {gen_ai.request.model}` (`chat my-llm`, `text_completion
 * my-llm`), is a child of the call's HTTP span and the parent of its inferences; it carries
 * `gen_ai.operation.name`, `gen_ai.provider.name` (`triton`), `gen_ai.request.model`,
 * `gen_ai.response.model`, the sampling fields given (`gen_ai.request.max_tokens`,
 * `temperature`, `top_p`, `seed`, `presence_penalty`, `frequency_penalty`, `stop_sequences`,
 * `choice.count`), `gen_ai.usage.input_tokens` and `output_tokens` (where the usage is counted),
 * `gen_ai.response.finish_reasons`, and `gen_ai.server.time_to_first_token` (seconds) with a
 * `gen_ai.first_token` event at that instant. An embeddings call is `embeddings {model}`, with
 * `gen_ai.usage.input_tokens` and `gen_ai.embeddings.dimension.count` read from its answer.
 *
 * @module
 */
import {
  type Attributes,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from "@opentelemetry/api";
import { sdkTracer } from "../../src/telemetry.ts";
import { TritonError } from "../../src/errors.ts";
import type { ChoiceEvent, ChoiceSpec, GenerationObserver } from "./generation.ts";
import type { GenerationRequest } from "./request.ts";

/** vLLM's buckets, in seconds. */
const TTFT_BUCKETS = [
  0.001,
  0.005,
  0.01,
  0.02,
  0.04,
  0.06,
  0.08,
  0.1,
  0.25,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
  20,
  40,
  80,
  160,
  640,
  2560,
];
const TPOT_BUCKETS = [
  0.01,
  0.025,
  0.05,
  0.075,
  0.1,
  0.15,
  0.2,
  0.3,
  0.4,
  0.5,
  0.75,
  1,
  2.5,
  5,
  7.5,
  10,
  20,
  40,
  80,
];
const E2E_BUCKETS = [
  0.3,
  0.5,
  0.8,
  1,
  1.5,
  2,
  2.5,
  5,
  10,
  15,
  20,
  30,
  40,
  50,
  60,
  120,
  240,
  480,
  960,
  1920,
  7680,
];

/** A histogram's observations of one model: the count in each bucket (not cumulative), the sum
 * and the count. */
export interface HistogramSeries {
  counts: number[];
  sum: number;
  count: number;
}

/** Observations by histogram name, then by model (plain data, for other threads). */
export type HistogramData = Record<string, Record<string, HistogramSeries>>;

/** One Prometheus histogram with a `model_name` label. */
class Histogram {
  readonly #name: string;
  readonly #help: string;
  readonly #buckets: readonly number[];
  /** Per model: the count in each bucket (not cumulative), then the sum. */
  readonly #series = new Map<string, HistogramSeries>();

  constructor(name: string, help: string, buckets: readonly number[]) {
    this.#name = name;
    this.#help = help;
    this.#buckets = buckets;
  }

  observe(model: string, seconds: number): void {
    let series = this.#series.get(model);
    if (series === undefined) {
      series = { counts: new Array(this.#buckets.length).fill(0), sum: 0, count: 0 };
      this.#series.set(model, series);
    }
    const i = this.#buckets.findIndex((le) => seconds <= le);
    if (i >= 0) series.counts[i]++;
    series.sum += seconds;
    series.count++;
  }

  get name(): string {
    return this.#name;
  }

  /** Its observations, by model, as plain data. */
  data(): Record<string, HistogramSeries> {
    return Object.fromEntries(this.#series);
  }

  /** The Prometheus text of the histogram (nothing before the first observation), its own
   * observations added to `others` (other threads' of the same service). */
  render(others: readonly Record<string, HistogramSeries>[] = []): string {
    const all = new Map<string, HistogramSeries>();
    for (const part of [this.data(), ...others]) {
      for (const [model, s] of Object.entries(part)) {
        const into = all.get(model);
        if (into === undefined) {
          all.set(model, { counts: [...s.counts], sum: s.sum, count: s.count });
          continue;
        }
        s.counts.forEach((n, i) => (into.counts[i] += n));
        into.sum += s.sum;
        into.count += s.count;
      }
    }
    if (all.size === 0) return "";
    const name = this.#name;
    let text = `# HELP ${name} ${this.#help}\n# TYPE ${name} histogram\n`;
    for (const [model, series] of all) {
      const label = `model_name="${escapeLabel(model)}"`;
      let cumulative = 0;
      this.#buckets.forEach((le, i) => {
        cumulative += series.counts[i];
        text += `${name}_bucket{${label},le="${le}"} ${cumulative}\n`;
      });
      text += `${name}_bucket{${label},le="+Inf"} ${series.count}\n`;
      text += `${name}_sum{${label}} ${series.sum}\n`;
      text += `${name}_count{${label}} ${series.count}\n`;
    }
    return text;
  }
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

/** The prefix of the latency histograms' names. */
export const METRIC_PREFIX = "tritonffi:";

/** The latency histograms of one OpenAI service. */
export class LatencyHistograms {
  readonly timeToFirstToken = new Histogram(
    `${METRIC_PREFIX}time_to_first_token_seconds`,
    "Time from a completion or chat call's arrival to its first text, in seconds.",
    TTFT_BUCKETS,
  );
  readonly timePerOutputToken = new Histogram(
    `${METRIC_PREFIX}time_per_output_token_seconds`,
    "Time per output token after the first of a completion or chat call, in seconds.",
    TPOT_BUCKETS,
  );
  readonly endToEnd = new Histogram(
    `${METRIC_PREFIX}e2e_request_latency_seconds`,
    "Time from a completion or chat call's arrival to its end, in seconds.",
    E2E_BUCKETS,
  );

  /** Their observations as plain data (what another thread of the service adds to its own). */
  data(): HistogramData {
    const out: HistogramData = {};
    for (const h of this.#all()) out[h.name] = h.data();
    return out;
  }

  /** The Prometheus text of the three, with the observations of `others` (the other threads of
   * the service) added. */
  render(others: readonly HistogramData[] = []): string {
    return this.#all().map((h) => h.render(others.map((o) => o[h.name] ?? {}))).join("");
  }

  #all(): Histogram[] {
    return [this.timeToFirstToken, this.timePerOutputToken, this.endToEnd];
  }

  /** Starts watching one call that arrived at `arrivedMs` (`performance.now()`). */
  watch(
    kind: "completion" | "chat",
    request: GenerationRequest,
    choices: readonly ChoiceSpec[],
    arrivedMs: number,
  ): GenerationWatch {
    return new GenerationWatch(this, kind, request, choices, arrivedMs);
  }
}

/** The attributes of the sampling fields `request` gives. */
function requestAttributes(request: GenerationRequest): Attributes {
  const attributes: Attributes = {};
  const numbers = [
    ["temperature", "gen_ai.request.temperature"],
    ["top_p", "gen_ai.request.top_p"],
    ["seed", "gen_ai.request.seed"],
    ["presence_penalty", "gen_ai.request.presence_penalty"],
    ["frequency_penalty", "gen_ai.request.frequency_penalty"],
  ] as const;
  for (const [field, name] of numbers) {
    const value = request.fields.get(field);
    if (typeof value === "number") attributes[name] = value;
  }
  if (request.maxTokens !== undefined) attributes["gen_ai.request.max_tokens"] = request.maxTokens;
  if (request.stop !== undefined) attributes["gen_ai.request.stop_sequences"] = [...request.stop];
  if (request.n !== 1) attributes["gen_ai.request.choice.count"] = request.n;
  return attributes;
}

/** One completion or chat call, watched from its arrival to its end: see the module
 * documentation. */
export class GenerationWatch implements GenerationObserver {
  readonly #histograms: LatencyHistograms;
  readonly #model: string;
  readonly #arrivedMs: number;
  readonly #choices: readonly ChoiceSpec[];
  readonly #span: Span | undefined;
  #firstMs: number | undefined;
  #lastMs: number | undefined;
  #pieces = 0;
  readonly #ends = new Map<number, Extract<ChoiceEvent, { kind: "end" }>>();
  #over = false;

  constructor(
    histograms: LatencyHistograms,
    kind: "completion" | "chat",
    request: GenerationRequest,
    choices: readonly ChoiceSpec[],
    arrivedMs: number,
  ) {
    this.#histograms = histograms;
    this.#model = request.model;
    this.#arrivedMs = arrivedMs;
    this.#choices = choices;
    const operation = kind === "chat" ? "chat" : "text_completion";
    const span = sdkTracer()?.startSpan(`${operation} ${request.model}`, {
      kind: SpanKind.INTERNAL,
    });
    if (span?.isRecording()) {
      span.setAttributes({
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": "triton",
        "gen_ai.request.model": request.model,
        ...requestAttributes(request),
      });
      this.#span = span;
    }
  }

  /** Runs `fn` (which starts the call's inferences) with the span active. */
  run<T>(fn: () => T): T {
    if (this.#span === undefined) return fn();
    return context.with(trace.setSpan(context.active(), this.#span), fn);
  }

  event(event: ChoiceEvent): void {
    if (this.#over) return;
    if (event.kind === "end") {
      this.#ends.set(event.index, event);
      return;
    }
    const now = performance.now();
    if (this.#firstMs === undefined) {
      this.#firstMs = now;
      const seconds = (now - this.#arrivedMs) / 1000;
      this.#histograms.timeToFirstToken.observe(this.#model, seconds);
      this.#span?.setAttribute("gen_ai.server.time_to_first_token", seconds);
      this.#span?.addEvent("gen_ai.first_token");
    }
    this.#lastMs = now;
    this.#pieces++;
  }

  failed(error: unknown): void {
    if (this.#over) return;
    this.#over = true;
    this.#histograms.endToEnd.observe(this.#model, (performance.now() - this.#arrivedMs) / 1000);
    const span = this.#span;
    if (span === undefined) return;
    span.setAttribute("error.type", error instanceof TritonError ? error.code : "Error");
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    span.end();
  }

  /** The call's stream ended: where its end was not read (the client left), the span ends with
   * a `cancelled` event and nothing is observed. So does a call whose choices did not all end
   * (they were cancelled). */
  abandoned(): void {
    if (this.#over) return;
    this.#over = true;
    this.#span?.addEvent("cancelled");
    this.#span?.end();
  }

  done(): void {
    if (this.#over) return;
    if (this.#ends.size < this.#choices.length) return this.abandoned();
    this.#over = true;
    const h = this.#histograms;
    h.endToEnd.observe(this.#model, (performance.now() - this.#arrivedMs) / 1000);
    const output = this.#outputTokens();
    if (this.#firstMs !== undefined && output !== undefined && output > 1) {
      h.timePerOutputToken.observe(
        this.#model,
        (this.#lastMs! - this.#firstMs) / 1000 / (output - 1),
      );
    }
    const span = this.#span;
    if (span === undefined) return;
    const ends = [...this.#ends.values()].sort((a, b) => a.index - b.index);
    const attributes: Attributes = {
      "gen_ai.response.model": this.#model,
      "gen_ai.response.finish_reasons": ends.map((e) => e.finishReason),
    };
    const input = this.#inputTokens();
    if (input !== undefined) attributes["gen_ai.usage.input_tokens"] = input;
    if (ends.length > 0 && ends.every((e) => e.completionTokens !== undefined)) {
      attributes["gen_ai.usage.output_tokens"] = output!;
    }
    span.setAttributes(attributes);
    span.end();
  }

  /** The call's output tokens: the model's count where it counted every choice, else the pieces
   * of text. */
  #outputTokens(): number | undefined {
    const ends = [...this.#ends.values()];
    if (ends.length > 0 && ends.every((e) => e.completionTokens !== undefined)) {
      return ends.reduce((sum, e) => sum + e.completionTokens!, 0);
    }
    return this.#pieces;
  }

  /** The prompt tokens of each prompt once, where the model counted them all. */
  #inputTokens(): number | undefined {
    const byPrompt = new Map<number, number>();
    for (const choice of this.#choices) {
      const tokens = this.#ends.get(choice.index)?.promptTokens;
      if (tokens === undefined) return undefined;
      byPrompt.set(choice.promptIndex, tokens);
    }
    let sum = 0;
    for (const tokens of byPrompt.values()) sum += tokens;
    return this.#choices.length > 0 ? sum : undefined;
  }
}

/**
 * Runs `answer`, an embeddings call of `model`, under an `embeddings {model}` span where one
 * records (its input tokens and dimensions read back from the JSON answer).
 */
export async function watchEmbeddings(
  model: string,
  answer: () => Promise<Response>,
): Promise<Response> {
  const span = sdkTracer()?.startSpan(`embeddings ${model}`, { kind: SpanKind.INTERNAL });
  if (span === undefined || !span.isRecording()) return await answer();
  span.setAttributes({
    "gen_ai.operation.name": "embeddings",
    "gen_ai.provider.name": "triton",
    "gen_ai.request.model": model,
  });
  try {
    const response = await context.with(trace.setSpan(context.active(), span), answer);
    if (response.ok) {
      const body = await response.clone().json() as {
        usage?: { prompt_tokens?: unknown };
        data?: { embedding?: unknown }[];
      };
      const attributes: Attributes = { "gen_ai.response.model": model };
      const tokens = body.usage?.prompt_tokens;
      if (typeof tokens === "number") attributes["gen_ai.usage.input_tokens"] = tokens;
      const first = body.data?.[0]?.embedding;
      if (Array.isArray(first)) attributes["gen_ai.embeddings.dimension.count"] = first.length;
      span.setAttributes(attributes);
    } else {
      span.setAttribute("error.type", String(response.status));
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return response;
  } catch (e) {
    span.setAttribute("error.type", e instanceof TritonError ? e.code : "Error");
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: e instanceof Error ? e.message : String(e),
    });
    throw e;
  } finally {
    span.end();
  }
}
