/**
 * The inference scenarios, through the public API, exactly as bench/native/client.c runs them:
 * N workers, each issuing its next request when the previous one's stream ended.
 *
 * - `latency_RxC`: identity_int32, INPUT0 INT32 [R, 16], concurrency 1: p50 and p99 in µs.
 * - `throughput_cN_RxC`: the same at concurrency N: inferences per second.
 * - `stream_RxE`: R concurrent repeat_int32 requests of E elements (DELAY 0, WAIT 0), each
 *   streaming E responses: responses per second.
 *
 * And how cost grows with work ({@link scaling}): `scale_cN`, identity_int32 [1,16] at
 * concurrency N from 1 to 4096 (inferences/s, p99 µs of every inference, the process's RSS in MiB
 * when the timed run ends, N requests in flight), and `streams_10000x100`, 10,000 concurrent
 * repeat_int32 streams of 100 responses (responses/s, RSS once all are issued).
 *
 * Each timed run follows a warm-up of a quarter of its duration.
 *
 * @module
 */
import process from "node:process";
import type { Model, Server } from "../mod.ts";

/** Latency at concurrency 1, µs. */
export interface Latency {
  p50: number;
  p99: number;
  count: number;
}

/** Every scenario's result, keyed like the C client's output. */
export type ScenarioResults = Record<string, Latency | number>;

let sink = 0;

function identityInputs(rows: number) {
  const data = new Int32Array(rows * 16).map((_, i) => i);
  return { INPUT0: { dtype: "INT32" as const, shape: [rows, 16], data } };
}

/** The process's resident set, MiB. */
const rssMiB = () => process.memoryUsage().rss / 2 ** 20;

/** Runs inferences from `workers` concurrent loops until `ms` have passed; `rssAtEnd` is the RSS
 * the first worker to see the end read, every worker's request still in flight. */
async function loop(
  model: Model,
  rows: number,
  workers: number,
  ms: number,
  latencies?: number[],
): Promise<{ inferences: number; seconds: number; rssAtEnd: number }> {
  const inputs = identityInputs(rows);
  const start = performance.now();
  const end = start + ms;
  let inferences = 0;
  let rssAtEnd = 0;
  const worker = async () => {
    for (;;) {
      const t0 = performance.now();
      if (t0 >= end) break;
      for await (const r of model.infer({ inputs })) {
        sink += (r.outputs.OUTPUT0.data as Int32Array)[0];
      }
      const t1 = performance.now();
      latencies?.push(t1 - t0);
      inferences++;
      if (t1 >= end && rssAtEnd === 0) rssAtEnd = rssMiB();
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return { inferences, seconds: (performance.now() - start) / 1000, rssAtEnd };
}

/** The `q`-th percentile of `sorted` (ms, ascending), in µs. */
function percentileUs(sorted: number[], q: number): number {
  return sorted[Math.floor((sorted.length * q) / 100)] * 1000;
}

async function latency(model: Model, rows: number, ms: number): Promise<Latency> {
  await loop(model, rows, 1, ms / 4);
  const lat: number[] = [];
  await loop(model, rows, 1, ms, lat);
  lat.sort((a, b) => a - b);
  return { p50: percentileUs(lat, 50), p99: percentileUs(lat, 99), count: lat.length };
}

async function throughput(model: Model, rows: number, workers: number, ms: number) {
  await loop(model, rows, workers, ms / 4);
  const { inferences, seconds } = await loop(model, rows, workers, ms);
  return inferences / seconds;
}

async function stream(model: Model, requests: number, elements: number): Promise<number> {
  return (await streams(model, requests, elements)).rate;
}

/** `requests` concurrent streams of `elements` responses: responses/s, and the RSS once every
 * request is issued. */
async function streams(
  model: Model,
  requests: number,
  elements: number,
): Promise<{ rate: number; rssMiB: number }> {
  const inputs = {
    IN: new Int32Array(elements),
    DELAY: new Uint32Array(elements),
    WAIT: new Uint32Array(1),
  };
  const start = performance.now();
  let responses = 0;
  const all = Promise.all(
    Array.from({ length: requests }, async () => {
      for await (const r of model.infer({ inputs })) {
        sink += (r.outputs.OUT.data as Int32Array)[0];
        responses++;
      }
    }),
  );
  // `model.infer()` submits synchronously: every request above is in Triton's hands by now.
  const rss = rssMiB();
  await all;
  if (responses !== requests * elements) {
    throw new Error(`${responses} responses, expected ${requests * elements}`);
  }
  return { rate: responses / ((performance.now() - start) / 1000), rssMiB: rss };
}

/** The scenario names, in table order. */
export const SCENARIOS = [
  "latency_1x16",
  "latency_8x16",
  "throughput_c16_1x16",
  "throughput_c128_1x16",
  "throughput_c16_8x16",
  "throughput_c128_8x16",
  "stream_1x100000",
  "stream_128x1000",
] as const;

/** Runs the scenarios whose names pass `only` (all by default). */
export async function inference(
  server: Server,
  ms: number,
  only: (name: string) => boolean = () => true,
): Promise<ScenarioResults> {
  const identity = server.model("identity_int32");
  const repeat = server.model("repeat_int32");
  const run: Record<(typeof SCENARIOS)[number], () => Promise<Latency | number>> = {
    latency_1x16: () => latency(identity, 1, ms),
    latency_8x16: () => latency(identity, 8, ms),
    throughput_c16_1x16: () => throughput(identity, 1, 16, ms),
    throughput_c128_1x16: () => throughput(identity, 1, 128, ms),
    throughput_c16_8x16: () => throughput(identity, 8, 16, ms),
    throughput_c128_8x16: () => throughput(identity, 8, 128, ms),
    stream_1x100000: () => stream(repeat, 1, 100_000),
    stream_128x1000: () => stream(repeat, 128, 1000),
  };
  const results: ScenarioResults = {};
  for (const name of SCENARIOS) if (only(name)) results[name] = await run[name]();
  if (sink === 0.5) console.log(sink); // keeps reads observable
  return results;
}

/** One concurrency's row of {@link scaling}. */
export interface ScaleResult {
  /** Inferences per second. */
  rate: number;
  /** The 99th percentile of every inference's latency, µs. */
  p99: number;
  /** The process's RSS when the timed run ended, MiB. */
  rssMiB: number;
}

/** The concurrencies of the scaling rows, and its streams. */
export const SCALE_CONCURRENCY = [1, 8, 64, 512, 4096] as const;
export const SCALE_STREAMS = { requests: 10_000, elements: 100 } as const;

/** How cost grows with work: `scale_cN` for every {@link SCALE_CONCURRENCY} (in that order, so
 * that each RSS is read with more in flight than the last) and `streams_10000x100`. */
export async function scaling(
  server: Server,
  ms: number,
): Promise<Record<string, ScaleResult | { rate: number; rssMiB: number }>> {
  const identity = server.model("identity_int32");
  const out: Record<string, ScaleResult | { rate: number; rssMiB: number }> = {};
  for (const n of SCALE_CONCURRENCY) {
    await loop(identity, 1, n, ms / 4);
    const lat: number[] = [];
    const { inferences, seconds, rssAtEnd } = await loop(identity, 1, n, ms, lat);
    lat.sort((a, b) => a - b);
    out[`scale_c${n}`] = {
      rate: inferences / seconds,
      p99: percentileUs(lat, 99),
      rssMiB: rssAtEnd,
    };
  }
  const { requests, elements } = SCALE_STREAMS;
  out[`streams_${requests}x${elements}`] = await streams(
    server.model("repeat_int32"),
    requests,
    elements,
  );
  if (sink === 0.5) console.log(sink);
  return out;
}
